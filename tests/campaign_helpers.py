"""Helpers for the campaign tests: games on calendar pacing, time injected.

A game is built through the real engine (new_game, Join, Start with the zone
table the service would hand it, from zoneinfo), and `drive` plays it phase by
phase: every player makes a legal input (picked from `legal()`, seeded by the
phase and the player, so a run is reproducible), then the deadline fires at
its instant. zoneinfo is the oracle the tests check the core against.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from gameflow.core import actions as A
from gameflow.core.codec import decode_game, encode_game
from gameflow.core.engine import apply, legal, new_game
from gameflow.core.events import Event, Kind
from gameflow.core.result import Accepted
from gameflow.core.state import Game
from gameflow.replay import parse_step
from service.calendar import zone_table

HOST = "host"
PEOPLE = ("ana", "bo", "cy", "dag", "eli", "fred", "gro")


def instant(tz: str, *args: int) -> float:
    return datetime(*args, tzinfo=ZoneInfo(tz)).timestamp()  # type: ignore[misc]


def oslo(day: int, hour: int, minute: int = 0) -> float:
    """An instant of the channel tests' winter week: January 2027, in Oslo."""
    return instant("Europe/Oslo", 2027, 1, day, hour, minute)


def wall(tz: str, t: float) -> datetime:
    return datetime.fromtimestamp(t, ZoneInfo(tz))


def in_quiet(tz: str, t: float, start: str = "23:00", end: str = "07:00") -> bool:
    """The oracle: is the wall clock at `t` inside quiet hours start-end?"""
    local = wall(tz, t)
    m = local.hour * 60 + local.minute + local.second / 60
    a = int(start[:2]) * 60 + int(start[3:])
    b = int(end[:2]) * 60 + int(end[3:])
    return a <= m < b if a < b else (m >= a or m < b)


def ok(result: Any) -> Game:
    assert isinstance(result, Accepted), result
    game: Game = result.state
    return game


def started(
    kind: str, tz: str, at: float, players: int = 5, **options: Any
) -> tuple[Game, tuple[Event, ...]]:
    opts = {"pacing": "campaign", "timezone": tz, **options}
    if kind == "resistance":
        opts.setdefault("plot_cards", False)
    game = new_game(kind, "cal", HOST, f"seed-{kind}", lang="en", options=opts)
    for p in PEOPLE[:players]:
        game = ok(apply(game, A.Join(p, None, p.title()), at))
    result = apply(game, A.Start(HOST, None, zone_table(tz, at)), at)
    assert isinstance(result, Accepted), result
    return result.state, result.events


def pick(game: Game, player: str) -> A.Action | None:
    """A legal input of `player` now, or None; seeded by the phase and the player."""
    specs = [s for s in legal(game, player) if s.kind not in ("pause", "resume", "end")]
    if not specs:
        return None
    rng = random.Random(f"{game.phase.seq}/{player}")
    spec = specs[0]
    step: dict[str, Any] = {"as": player, "do": spec.kind, "phase": game.phase.seq}
    for field in spec.fields:
        if field.many:
            size = game.rules.team_size
            step[field.name] = rng.sample(list(field.options), size)
        elif field.options:
            step[field.name] = rng.choice(field.options)
    if spec.kind == "vote" and "approve" in step:
        # Teams are approved two times in three: days with rejections happen.
        step["approve"] = rng.random() < 0.75
    try:
        return parse_step(game, step)
    except ValueError:
        return None


Check = Callable[[Game, tuple[Event, ...]], None]


def drive(
    game: Game,
    events: tuple[Event, ...],
    check: Check,
    *,
    reload_at: int | None = None,
    limit: int = 400,
) -> tuple[Game, list[Game]]:
    """Play `game` to its end: inputs ten minutes into each phase, then the
    deadline at its instant. `check` sees every phase as entered, with the
    events that entered it. At step `reload_at` the game goes through the
    codec (a restart): the run must not notice. Returns the last state and
    every phase's state as entered."""
    seen: list[Game] = []
    for step in range(limit):
        if not game.running:
            return game, seen
        if step == reload_at:
            game = decode_game(encode_game(game))
        check(game, events)
        seen.append(game)
        deadline = game.phase.deadline
        assert deadline is not None, game.phase
        t = min(game.phase.started + 600.0, deadline - 1.0)
        for player in game.players:
            action = pick(game, player)
            if action is not None:
                result = apply(game, action, t)
                if isinstance(result, Accepted):
                    assert result.state.phase.seq == game.phase.seq  # no auto-advance
                    game = result.state
        result = apply(game, A.Deadline(None, game.phase.seq), deadline)
        assert isinstance(result, Accepted), result
        game, events = result.state, result.events
    raise AssertionError("the campaign did not end")


def reminders(events: tuple[Event, ...]) -> list[float]:
    return [e.at for e in events if e.kind == Kind.REMINDER and e.at is not None]
