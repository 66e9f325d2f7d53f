"""The Telegram identities: a player's id and their private chat.

Split from notifier.py so that the renderer (renderer.py) and the notifier can
both use them without importing each other. Who is acting is no longer kept
here: it is the service's explicit `Origin` (service/compose.py).
"""

from __future__ import annotations

PREFIX = "tg:"


def identity(user_id: int) -> str:
    return f"{PREFIX}{user_id}"


def chat_of(player: str | None) -> int | None:
    """The private chat of a Telegram player (a private chat's id is the user's)."""
    if player is None or not player.startswith(PREFIX):
        return None
    try:
        return int(player[len(PREFIX) :])
    except ValueError:
        return None
