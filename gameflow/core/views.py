"""The parts of a game's views every game fills the same way (issue #30).

A player's view is the public view with their own part under "you", which
lists what they may do while the game runs; the host's view is the public one
with who the phase still waits for. The game says what goes in; these say how.
A seat in a view is a player id, None for nobody (`player_id`). A TV screen's
track of missions or rounds reads its cells' states from the view (`track_state`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from gameflow.core.legal import ActionSpec, spec_json
from gameflow.core.state import Game


def player_id(game: Game, seat: int) -> str | None:
    """The id of the player at `seat`; None for nobody (every game's NOBODY, -1)."""
    return None if seat < 0 else game.players[seat]


def with_you(
    view: dict[str, Any],
    me: dict[str, Any],
    game: Game,
    player: str,
    legal: Callable[[Game, str], tuple[ActionSpec, ...]],
) -> dict[str, Any]:
    """`view` with the player's own part `me` under "you", and in it their
    legal actions (none once the game no longer runs)."""
    me["legal"] = [spec_json(spec) for spec in legal(game, player)] if game.running else []
    view["you"] = me
    return view


def with_waiting(
    view: dict[str, Any], game: Game, awaiting: Callable[[Game], tuple[int, ...]]
) -> dict[str, Any]:
    """`view` with the players the phase waits for under "waiting" (none once
    the game no longer runs): the host's view."""
    view["waiting"] = [game.players[s] for s in awaiting(game)] if game.running else []
    return view


def track_state(done: Mapping[str, Any] | None, playing: bool) -> str:
    """A cell of a TV screen's track (a mission, a round): "ok" or "fail" once
    done (`done`, its record in the view, says "success"), "now" while it is
    `playing`, else "later"."""
    if done is not None:
        return "ok" if done["success"] else "fail"
    return "now" if playing else "later"
