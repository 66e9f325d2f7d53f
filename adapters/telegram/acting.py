"""Who is acting, in this task: what a handler tells the composer around its
`submit` (contextvars survive into the service's compose step, which runs in
the handler's task), and the Telegram identities.

Split from notifier.py so that the composer (compose.py) and the notifier can
both use them without importing each other.
"""

from __future__ import annotations

import contextvars
from dataclasses import dataclass

from gameflow.core.events import Event

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


@dataclass(slots=True)
class Acting:
    """Set by a handler around its `submit`: the TELL this input makes for its
    own player in its own phase is handed back instead of sent, and the prompt
    message the input came from (`message`: chat, message id) is left to the
    handler to rewrite rather than closed."""

    game_id: str
    player: str
    seq: int
    echo: Event | None = None
    message: tuple[int, int] | None = None


ACTING: contextvars.ContextVar[Acting | None] = contextvars.ContextVar("acting", default=None)


@dataclass(slots=True)
class Confirming:
    """Set by a host command around its `submit`: its confirmation joins the
    news that the commit sends to the host's chat (one message, whatever the
    sender's timing), and `done` says it did; otherwise the handler sends it."""

    game_id: str
    chat: int
    text: str
    done: bool = False


CONFIRMING: contextvars.ContextVar[Confirming | None] = contextvars.ContextVar(
    "confirming", default=None
)
