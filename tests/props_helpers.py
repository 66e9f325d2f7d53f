"""What the games' property tests (test_station_props.py, test_resistance_props.py,
test_traitors_props.py) share: the host's game-wide actions by kind, every key
of a nested view, the first half of `is_legal` (a stale input is never legal;
otherwise the specs legal() offers its author), and the playthrough's steps
that do not depend on the game (a phase timing out; an input accepted exactly
when it is legal, and a refused one changing nothing)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from game_driver import GameDriver
from hypothesis import HealthCheck, settings

from gameflow.core import actions as A
from gameflow.core.engine import legal, view
from gameflow.core.events import Event
from gameflow.core.legal import ActionSpec
from gameflow.core.result import Accepted
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


def timeout(d: GameDriver, old: Game, rng: random.Random, host: str) -> A.Action:
    """The host resumes a paused game; else the phase's deadline strikes (the
    clock mostly jumps to it first)."""
    if old.phase.paused:
        return A.Resume(host)
    due = old.phase.deadline
    if due is not None and rng.random() < 0.9:
        d.now = max(d.now, due)
    return A.Deadline(None, old.phase.seq)


def judged(d: GameDriver, old: Game, action: A.Action, legal_: bool) -> tuple[Event, ...] | None:
    """Apply `action` to `old` (the driver's game): accepted exactly when it is
    legal (`legal_`; a deadline when it is due and the game runs) and then one
    version on, its events returned; refused, the game and its view unchanged."""
    want = legal_
    if isinstance(action, A.Deadline):
        due = old.phase.deadline
        want = not old.phase.paused and (due is None or d.now >= due)
    before_view = view(old, None)
    result = d.apply(action)
    if isinstance(result, Accepted):
        assert want, f"accepted but not legal: {action!r}"
        assert d.game.version == old.version + 1
        return result.events
    assert not want, f"legal but refused ({result.code}): {action!r}"
    assert d.game is old
    assert view(old, None) == before_view
    return None


def playthrough_settings(examples: int) -> settings:
    """Hypothesis settings for a property over `examples` whole games: no
    deadline (a game takes its time), slow examples allowed, and the same
    examples on every run."""
    return settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
        derandomize=True,
    )
