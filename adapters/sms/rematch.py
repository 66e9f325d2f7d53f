"""SMS's side of running a game back (issue #32, item 5; service/rematch.py).

The host of an ended game texts `AGAIN CODE` (IGJEN, PONOVO) with its code;
every SMS player of that game is texted an invitation and joins the rematch
under their old name by answering `YES CODE` (JA, DA) with its new code.
`AGAIN` alone stays STATUS in a running game; from a phone in no game it
gets the usage. The words are read here, before the general grammar
(adapters/sms/grammar.py), which only knows `AGAIN` alone as STATUS.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from adapters.sms import render as words
from adapters.sms.directory import is_sms
from adapters.sms.grammar import Command, fold, tokens
from adapters.sms.lobby import joined
from adapters.sms.renderer import CHANNEL, SmsRenderer
from gameflow.core.state import Game
from gameflow.core.text import N_, msg
from gameflow.i18n import render
from service import rematch
from service.compose import Origin
from service.games import CODE_ALPHABET, GameNotFound
from service.outbox import OutboxMessage

if TYPE_CHECKING:
    from adapters.sms.inbound import Gateway, Text

AGAIN = frozenset({"again", "igjen", "ponovo"})
YES = frozenset({"yes", "ja", "da"})
_CODE = re.compile(f"^[{CODE_ALPHABET}]{{4,6}}$")

INVITE = N_(
    "Run it back! The host starts a new game of {game} with the same table and a new "
    "deal. Reply YES {code} to join as {name}."
)
USAGE = N_("Text AGAIN with the code of the game that ended, e.g. AGAIN KPRT: the same again.")
DONE = N_(
    "Run it back: a new game of {game}, code {code}. Every player is invited; "
    "text START GAME when everyone is in."
)
NO_SUCH = N_("There is no game with the code {code}.")


def parse(body: str, in_game: bool) -> Command | None:
    """`AGAIN CODE` (the host), `YES CODE` (a player), `AGAIN` alone from
    a phone in no game (the usage); None for anything else."""
    words = tokens(body)
    if not words or len(words) > 2:
        return None
    head = fold(words[0]).strip(".!:")
    code = fold(words[1]).upper() if len(words) == 2 else ""
    if code and not _CODE.match(code):
        return None
    if head in AGAIN:
        if code:
            return Command("again", (code,))
        return None if in_game else Command("again_usage")
    if head in YES and code:
        return Command("rejoin", (code,))
    return None


class SmsInviter:
    """The invitations to a rematch, as texts to the old game's SMS players."""

    def __init__(self, composer: SmsRenderer, wake: Callable[[str], None]) -> None:
        self.composer = composer
        self._wake = wake

    def invite(self, old: Game, new: Game, code: str) -> list[OutboxMessage]:
        out: list[OutboxMessage] = []
        for player, name in zip(old.players, old.names, strict=True):
            if not is_sms(player):
                continue
            text = render(msg(INVITE, game=new.kind, code=code, name=name), new.lang)
            out += self.composer.messages(new, player, [text], False, f"again:{player}")
        return out

    def wake(self, game_id: str) -> None:
        self._wake(game_id)


async def command(gw: Gateway, text: Text, cmd: Command) -> None:
    """`AGAIN CODE`, `YES CODE`, `AGAIN` alone (no game): the reply's lines
    go to `text.say` (a join's welcome goes with its commit)."""
    say, lang, player = text.say, text.lang, text.player
    if cmd.kind == "again_usage":
        say.append(render(USAGE, lang))
        return
    code = cmd.args[0]
    if cmd.kind == "rejoin":
        await _rejoin(gw, text, code)
        return
    old_id = await gw.store.game_last_with_code(code)
    try:
        done = await rematch.run_back(gw.service, old_id, player) if old_id else None
    except GameNotFound:
        done = None
    if done is None:
        say.append(render(msg(NO_SUCH, code=code), lang))
        return
    if done.refused is not None or done.game is None:
        say.append(render(done.refused or msg(USAGE), lang))
        return
    new = done.game
    # The host's phone is in the rematch from now on (as after NEW).
    await gw.directory.set_phone(player, text.phone, new.id)
    await gw.store.bind(text.phone, new.id, player)
    say.append(render(msg(DONE, game=new.kind, code=done.code or "?"), new.lang))


async def _rejoin(gw: Gateway, text: Text, code: str) -> None:
    """`YES CODE`: the player joins the rematch under their old name, by the
    rules of any join (a phone in another game is told so)."""
    game_id = await gw.store.game_for_code(code)
    if game_id is not None and text.game is not None and text.game.id != game_id:
        text.say.append(words.t(words.IN_ANOTHER, text.lang))
        return
    if game_id is not None:
        await gw.directory.set_phone(text.player, text.phone, game_id)
    origin = Origin(text.player, CHANNEL, reply=text.sid, code=code)
    outcome, why = await rematch.rejoin(gw.service, code, text.player, key=text.sid, origin=origin)
    if outcome is None:
        text.say.append(render(why or msg(NO_SUCH, code=code), text.lang))
        return
    await joined(gw, text, outcome, origin)  # the welcome, as after JOIN
