"""The leader's term on a real Redis, in process: renewal vs. slow re-arms, and
stepping down and leading again after losing the lease.

Both bugs came from the scale test: the leader awaited its periodic full re-arm
between two renewals, so with hundreds of games the lease lapsed; and a leader
that lost its lease never led again. Here a source that sleeps while listing the
games stands in for the busy store, and short TTLs keep the tests quick. Nothing
asserts on speed: the checks are on the lease key in Redis and on which deadlines
took effect.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from redis.asyncio import Redis
from test_scheduler_lease import with_redis
from test_scheduler_process import live_game

from scheduler.lease import Lease
from scheduler.redis_ports import RedisGames, RedisService
from scheduler.runner import candidate
from service.ports import Due

pytestmark = pytest.mark.scheduler

TTL_MS = 600


def leader_parts(
    r: Redis, prefix: str, ttl_ms: int = TTL_MS
) -> tuple[RedisGames, RedisService, Lease, asyncio.Event]:
    """A candidate's games and service on `r`, its lease and its stop."""
    games = RedisGames(r, prefix)
    lease = Lease(r, prefix + "scheduler:leader", ttl_ms=ttl_ms)
    return games, RedisService(games), lease, asyncio.Event()


class SlowGames(RedisGames):
    """A store that takes `pause` seconds per game to read its deadline index
    (awaiting, as a busy store does): every re-arm of `n` games due soon
    lasts well past the lease's TTL."""

    def __init__(self, redis: Redis, prefix: str, pause: float) -> None:
        super().__init__(redis, prefix)
        self.pause = pause
        self.listed = 0  # full listings finished

    async def due(self, until: float) -> list[Due]:
        entries = await super().due(until)
        for _ in entries:
            await asyncio.sleep(self.pause)
        self.listed += 1
        return entries


class Lines:
    """The runner's progress lines, read from pytest's captured stdout."""

    def __init__(self, capsys: Any) -> None:
        self.capsys = capsys
        self.seen: list[str] = []

    def words(self) -> list[str]:
        self.seen += self.capsys.readouterr().out.splitlines()
        return [line.split(" ")[0] for line in self.seen]

    async def wait_for(self, word: str, count: int = 1, timeout: float = 10.0) -> None:
        end = time.monotonic() + timeout
        while self.words().count(word) < count:
            assert time.monotonic() < end, f"no {word!r} x{count}: {self.seen}"
            await asyncio.sleep(0.02)


def test_a_slow_rearm_never_lets_the_lease_lapse(capsys: Any) -> None:
    """20 games at 50 ms each: every re-arm (takeover and resyncs) takes 1 s, over
    1.5 TTLs; the lease key must hold the leader's token with a live TTL all along."""

    async def body(r: Redis, prefix: str) -> None:
        lines = Lines(capsys)
        now = time.time()
        setup = RedisGames(r, prefix)
        for i in range(20):
            await setup.save(live_game(f"s{i}", now, 600.0), wake=False)
        games = SlowGames(r, prefix, pause=0.05)
        lease = Lease(r, prefix + "scheduler:leader", ttl_ms=TTL_MS)
        stop = asyncio.Event()
        task = asyncio.create_task(
            candidate(r, prefix, lease, games, RedisService(games), stop, resync=0.1)
        )
        samples: list[tuple[str | None, int]] = []
        try:
            await lines.wait_for("leader")
            # the takeover's re-arm and at least two resyncs, each longer than the TTL
            while games.listed < 3:
                samples.append((await lease.holder(), await r.pttl(lease.key)))
                await asyncio.sleep(0.02)
        finally:
            stop.set()
            await asyncio.wait_for(task, 10)
        assert len(samples) > 50, samples  # sampled throughout three 1 s re-arms
        assert {holder for holder, _ in samples} == {lease.token}, samples
        assert min(ttl for _, ttl in samples) > 0, samples
        words = lines.words()
        assert "lost" not in words, lines.seen
        assert words.count("leader") == 1 and words.count("armed") == 1, lines.seen
        assert "armed games=20" in "\n".join(lines.seen)

    with_redis(body)


def test_a_leader_that_lost_its_lease_stands_by_and_leads_again(capsys: Any) -> None:
    """Another holder overwrites the lease: the worker steps down (stops its jobs:
    nothing fires while the other holds it, though the deadline passes), and once
    the lease is free it leads again and fires the deadline itself."""

    async def body(r: Redis, prefix: str) -> None:
        lines = Lines(capsys)
        games, service, lease, stop = leader_parts(r, prefix)
        task = asyncio.create_task(candidate(r, prefix, lease, games, service, stop, resync=0.2))
        try:
            await lines.wait_for("armed")
            deadline = time.time() + 1.0
            await games.save(live_game("g1", time.time(), 1.0), wake=False)
            # the usurper (a successor after a lapse, in the real failure) holds it long
            await r.set(lease.key, "usurper", px=60_000)
            await lines.wait_for("lost")
            await lines.wait_for("standby", count=2)
            assert not lease.valid()
            await asyncio.sleep(max(0.0, deadline + 0.8 - time.time()))
            assert await service.applied() == []  # past due, but this worker stood down
            assert await lease.holder() == "usurper"
            await r.delete(lease.key)  # free again: the worker must lead again
            await lines.wait_for("leader", count=2)
            await lines.wait_for("armed", count=2)
            end = time.monotonic() + 10
            while not await service.applied():
                assert time.monotonic() < end, lines.seen
                await asyncio.sleep(0.05)
            assert await lease.holder() == lease.token
        finally:
            stop.set()
            await asyncio.wait_for(task, 10)
        applied = await service.applied()
        assert [(a["game"], a["seq"]) for a in applied] == [("g1", 1)]
        assert applied[0]["at"] >= deadline
        words = lines.words()
        order = [w for w in words if w in ("leader", "armed", "lost", "stats", "standby")]
        assert order[:7] == ["standby", "leader", "armed", "lost", "stats", "standby", "leader"]

    with_redis(body)
