"""The host's commands by SMS that act on the running game: START GAME,
PAUSE, RESUME, ADVANCE, END GAME, MOVE window HH:MM (FLYTT, POMERI) and
GONE NAME (UTE, OTIŠAO). The core refuses them from anyone but the host,
with its reason; GONE's words are ordinary ones, so from anyone but the
host they are not read as GONE at all (grammar.parse). SET is in
adapters/sms/host_reports.py.

Apart from adapters/sms/inbound.py, which reads and applies what the
players of a game text, so that each stays short enough to read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from adapters.sms import render as words
from adapters.sms.grammar import Command, fold
from gameflow.core import actions
from gameflow.core.engine import legal
from gameflow.core.legal import find
from gameflow.core.state import Game

if TYPE_CHECKING:
    from adapters.sms.inbound import Gateway, Text

HOST_ACTIONS: dict[str, type[actions.Action]] = {
    "start": actions.Start,
    "pause": actions.Pause,
    "resume": actions.Resume,
    "advance": actions.Advance,
    "end": actions.End,
}
KINDS = frozenset({"move", "gone", *HOST_ACTIONS})


async def command(gw: Gateway, text: Text, game: Game, cmd: Command) -> None:
    """One of `KINDS`, from `text` in `game`."""
    player = text.player
    if cmd.kind == "move":
        await _move(gw, text, game, cmd.args)
    elif cmd.kind == "gone":  # GONE NAME: the core refuses a name not at the table
        named = [
            p for p, n in zip(game.players, game.names, strict=True) if fold(n) == fold(cmd.args[0])
        ]
        await gw.submit(text, game, actions.Gone(player, None, named[0] if named else ""))
    else:
        phase = game.phase.seq if cmd.kind == "advance" else None
        await gw.submit(text, game, HOST_ACTIONS[cmd.kind](player, phase))


async def _move(gw: Gateway, text: Text, game: Game, args: tuple[str, ...]) -> None:
    """MOVE window HH:MM (FLYTT, POMERI): the host moves a campaign window
    (the core's MoveWindow, offered by `legal()`; docs/rules/campaign.md).
    A window may be named by its start; anyone but the host of a campaign
    gets the core's reason."""
    player = text.player
    spec = find(legal(game, player), actions.MoveWindow.kind)
    if spec is None:
        window = args[0] if args else ""
        await gw.submit(text, game, actions.MoveWindow(player, None, window, ""))
        return
    names = [str(n) for n in spec.options("window")]
    hits = [n for n in names if args and n.startswith(args[0])]
    window = args[0] if args and args[0] in names else (hits[0] if len(hits) == 1 else "")
    if len(args) != 2 or not window:
        text.say.append(
            words.t(words.MOVE_USAGE, game.lang, window=names[0], windows=", ".join(names))
        )
        return
    await gw.submit(text, game, actions.MoveWindow(player, None, window, args[1]))
