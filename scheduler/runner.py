"""The scheduler's loop: wait for the leader lease, then arm and fire deadlines.

The process is `python -m bots.scheduler` (which wires the ports); the serve
workers run the same `candidate`. Every process runs the same loop (`candidate`). A standby tries to take the lease
every second (while Redis does not answer, at doubling waits up to RETRY_MAX,
a warning each); the leader renews it every TTL/3 from a thread of its own
(`scheduler.keeper`: neither a long re-arm nor an event loop saturated by
webhooks delays a renewal, while a loop stopped for `--stall` seconds gives the
lease up), arms the games that fall due soon from the store's deadline index
(nothing survives in a job store), re-syncs every `--resync` seconds from the
index (loading only games whose version moved: catching any change it was not
woken for) and re-arms single games when the service publishes their id on
the wake channel. Losing the lease stops the timing engine at once and the
process stands by again, for as long as it runs; SIGTERM releases the lease so a
standby takes over without waiting for the TTL. Progress lines go to stdout
(`leader`, `standby`, `armed`, `lost`, `stats`) for operators and tests.

Web workers tell the leader about changes by adding
`scheduler.service_ports.WakeNotifier` to the service's notifiers.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Callable
from typing import Any, NamedTuple

from redis.asyncio import Redis

from scheduler.deadlines import LOOKAHEAD, DeadlineScheduler
from scheduler.keeper import STALL, Keeper
from scheduler.lease import Lease
from scheduler.plan import DEFAULT, Policy, Schedule
from scheduler.ports import DeadlineSink, GameSource
from scheduler.redis_ports import wake_channel
from service.backoff import Backoff

log = logging.getLogger("scheduler.runner")
RETRY = 1.0  # seconds between a standby's attempts to take the lease
# While Redis does not answer, the waits double up to this: one warning a try,
# growing apart, and a deadline fires at most this late after Redis is back.
RETRY_MAX = 16.0


def say(what: str, **fields: object) -> None:
    """One progress line on stdout: `what key=value ...` (flushed: tests read it)."""
    tail = " ".join(f"{k}={v}" for k, v in fields.items())
    print(f"{what} {tail}".rstrip(), flush=True)


async def _sleep_or_stop(stop: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), seconds)


async def _wake_loop(pubsub: Any, sched: DeadlineScheduler) -> None:
    """Re-arm single games as the service announces their changes. Returns (or
    raises) only when the subscription fails past redis-py's own retries: the
    leader then steps down, and the next term subscribes afresh and re-arms
    every game (a listener that died silently left a leader with nothing
    armed but what its resyncs found)."""
    try:
        async for message in pubsub.listen():
            if message.get("type") != "message":
                continue
            data = message["data"]
            text = data.decode() if isinstance(data, bytes) else str(data)
            # "ID", "ID SCHEDULE" or "ID SCHEDULE VERSION" (service_ports.WakeNotifier)
            game_id, _, rest = text.partition(" ")
            version = None
            if rest and not rest.endswith("]"):
                rest, _, tail = rest.rpartition(" ")
                version = int(tail) if tail.isdigit() else None
            try:
                await sched.refresh(game_id, Schedule.parse(rest) if rest else None, version)
            except Exception:
                log.exception("re-arming %s failed (the next resync will retry)", game_id)
    finally:
        with contextlib.suppress(Exception):
            await pubsub.aclose()


async def _beat(keeper: Keeper, every: float) -> None:
    """Tell the lease keeper, every `every` seconds, that this loop still runs."""
    keeper.beat()
    while True:
        await asyncio.sleep(every)
        keeper.beat(every)


async def _either(*events: asyncio.Event) -> None:
    waits = [asyncio.ensure_future(e.wait()) for e in events]
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for w in waits:
            w.cancel()


async def _resync_loop(sched: DeadlineScheduler, stop: asyncio.Event, every: float) -> None:
    """Re-arm every game every `every` seconds (catches changes no wake-up announced)."""
    while not stop.is_set():
        await _sleep_or_stop(stop, every)
        if stop.is_set():
            return
        try:
            await sched.rearm_all()
        except Exception:
            log.exception("resync failed")


class Seat(NamedTuple):
    """A candidate's parts (`candidate`'s arguments), with which each of its
    terms leads (`lead`)."""

    redis: Redis
    prefix: str
    lease: Lease
    source: GameSource
    sink: DeadlineSink
    stop: asyncio.Event
    resync: float
    policy: Policy
    stall: float
    on_term: Callable[[DeadlineScheduler | None], None]


async def lead(seat: Seat) -> None:
    """Act as leader until the lease is lost or `stop` is set.

    `on_term` hears the term's scheduler once it is armed, and None as the term
    ends (before the timing engine stops): a web worker that leads hands its own
    commits to it in-process (`service_ports.WakeNotifier.local`) instead of
    publishing them to itself and reloading each game from the store.

    From the first moment the lease is renewed by a thread of its own
    (`scheduler.keeper.Keeper`): neither the takeover's re-arm nor a loop
    saturated by webhooks can delay a renewal past the TTL. The term ends when
    the keeper reports the lease lost (another holder, Redis gone past the
    lease's validity, or this loop stalled for `stall` s). Stepping down stops
    the timing engine first and never waits unboundedly for the helper tasks: a
    wake listener stuck in Redis must not keep this process from standing by
    and leading again."""
    redis, prefix, lease, source, sink, stop, resync, policy, stall, on_term = seat
    started = time.monotonic()
    loop = asyncio.get_running_loop()
    lost = asyncio.Event()

    def on_lost(why: str) -> None:  # called from the keeper's thread
        with contextlib.suppress(RuntimeError):  # the loop is already closed
            loop.call_soon_threadsafe(lost.set)

    keeper = Keeper(lease, on_lost, stall=stall)
    keeper.start()
    # armed ahead by well over a resync period (scheduler/deadlines.LOOKAHEAD)
    ahead = max(LOOKAHEAD, 3 * resync)
    sched = DeadlineScheduler(source, sink, policy=policy, may_fire=lease.valid, lookahead=ahead)
    pubsub = redis.pubsub()
    term = asyncio.create_task(_either(lost, stop))
    tasks: list[asyncio.Task[Any]] = [
        term,
        asyncio.create_task(_beat(keeper, lease.renew_every / 2)),
    ]
    waker_started = False
    try:
        # Subscribe before re-arming: a change made meanwhile waits in the subscription.
        await pubsub.subscribe(wake_channel(prefix))
        arming = asyncio.create_task(sched.start())
        tasks.append(arming)
        await asyncio.wait({arming, term}, return_when=asyncio.FIRST_COMPLETED)
        if arming.done():
            armed = arming.result()  # a failed re-arm raises: the caller steps down
            ms = round((time.monotonic() - started) * 1000)
            say("armed", games=armed, jobs=sched.job_count(), ms=ms)
            waker = asyncio.create_task(_wake_loop(pubsub, sched))
            tasks.append(waker)
            waker_started = True
            on_term(sched)
            tasks.append(asyncio.create_task(_resync_loop(sched, stop, resync)))
            # the term lasts as long as the lease, and the wake-ups
            await asyncio.wait({term, waker}, return_when=asyncio.FIRST_COMPLETED)
            if waker.done() and not term.done():
                why = waker.exception() if not waker.cancelled() else None
                raise RuntimeError(f"the wake channel failed: {why!r}")
        if not stop.is_set():
            say("lost", token=lease.token)
    finally:
        on_term(None)
        sched.stop()
        await asyncio.to_thread(keeper.stop)
        say("stats", **sched.stats, **keeper.stats)
        for task in tasks:
            task.cancel()
        _, stuck = await asyncio.wait(tasks, timeout=max(lease.renew_every, 0.5))
        if stuck:
            log.warning("%d leader task(s) did not stop in time; left cancelled", len(stuck))
        if not waker_started:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(pubsub.aclose(), 1.0)  # type: ignore[no-untyped-call, unused-ignore]


async def candidate(
    redis: Redis,
    prefix: str,
    lease: Lease,
    source: GameSource,
    sink: DeadlineSink,
    stop: asyncio.Event,
    *,
    resync: float,
    policy: Policy = DEFAULT,
    on_state: Callable[[str], None] = lambda state: None,
    stall: float = STALL,
    on_term: Callable[[DeadlineScheduler | None], None] = lambda sched: None,
) -> None:
    """Stand by until the lease is free, lead, step down when it is lost, and
    again, until `stop`. Nothing but `stop` ends this loop: every error is logged
    and the candidate goes back to trying for the lease (a lapsed lease is taken
    up again by whichever candidate comes first, this one included, and the new
    term re-arms every game). `on_state` hears "standby" and "leader" (the serve
    process's status page and metrics)."""
    seat = Seat(redis, prefix, lease, source, sink, stop, resync, policy, stall, on_term)
    on_state("standby")
    answered = False  # "standby" is said once Redis has answered, not before
    backoff = Backoff(RETRY, RETRY_MAX)
    while not stop.is_set():
        try:
            # bounded: a Redis that never answers must not end the candidacy
            got = await asyncio.wait_for(lease.acquire(), lease.ttl_ms / 1000.0)
        except Exception as exc:
            wait = backoff.failed()
            log.warning(
                "taking the lease failed, Redis %s (%s); trying again in %.0f s",
                "does not answer" if backoff.failures == 1 else "still does not answer",
                f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__, wait,
            )  # fmt: skip
            await _sleep_or_stop(stop, wait)
            continue
        if backoff.failures:
            log.info("Redis answers again")
        backoff.reset()
        if not answered:
            answered = True
            say("standby", token=lease.token, pid=os.getpid())
        if not got:
            await _sleep_or_stop(stop, RETRY)
            continue
        on_state("leader")
        say("leader", token=lease.token, pid=os.getpid())
        try:
            await lead(seat)
        except Exception:
            # e.g. the store failed during the re-arm: step down, let anyone retry
            log.exception("leading failed; stepping down")
            with contextlib.suppress(Exception):
                await lease.release()
            await _sleep_or_stop(stop, RETRY)
        on_state("standby")
        if not stop.is_set():
            say("standby", token=lease.token, pid=os.getpid())
