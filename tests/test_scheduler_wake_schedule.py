"""A wake-up carries the committed state's schedule, and the leader loads the
game only when that schedule is not the one its jobs were made from (issue #20:
with two workers the leader loaded and decoded every game the other one
committed, 8-9 % of its busy time in bench/knee.py --workers 2; most of those
commits, an answer that leaves others still to answer, change nothing it
arms).

What must hold for that to lose nothing: two states with the same schedule get
the same jobs at any time (checked over whole played games), and a wake-up
without a schedule, with another one, or at a leader whose policy is not the
default the workers publish with, still loads. On a real Redis, a deadline
whose wake-ups were skipped fires all the same."""

from __future__ import annotations

import asyncio
import itertools
import time
from typing import Any

import pytest
from redis.asyncio import Redis
from test_scheduler_leader import TTL_MS
from test_scheduler_lease import with_redis
from test_scheduler_process import live_game

from gameflow.core.state import Game
from scheduler.deadlines import DeadlineScheduler
from scheduler.lease import Lease
from scheduler.plan import DEFAULT, Policy, Schedule, plan, schedule
from scheduler.redis_ports import RedisGames, RedisService
from scheduler.runner import candidate
from scheduler.service_ports import WakeNotifier
from tests.scheduler_helpers import NoSink
from tests.store_helpers import playthrough
from tests.worker_process import wait_for

pytestmark = pytest.mark.scheduler


def states(seed: int) -> list[Game]:
    """Every state of a played Station game, in order."""
    return [g for g, _, _ in playthrough(seed, 6, options={"mission_seconds": 300.0})]


def pairs(seed: int = 1) -> tuple[Game, Game, Game]:
    """Two states of one game, one after the other, with the same schedule and
    a deadline to arm, and a later state whose schedule differs."""
    played = states(seed)
    for a, b in itertools.pairwise(played):
        if schedule(a).fire is not None and schedule(a) == schedule(b):
            later = next(c for c in played if c.version > b.version and schedule(c) != schedule(b))
            return a, b, later
    raise AssertionError("no two states in a row shared a schedule")


def test_a_schedule_says_all_that_plan_reads() -> None:
    """Over played games: states of one game with the same schedule get the
    same jobs at every instant around their deadlines (and they do share
    schedules: most inputs change none)."""
    shared = 0
    for seed in range(6):
        seen: dict[Schedule, Game] = {}
        for game in states(seed):
            s = schedule(game)
            first = seen.setdefault(s, game)
            if first is game:
                continue
            shared += 1
            base = s.fire if s.fire is not None else game.phase.started
            for now in (base - 400, base - 61, base - 59, base, base + 1, base + 400):
                assert plan(game, now) == plan(first, now), (seed, game.version, now)
    assert shared > 20, "no two states shared a schedule: the test shows nothing"


def test_a_schedule_travels_as_text_exactly() -> None:
    s = Schedule(7, 1764900000.123456789, True, (1764899940.1, 1764896400.000001))
    assert Schedule.parse(s.text()) == s
    assert Schedule.parse(Schedule(3, None, False, ()).text()) == Schedule(3, None, False, ())
    for junk in ("", "nonsense", "[1, 2]", '{"seq": 1}', "[1, 2, 3, 4, 5]", '["x", 1, true, []]'):
        assert Schedule.parse(junk) is None, junk


class Counting:
    """A GameSource that answers from a dict and counts the loads."""

    def __init__(self, *games: Game) -> None:
        self.games = {g.id: g for g in games}
        self.loads = 0

    async def load(self, game_id: str) -> Game | None:
        self.loads += 1
        return self.games.get(game_id)

    async def active_games(self) -> Any:
        for game in list(self.games.values()):
            yield game


def test_a_wake_up_with_the_armed_schedule_loads_nothing() -> None:
    a, b, later = pairs()

    async def main() -> None:
        source = Counting(b)
        sched = DeadlineScheduler(source, NoSink(), clock=lambda: a.phase.started)
        sched.sync(a)
        armed = sched.armed(a.id)
        assert armed
        await sched.refresh(a.id, schedule(b))
        assert (source.loads, sched.stats["unchanged"]) == (0, 1)
        assert sched.armed(a.id) == armed
        await sched.refresh(a.id, None)  # a plain id (an older worker, a tool)
        assert source.loads == 1
        await sched.refresh(a.id, schedule(later))  # the schedule moved: load
        assert source.loads == 2
        sched.forget(a.id)
        await sched.refresh(a.id, schedule(b))  # nothing armed for it: load
        assert (source.loads, sched.stats["unchanged"]) == (3, 1)

    asyncio.run(main())


def test_a_leader_with_its_own_policy_always_loads() -> None:
    """The workers publish schedules worked out with the default policy."""
    a, b, _ = pairs()

    async def main() -> None:
        source = Counting(b)
        own = Policy(reminder_grace=60.0)  # the same reminders, another policy
        sched = DeadlineScheduler(source, NoSink(), policy=own, clock=lambda: a.phase.started)
        sched.sync(a)
        assert schedule(a, own) == schedule(b)
        await sched.refresh(a.id, schedule(b))
        assert (source.loads, sched.stats["unchanged"]) == (1, 0)

    asyncio.run(main())
    assert Policy(reminder_grace=60.0) != DEFAULT


class CountingGames(RedisGames):
    loads = 0

    async def load(self, game_id: str) -> Game | None:
        self.loads += 1
        return await super().load(game_id)


def test_skipped_wake_ups_lose_no_deadline() -> None:
    """On a real Redis: another worker's commits reach the leader as wake-ups
    with schedules; the first is loaded and armed, the next (same schedule)
    is not loaded, and the deadline fires all the same."""

    async def body(r: Redis, prefix: str) -> None:
        games = CountingGames(r, prefix)
        service = RedisService(games)
        other = WakeNotifier(r, prefix)  # a web worker's: it never leads
        terms: list[DeadlineScheduler | None] = []
        lease = Lease(r, prefix + "scheduler:leader", ttl_ms=TTL_MS)
        stop = asyncio.Event()
        task = asyncio.create_task(
            candidate(r, prefix, lease, games, service, stop, resync=3600.0, on_term=terms.append)
        )
        try:
            await wait_for(lambda: bool(terms) and terms[-1] is not None, 10, "the term to arm")
            sched = terms[-1]
            assert sched is not None
            await asyncio.sleep(0.3)  # the wake loop subscribes as the term starts
            game = live_game("w1", time.time(), 1.5)
            await games.save(game, wake=False)
            await other.notify(game, ())
            await wait_for(lambda: bool(sched.armed("w1")), 5, "the wake-up to arm the game")
            assert games.loads == 1
            again = game._replace(version=game.version + 1)  # same schedule
            await games.save(again, wake=False)
            await other.notify(again, ())
            await wait_for(lambda: sched.stats["unchanged"] >= 1, 5, "the second wake-up")
            assert games.loads == 1, "a wake-up with the armed schedule loaded the game"
            await wait_for(service.applied, 10, "the deadline to fire")
        finally:
            stop.set()
            await asyncio.wait_for(task, 10)
        applied = await service.applied()
        assert [(x["game"], x["seq"]) for x in applied] == [("w1", game.phase.seq)]

    with_redis(body)
