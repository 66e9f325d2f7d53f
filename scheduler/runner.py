"""The scheduler process: wait for the leader lease, then arm and fire deadlines.

    python -m scheduler.runner [--redis URL] [--prefix P] [--ports MODULE:FACTORY]
                               [--ttl-ms 5000] [--resync 5]

Every process runs the same loop. A standby tries to take the lease every second;
the leader re-arms every active game from the store (nothing survives in a job
store), then renews the lease every TTL/3, re-syncs all games every `--resync`
seconds (catching any change it was not woken for) and re-arms single games when
the service publishes their id on the wake channel. Losing the lease stops the
timing engine at once; SIGTERM releases the lease so a standby takes over without
waiting for the TTL. Progress lines go to stdout (`leader`, `standby`, ...) for
operators and tests.

`--ports` names a factory `f(redis, prefix) -> (GameSource, DeadlineSink)`; the
default is the project's Redis store and game service
(`scheduler.service_ports:redis_service`); the tests use the stand-in
`scheduler.redis_ports:from_env`. Web workers tell the leader about changes by
adding `scheduler.service_ports.WakeNotifier` to the service's notifiers.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import logging
import os
import signal
import sys
import time
from collections.abc import Callable
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import RedisError

from scheduler.deadlines import DeadlineScheduler
from scheduler.lease import DEFAULT_TTL_MS, Lease
from scheduler.plan import DEFAULT, Policy
from scheduler.ports import DeadlineSink, GameSource
from scheduler.redis_ports import wake_channel

log = logging.getLogger("scheduler.runner")
RETRY = 1.0  # seconds between a standby's attempts to take the lease

Factory = Callable[[Any, str], tuple[GameSource, DeadlineSink]]


def say(what: str, **fields: object) -> None:
    """One progress line on stdout: `what key=value ...` (flushed: tests read it)."""
    tail = " ".join(f"{k}={v}" for k, v in fields.items())
    print(f"{what} {tail}".rstrip(), flush=True)


def load_factory(spec: str) -> Factory:
    module, _, name = spec.partition(":")
    factory: Factory = getattr(importlib.import_module(module), name or "from_env")
    return factory


async def _sleep_or_stop(stop: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), seconds)


async def _wake_loop(pubsub: Any, sched: DeadlineScheduler) -> None:
    """Re-arm single games as the service announces their changes."""
    try:
        async for message in pubsub.listen():
            if message.get("type") != "message":
                continue
            data = message["data"]
            game_id = data.decode() if isinstance(data, bytes) else str(data)
            try:
                await sched.refresh(game_id)
            except Exception:
                log.exception("re-arming %s failed (the next resync will retry)", game_id)
    finally:
        with contextlib.suppress(Exception):
            await pubsub.aclose()


async def lead(
    redis: Redis,
    prefix: str,
    lease: Lease,
    source: GameSource,
    sink: DeadlineSink,
    stop: asyncio.Event,
    *,
    resync: float,
    policy: Policy = DEFAULT,
) -> None:
    """Act as leader until the lease is lost or `stop` is set."""
    started = time.monotonic()
    sched = DeadlineScheduler(source, sink, policy=policy, may_fire=lease.valid)
    pubsub = redis.pubsub()
    waker: asyncio.Task[None] | None = None
    try:
        # Subscribe before re-arming: a change made meanwhile waits in the subscription.
        await pubsub.subscribe(wake_channel(prefix))
        armed = await sched.start()
        ms = round((time.monotonic() - started) * 1000)
        say("armed", games=armed, jobs=sched.job_count(), ms=ms)
        waker = asyncio.create_task(_wake_loop(pubsub, sched))
        next_resync = time.monotonic() + resync
        while not stop.is_set():
            await _sleep_or_stop(stop, lease.renew_every)
            if stop.is_set():
                break
            try:
                held = await lease.renew()
            except RedisError as exc:
                log.warning("renewing the lease failed: %s", exc)
                held = lease.valid()  # keep going only while it surely holds
            if not held:
                say("lost", token=lease.token)
                return
            if time.monotonic() >= next_resync:
                next_resync = time.monotonic() + resync
                try:
                    await sched.rearm_all()
                except Exception:
                    log.exception("resync failed")
    finally:
        if waker is not None:
            waker.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await waker
        else:
            with contextlib.suppress(Exception):
                await pubsub.aclose()  # type: ignore[no-untyped-call]
        sched.stop()
        say("stats", **sched.stats)


async def serve(
    url: str,
    prefix: str,
    factory: Factory,
    *,
    ttl_ms: int = DEFAULT_TTL_MS,
    resync: float = 5.0,
    stop: asyncio.Event | None = None,
    lease_key: str | None = None,
) -> None:
    """The whole process: standby until leader, lead, and again, until `stop`."""
    stop = stop or asyncio.Event()
    redis = Redis.from_url(url)
    source, sink = factory(redis, prefix)
    lease = Lease(redis, lease_key or f"{prefix}scheduler:leader", ttl_ms=ttl_ms)
    say("standby", token=lease.token, pid=os.getpid())
    try:
        while not stop.is_set():
            try:
                got = await lease.acquire()
            except RedisError as exc:
                log.warning("Redis unavailable: %s", exc)
                got = False
            if not got:
                await _sleep_or_stop(stop, RETRY)
                continue
            say("leader", token=lease.token, pid=os.getpid())
            try:
                await lead(redis, prefix, lease, source, sink, stop, resync=resync)
            except Exception:
                # e.g. the store failed during the re-arm: step down, let anyone retry
                log.exception("leading failed; stepping down")
                with contextlib.suppress(RedisError):
                    await lease.release()
                await _sleep_or_stop(stop, RETRY)
            if not stop.is_set():
                say("standby", token=lease.token, pid=os.getpid())
    finally:
        with contextlib.suppress(RedisError):
            await lease.release()
        await redis.aclose()
        say("stopped", pid=os.getpid())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m scheduler.runner",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--redis", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    parser.add_argument("--prefix", default=os.environ.get("MULDVARP_PREFIX", "muldvarp:"))
    parser.add_argument("--ports", default="scheduler.service_ports:redis_service")
    parser.add_argument("--ttl-ms", type=int, default=DEFAULT_TTL_MS)
    parser.add_argument("--resync", type=float, default=5.0)
    parser.add_argument("--lease-key", default=None, help="default: PREFIX + scheduler:leader")
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO,
        stream=sys.stderr,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
    )
    # APScheduler logs every job added and run at INFO: 10,000s of lines per re-arm.
    logging.getLogger("apscheduler").setLevel(logging.WARNING)

    async def run() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await serve(
            args.redis,
            args.prefix,
            load_factory(args.ports),
            ttl_ms=args.ttl_ms,
            resync=args.resync,
            stop=stop,
            lease_key=args.lease_key,
        )

    asyncio.run(run())
    return 0


if __name__ == "__main__":
    sys.exit(main())
