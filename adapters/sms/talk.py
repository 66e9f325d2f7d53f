"""Players' talk by SMS (issue #33; the relay itself is service/talk.py).

`SAY ...` (nb `SI`, sr `KAŽI`) says a line to the others while talk is open,
`TEAM ...` (nb `LAG`, sr `TAJNO`) to the player's team alone;
`MUTE` / `UNMUTE` (nb `DEMP` / `LYD`, sr `TIHO` / `GLASNO`) turn the talk's
texts off and on without leaving the game, and from the host `MUTE NAME` /
`UNMUTE NAME` mute and unmute that player's talk. The service decides who hears a
line and writes it to the outbox; `SmsTalker` renders it for the SMS
recipients who did not turn talk texts off, one text per line, marked as
talk: the delivery merges a campaign's into digests (adapters/sms/digest.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from adapters.sms.directory import is_sms
from adapters.sms.grammar import Command
from adapters.sms.renderer import CHANNEL, SmsRenderer
from gameflow.core.state import Game
from gameflow.core.text import N_, msg
from gameflow.i18n import render
from service import talk
from service.games import GameService
from service.outbox import OutboxMessage

CLOSED_HERE = N_("Nobody hears you now: talk through the bot is closed in this game at the moment.")


@dataclass
class SmsTalker(talk.Talker):
    """service/talk.py's `Talker` for SMS: texts made as the composer makes
    them (segments, transliteration, split at line ends), marked as talk: a
    campaign's go out as digests (adapters/sms/digest.py)."""

    composer: SmsRenderer
    wake_up: Callable[[str], None] | None = None
    channel: str = CHANNEL

    def to(
        self, game: Game, player: str, text: str, key: str, private: bool
    ) -> list[OutboxMessage]:
        if not is_sms(player):
            return []
        made = self.composer.messages(game, player, [text], private, key)
        return [OutboxMessage(m.channel, m.key, {**m.payload, "talk": True}) for m in made]


KINDS = frozenset({"say", "team", "mute", "unmute"})  # grammar.parse's talk commands


def register(service: GameService, composer: SmsRenderer, wake: Callable[[str], None]) -> None:
    """This channel's side of the talk, on the service (the gateway, at start)."""
    talk.add_talker(service.talkers, SmsTalker(composer, wake))


async def command(
    service: GameService, sid: str, cmd: Command, game: Game, player: str
) -> list[str]:
    """`SAY ...`, `TEAM ...`, `MUTE`, `UNMUTE` from `player` (MessageSid `sid`),
    and the host's `MUTE NAME` / `UNMUTE NAME` (a player's talk, as Telegram's
    `/mute NAME`): the reply's lines (none when the line went out: a text
    more would cost for nothing)."""
    if cmd.kind in ("say", "team"):
        text, key = cmd.args[0] if cmd.args else "", f"sms:{sid}"
        if cmd.kind == "team":
            said = await talk.to_team(service, game.id, player, text, key=key)
        else:
            said = await service.talk(game.id, player, text, key=key)
        if said.status == talk.CLOSED:
            return [render(msg(CLOSED_HERE), game.lang)]
        return [render(said.reply, game.lang)] if said.reply is not None else []
    on = cmd.kind == "unmute"
    if cmd.args:  # the host's MUTE NAME: only the host may (hush says so)
        return [
            render(await talk.hush(service.store, game, player, cmd.args[0], not on), game.lang)
        ]
    return [render(await talk.texts(service.store, game, player, on), game.lang)]
