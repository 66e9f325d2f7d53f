"""The `game_master` option (issue #32): whether the host plays or only watches.

A game's host is either a game master who plays no role and watches
everything (`watches`: the Traitors' default, as in the show) or a host who may
also play (`plays`: Station's and Resistance's default). It is chosen at
creation, in the lobby, like any option (/set, SET), so every game declares it
with `option(default)` beside its other options, and the console reads it with
`watches`. The invariant stays here, in one place: a host who holds a seat never
watches, whatever the option says, so their own game is never spoiled.
"""

from __future__ import annotations

from typing import Any, Final

from gameflow.core.options import Limit, one_of
from gameflow.core.state import Game
from gameflow.core.text import N_

OPTION: Final = "game_master"
PLAYS: Final = "plays"
WATCHES: Final = "watches"
LIMIT: Final[Limit] = one_of(PLAYS, WATCHES)
HELP: Final = {
    OPTION: N_(
        "watches: you play no role and your console shows every secret; "
        "plays: you may also play and it shows only what the table sees"
    ),
}


def option(default: str) -> dict[str, Any]:
    """The option's line for a game's defaults: `{"game_master": default}`."""
    assert default in LIMIT.choices
    return {OPTION: default}


def chosen(game: Game, fallback: str) -> str:
    """The game's choice; `fallback` for a game that has no such option (one
    made before it existed, or a game that does not declare it)."""
    value = game.option(OPTION)
    return value if value in LIMIT.choices else fallback


def watches(game: Game, fallback: str) -> bool:
    """Whether the host watches as a game master who plays no role: the
    option says `watches` and the host holds no seat."""
    return chosen(game, fallback) == WATCHES and game.seat(game.host) < 0
