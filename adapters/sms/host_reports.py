"""What the SMS gateway tells a game's host: the roster (STATUS), reports
(a player opted out or in, a private text that could not be delivered) and
Twilio's delivery reports that lead to them.

A mixin of `Gateway` (adapters/sms/inbound.py), apart so that the inbound
path, which reads and applies what players text, stays readable on its own.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from adapters.sms import render as R
from adapters.sms.directory import Directory, is_sms
from adapters.sms.outbound import OutMessage
from adapters.sms.phones import short_mask
from adapters.sms.renderer import SmsComposer
from gameflow.core.state import Game
from gameflow.core.text import Msg, msg
from gameflow.i18n import render
from service.games import GameNotFound, GameService
from service.outbox import OutboxMessage
from service.ports import GameStore

log = logging.getLogger(__name__)

# A host that is not an SMS player (Telegram) is told through this hook.
HostHook = Callable[[Game, Msg], Awaitable[None]]


class HostReports:
    """The host's side of the gateway; `Gateway` sets these attributes."""

    service: GameService
    store: GameStore
    directory: Directory
    composer: SmsComposer
    host_hook: HostHook | None
    clock: Callable[[], float]

    if TYPE_CHECKING:  # provided by inbound.Gateway

        async def appended(self, game_id: str, messages: list[OutboxMessage]) -> None: ...

    async def roster(self, game: Game) -> str:
        """The players, SMS ones with a masked number ("Åse *67"; STOP if they
        opted out): the host's view, short enough for 15 players in two segments."""
        parts = []
        for pid, name in zip(game.players, game.names, strict=True):
            phone = await self.directory.phone_of(pid)
            if phone is None:
                parts.append(name)
            elif await self.directory.opted_out(phone):
                parts.append(f"{name} {short_mask(phone)} STOP")
            else:
                parts.append(f"{name} {short_mask(phone)}")
        return ", ".join(parts)

    async def tell_host(self, game: Game, text: Msg, key: str) -> None:
        """A report to the host: by SMS if the host texts (through the game's
        outbox, under `key`: a report made twice is sent once), else through
        the hook."""
        sent = False
        if is_sms(game.host) and (await self.directory.reachable([game.host])):
            lines = [render(text, game.lang)]
            messages = self.composer.messages(game, game.host, lines, False, f"h:{key}")
            await self.appended(game.id, messages)
            sent = True
        if not sent and self.host_hook is not None:
            await self.host_hook(game, text)
        elif not sent:
            log.warning("no way to tell the host of %s: %s", game.id, text.msgid)

    # -- delivery reports -------------------------------------------------------------

    async def status(self, sid: str, status: str, error: str | None) -> None:
        """A status callback: record it; a failed private text is reported to the host."""
        before = await self.directory.update_status(sid, status, error, self.clock())
        if before is None or status not in ("failed", "undelivered"):
            return
        if before.status in ("failed", "undelivered") or not before.secret:
            return
        await self.report_failure(before.game, before.player, sid)

    async def report_failure(self, game_id: str | None, player: str | None, key: str) -> None:
        if game_id is None or player is None:
            return
        try:
            game = await self.service.load(game_id)
        except GameNotFound:
            return
        if player != game.host:
            await self.tell_host(
                game, msg(R.UNDELIVERED, name=player_name(game, player)), f"f:{key}"
            )

    async def on_failed(self, message: OutMessage, error: str) -> None:
        """The sender's hook: Twilio refused a private text outright."""
        # The text's own digest (no number in the store's keys): one report per text.
        key = hashlib.sha256(f"{message.to}\n{message.body}".encode()).hexdigest()[:24]
        await self.report_failure(message.game, message.player, key)


def player_name(game: Game, player: str) -> str:
    """`player`'s name in `game` ("?" for one not seated)."""
    seat = game.seat(player)
    return game.names[seat] if seat >= 0 else "?"
