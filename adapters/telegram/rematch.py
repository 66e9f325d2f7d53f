"""Telegram's side of running a game back (issue #32, item 5; service/rematch.py).

Each Telegram player of the ended game is invited in their private chat,
with one button that seats them in the rematch under their old name (its
callback data is `again:<code>`, handled by `Hosting.rejoin_press`).
"""

from __future__ import annotations

from collections.abc import Callable

from adapters.telegram.acting import chat_of
from adapters.telegram.renderer import CHANNEL
from gameflow.core.state import Game
from gameflow.core.text import N_, msg
from gameflow.i18n import render
from service.outbox import OutboxMessage

PRESS = "again:"  # a rematch button's callback data: again:<code>
HOST_PRESS = "again:host:"  # the host's offer after /end: again:host:<old code>
INVITE = N_(
    "Run it back! The host starts a new game of {game} with the same table and a new deal. "
    "Tap to join as {name}."
)
BUTTON = N_("Join the rematch")


class TelegramInviter:
    """The invitations to a rematch, as Telegram outbox entries (a `say`
    with one button)."""

    def __init__(self, wake: Callable[[str], None]) -> None:
        self._wake = wake

    def invite(self, old: Game, new: Game, code: str) -> list[OutboxMessage]:
        out: list[OutboxMessage] = []
        for player, name in zip(old.players, old.names, strict=True):
            chat = chat_of(player)
            if chat is None:
                continue
            text = render(msg(INVITE, game=new.kind, name=name), new.lang)
            button = [render(BUTTON, new.lang), f"{PRESS}{code}"]
            payload = {"kind": "say", "chat": chat, "text": text, "button": button}
            out.append(OutboxMessage(CHANNEL, f"again:{chat}", payload))
        return out

    def wake(self, game_id: str) -> None:
        self._wake(game_id)
