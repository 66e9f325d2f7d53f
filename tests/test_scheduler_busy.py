"""The leader lease on a saturated or hung event loop, and a leader whose
wake subscription fails, on a real Redis.

The scale test's failure: a worker whose event loop is saturated by webhooks
runs every task late, the lease renewal among them, so a renewal scheduled
every TTL/3 came after the TTL and the lease lapsed; the leader then doubted
its lease (`valid()`) and held back every due deadline, stepped down, re-took
the lease, re-armed everything, and lapsed again. Here tasks that hold the loop
for a tenth of a second at a time stand in for the webhooks, and a short TTL
(600 ms) makes a loop round take as long as the whole lease.

The lease key is watched from a thread with a client of its own (a sampler on
the busy loop would be as late as the renewal). Nothing asserts on speed beyond
"during the busy period"; the checks are on the lease key in Redis, on the
progress lines, and on which deadlines took effect, each exactly once.
"""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from typing import Any

import pytest
import redis
from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from test_scheduler_leader import Lines, leader_parts
from test_scheduler_lease import redis_or_fail, with_redis
from test_scheduler_process import live_game

from scheduler.lease import Lease
from scheduler.redis_ports import RedisGames, RedisService
from scheduler.runner import candidate

pytestmark = pytest.mark.scheduler

TTL_MS = 600
HOLD = 0.1  # seconds each busy task holds the loop at a time
BUSY = 4.0  # seconds of saturation; the deadlines fall due 0.8 s into it
BUSY_TASKS = 2  # one loop round: 0.2 s at least; a Redis round trip takes two


class Watch:
    """Samples the lease key every 10 ms from a thread (holder, PTTL in ms)."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.samples: list[tuple[float, str | None, int]] = []
        self._halt = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        client = redis.Redis.from_url(redis_or_fail())
        try:
            while not self._halt.wait(0.01):
                with client.pipeline(transaction=True) as pipe:
                    holder, ttl = pipe.get(self.key).pttl(self.key).execute()
                self.samples.append((time.monotonic(), holder and holder.decode(), ttl))
        finally:
            client.close()

    def __enter__(self) -> Watch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._halt.set()
        self._thread.join(5)

    def lapses(self, token: str, since: float, until: float) -> list[tuple[float, str | None, int]]:
        """Samples in [since, until] where `token` did not hold a live lease."""
        return [s for s in self.samples if since <= s[0] <= until and (s[1] != token or s[2] <= 0)]


async def hold_the_loop(seconds: float) -> None:
    """CPU-bound work in slices: holds the loop `HOLD` s, then lets others run."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        time.sleep(HOLD)
        await asyncio.sleep(0)


def stats_of(seen: list[str]) -> dict[str, int]:
    """The fields of the last `stats` line (`stats submitted=3 held=0 ...`)."""
    line = [x for x in seen if x.startswith("stats ")][-1]
    return {k: int(v) for k, v in (f.split("=", 1) for f in line.split()[1:])}


def test_a_leader_on_a_saturated_loop_keeps_its_lease_and_fires_deadlines(capsys: Any) -> None:
    """Ten deadlines fall due 0.8 s into `BUSY` s of a saturated loop, with full
    re-arms every 0.3 s on top: the lease must never lapse, the leader never
    step down, and every deadline be submitted, not held back, and take effect
    once. (How late they take effect is the loop's business: a Redis round trip
    takes two loop rounds here.)"""

    async def body(r: Redis, prefix: str) -> None:
        lines = Lines(capsys)
        games, service, lease, stop = leader_parts(r, prefix, TTL_MS)
        task = asyncio.create_task(candidate(r, prefix, lease, games, service, stop, resync=0.3))
        with Watch(lease.key) as watch:
            try:
                await lines.wait_for("armed")
                now = time.time()
                for i in range(10):
                    await games.save(live_game(f"b{i}", now, 1.0))
                await asyncio.sleep(0.2)  # the wake-ups arm them (the loop is idle yet)
                busy_from = time.monotonic()
                await asyncio.gather(*(hold_the_loop(BUSY) for _ in range(BUSY_TASKS)))
                busy_until = time.monotonic()
                end = time.monotonic() + 5
                while len(await service.applied()) < 10 and time.monotonic() < end:
                    await asyncio.sleep(0.05)
                await asyncio.sleep(0.5)  # room for a second (wrong) firing
            finally:
                stop.set()
                await asyncio.wait_for(task, 10)
        lapsed = watch.lapses(lease.token, busy_from, busy_until)
        assert not lapsed, f"the lease lapsed {len(lapsed)} times while busy: {lapsed[:5]}"
        words = lines.words()
        assert "lost" not in words, lines.seen
        assert words.count("leader") == 1, lines.seen
        applied = await service.applied()
        assert sorted(a["game"] for a in applied) == [f"b{i}" for i in range(10)], applied
        # ...and none was held back for doubt about the lease (the old keeper's
        # late renewals left `valid()` false, so due deadlines waited)
        stats = stats_of(lines.seen)
        assert stats["held"] == 0 and stats["submitted"] == 10, lines.seen

    with_redis(body)


