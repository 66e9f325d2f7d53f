"""A worker that leads re-arms its own commits in-process (issue #20, item 2).

Before, every commit was published on the wake channel even by the leader's own
process, which heard it back, loaded the snapshot from the store and decoded it:
a round trip, a pub/sub message, a load and a decode per input (bench/knee.py).
Here, on a real Redis: while the term is armed, `WakeNotifier.notify` arms the
game from the state in hand and publishes nothing; the deadline fires all the
same. Before the term and after it, the notifier publishes, as a web worker
that does not lead must.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from redis.asyncio import Redis
from test_scheduler_leader import TTL_MS
from test_scheduler_lease import with_redis
from test_scheduler_process import live_game

from scheduler.lease import Lease
from scheduler.redis_ports import RedisGames, RedisService, wake_channel
from scheduler.runner import candidate
from scheduler.service_ports import WakeNotifier
from tests.worker_process import wait_for

pytestmark = pytest.mark.scheduler


async def heard(pubsub: object, within: float) -> list[str]:
    """Game ids published on the wake channel within `within` seconds (a
    wake-up is the id, then the state's schedule: only the ids here)."""
    got: list[str] = []
    end = time.monotonic() + within
    while time.monotonic() < end:
        message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.05)  # type: ignore[attr-defined]
        if message is not None:
            data = message["data"]
            got.append((data.decode() if isinstance(data, bytes) else str(data)).split(" ")[0])
    return got


def test_the_leaders_own_commits_arm_in_process_and_are_not_published() -> None:
    async def body(r: Redis, prefix: str) -> None:
        games = RedisGames(r, prefix)
        service = RedisService(games)
        waker = WakeNotifier(r, prefix)
        listener = r.pubsub()
        await listener.subscribe(wake_channel(prefix))
        await heard(listener, 0.2)  # the subscribe confirmation

        # Not leading yet: a change is published for whoever leads.
        early = live_game("g0", time.time(), 3600.0)
        await waker.notify(early, ())
        assert waker.published == 1
        assert await heard(listener, 0.5) == ["g0"]

        lease = Lease(r, prefix + "scheduler:leader", ttl_ms=TTL_MS)
        stop = asyncio.Event()
        task = asyncio.create_task(
            candidate(r, prefix, lease, games, service, stop, resync=3600.0, on_term=waker.lead)
        )
        try:
            await wait_for(lambda: waker.local is not None, 10, "the term to arm")
            # A commit made after the term's re-arm, announced to nobody but
            # the notifier (no resync for an hour): only the in-process arm can
            # fire its deadline.
            game = live_game("g1", time.time(), 0.5)
            await games.save(game, wake=False)
            await waker.notify(game, ())
            assert waker.published == 1, "the leader published its own commit"
            assert waker.local.armed("g1"), "the commit armed nothing in-process"
            # (before the deadline: the stand-in service publishes what it applies)
            assert await heard(listener, 0.2) == []
            await wait_for(service.applied, 10, "the deadline armed in-process to fire")
        finally:
            stop.set()
            await asyncio.wait_for(task, 10)
        applied = await service.applied()
        assert [(a["game"], a["seq"]) for a in applied] == [("g1", 1)]

        # The term is over: the notifier publishes again.
        assert waker.local is None
        await heard(listener, 0.2)  # the stand-in service's own wake-up for g1
        await waker.notify(game, ())
        assert waker.published == 2
        assert await heard(listener, 0.5) == ["g1"]
        await listener.aclose()  # type: ignore[no-untyped-call]

    with_redis(body)
