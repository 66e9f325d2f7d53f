"""What the games' property tests (test_station_props.py, test_resistance_props.py,
test_traitors_props.py) share: the host's game-wide actions by kind, every key
of a nested view, and the first half of `is_legal` (a stale input is never
legal; otherwise the specs legal() offers its author)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gameflow.core import actions as A
from gameflow.core.engine import legal
from gameflow.core.legal import ActionSpec
from gameflow.core.state import Game

HOST_ACTIONS: dict[str, type[A.Action]] = {
    "pause": A.Pause,
    "resume": A.Resume,
    "advance_early": A.Advance,
    "end": A.End,
}


def keys(obj: Any) -> Iterator[str]:
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield k
            yield from keys(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from keys(v)


def offered(game: Game, action: A.Action, host: str) -> tuple[ActionSpec, ...] | None:
    """The specs legal() offers `action`'s author (none to a stranger), or None
    when `action` answers another phase than the current one."""
    by = action.by or ""
    # The host's pause, resume and end act on the game, not on one question:
    # the engine does not refuse them as stale (advance_early it does).
    timeless = isinstance(action, A.Pause | A.Resume | A.End)
    if action.phase not in (None, game.phase.seq) and not timeless:
        return None
    return legal(game, by) if (game.seat(by) >= 0 or by == host) else ()