def test_a_hung_loop_lets_the_lease_go_and_the_standby_fires_once(capsys: Any) -> None:
    """A leader whose loop stops for good (here 3 s, past the keeper's 1 s
    stall limit and the TTL) must not keep the lease alive from elsewhere: the
    standby (another loop, another client) takes over and fires the deadline;
    the old leader, once its loop runs again, steps down without firing it."""

    async def body(r: Redis, prefix: str) -> None:
        lines = Lines(capsys)
        games, service, lease, stop = leader_parts(r, prefix, TTL_MS)
        first = asyncio.create_task(
            candidate(r, prefix, lease, games, service, stop, resync=0.3, stall=1.0)
        )
        other_stop = threading.Event()
        other: dict[str, str] = {}

        def standby() -> None:
            async def run() -> None:
                client = Redis.from_url(redis_or_fail())
                own = RedisGames(client, prefix)
                theirs = Lease(client, lease.key, ttl_ms=TTL_MS)
                other["token"] = theirs.token
                halt = asyncio.Event()
                job = asyncio.create_task(
                    candidate(client, prefix, theirs, own, RedisService(own), halt, resync=0.3)
                )
                while not other_stop.is_set():
                    await asyncio.sleep(0.05)
                halt.set()
                await asyncio.wait_for(job, 10)
                await theirs.release()
                await client.aclose()

            asyncio.run(run())

        thread = threading.Thread(target=standby, daemon=True)
        try:
            await lines.wait_for("armed")
            thread.start()
            await lines.wait_for("standby", count=2)  # the other one stands by
            await games.save(live_game("h1", time.time(), 1.0))
            await asyncio.sleep(0.2)  # armed by the leader
            time.sleep(3.0)  # the leader's loop hangs; the deadline passes meanwhile
            await lines.wait_for("lost")
            end = time.monotonic() + 5
            while not await service.applied():
                assert time.monotonic() < end, lines.seen
                await asyncio.sleep(0.05)
            await asyncio.sleep(1.0)  # room for a second (wrong) firing
            assert await lease.holder() == other["token"]
        finally:
            stop.set()
            other_stop.set()
            await asyncio.wait_for(first, 10)
            thread.join(15)
        applied = await service.applied()
        assert [(a["game"], a["seq"]) for a in applied] == [("h1", 1)], applied
        assert lines.words().count("lost") == 1, lines.seen

    with_redis(body)


def test_a_lost_wake_subscription_is_renewed_and_the_games_rearmed(capsys: Any) -> None:
    """The leader's wake subscription is cut (CLIENT KILL of that one
    connection, with redis-py's own reconnecting turned off) and the resync
    set to an hour: a game started afterwards must still be armed and its
    deadline fired, once (before, the listener died silently, and a leader
    "armed games=0 jobs=0" while the game waited)."""
    name = f"mvtest-wake-{uuid.uuid4().hex[:8]}"

    async def body(r: Redis, prefix: str) -> None:
        lines = Lines(capsys)
        # the leader's own client (the lease, the wake subscription); the games on `r`
        client = Redis.from_url(redis_or_fail(), client_name=name, retry=Retry(NoBackoff(), 0))
        games = RedisGames(r, prefix)
        service = RedisService(games)
        lease = Lease(client, prefix + "scheduler:leader", ttl_ms=TTL_MS)
        stop = asyncio.Event()
        task = asyncio.create_task(
            candidate(client, prefix, lease, games, service, stop, resync=3600.0)
        )
        try:
            await lines.wait_for("armed")
            killed = 0
            for entry in await r.client_list(_type="pubsub"):
                if entry.get("name") == name:
                    killed += await r.client_kill_filter(_id=entry["id"])
            assert killed == 1
            await asyncio.sleep(1.5)
            await RedisGames(r, prefix).save(live_game("w1", time.time(), 1.5))
            end = time.monotonic() + 6
            while not await service.applied():
                assert time.monotonic() < end, lines.seen
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.5)  # room for a second (wrong) firing
        finally:
            stop.set()
            await asyncio.wait_for(task, 10)
            await client.aclose()
        applied = await service.applied()
        assert [(a["game"], a["seq"]) for a in applied] == [("w1", 1)], applied
        assert "lost" not in lines.words(), lines.seen

    with_redis(body)
