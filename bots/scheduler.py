"""The scheduler process, wired: wait for the leader lease, then arm and fire deadlines.

    python -m bots.scheduler [--redis URL] [--prefix P] [--ports MODULE:FACTORY]
                             [--ttl-ms 5000] [--resync 5] [--stall 30]

The scheduler (scheduler/, `scheduler.runner.candidate`) knows only its ports;
this is where they meet the project: a Redis client from `--redis`
(adapters/redis_url.py: one Redis or a Cluster) and `--ports`, a factory
`f(redis, prefix) -> (GameSource, DeadlineSink)`. The default, `redis_service`,
is the project's Redis store and game service; the tests use the stand-in
`scheduler.redis_ports:from_env`. Progress lines go to stdout (`leader`,
`standby`, `armed`, `lost`, `stats`, `stopped`) for operators and tests.
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
from collections.abc import Callable
from typing import Any

from redis.exceptions import RedisError

from adapters.redis_url import async_client
from adapters.store.redis_store import RedisStore
from scheduler.keeper import STALL
from scheduler.lease import DEFAULT_TTL_MS, Lease
from scheduler.plan import next_instant
from scheduler.ports import DeadlineSink, GameSource
from scheduler.runner import candidate, say
from scheduler.service_ports import ServiceSink, StoreSource
from service.games import GameService

Factory = Callable[[Any, str], tuple[GameSource, DeadlineSink]]


def redis_service(redis: Any, prefix: str) -> tuple[StoreSource, ServiceSink]:
    """The default `--ports bots.scheduler:redis_service` factory: the real
    Redis store and game service. Reminders need outbound notifiers, which the
    deployment wires in (none here: they are only logged as sent)."""
    from redis.asyncio import ConnectionPool, Redis

    # The store reads replies as text: give it a decoding client on the same server.
    if getattr(redis, "nodes_manager", None) is not None:  # a RedisCluster
        from redis.asyncio.cluster import RedisCluster

        node = next(iter(redis.nodes_manager.startup_nodes.values()))
        kw = {k: v for k, v in redis.connection_kwargs.items() if k in ("username", "password")}
        cluster = RedisCluster(host=node.host, port=node.port, decode_responses=True, **kw)
        store = RedisStore(cluster, prefix=prefix)
        return StoreSource(store), ServiceSink(GameService(store, next_instant=next_instant), store)
    pool = redis.connection_pool
    kwargs = {**pool.connection_kwargs, "decode_responses": True}
    text = Redis(connection_pool=ConnectionPool(connection_class=pool.connection_class, **kwargs))
    store = RedisStore(text, prefix=prefix)
    return StoreSource(store), ServiceSink(GameService(store, next_instant=next_instant), store)


def load_factory(spec: str) -> Factory:
    module, _, name = spec.partition(":")
    factory: Factory = getattr(importlib.import_module(module), name or "from_env")
    return factory


async def serve(
    url: str,
    prefix: str,
    factory: Factory,
    *,
    ttl_ms: int = DEFAULT_TTL_MS,
    resync: float = 5.0,
    stop: asyncio.Event | None = None,
    lease_key: str | None = None,
    stall: float = STALL,
) -> None:
    """The whole process: a candidate until `stop`, then release the lease."""
    stop = stop or asyncio.Event()
    redis: Any = async_client(url)  # one Redis, or a RedisCluster
    source, sink = factory(redis, prefix)
    lease = Lease(redis, lease_key or f"{prefix}scheduler:leader", ttl_ms=ttl_ms)
    try:
        await candidate(redis, prefix, lease, source, sink, stop, resync=resync, stall=stall)
    finally:
        with contextlib.suppress(RedisError):
            await lease.release()
        await redis.aclose()
        say("stopped", pid=os.getpid())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bots.scheduler",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--redis", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    parser.add_argument("--prefix", default=os.environ.get("MULDVARP_PREFIX", "muldvarp:"))
    parser.add_argument("--ports", default="bots.scheduler:redis_service")
    parser.add_argument("--ttl-ms", type=int, default=DEFAULT_TTL_MS)
    parser.add_argument("--resync", type=float, default=5.0)
    parser.add_argument("--lease-key", default=None, help="default: PREFIX + scheduler:leader")
    parser.add_argument(
        "--stall",
        type=float,
        default=STALL,
        help="seconds the event loop may stop before the leader gives the lease up",
    )
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
            stall=args.stall,
        )

    asyncio.run(run())
    return 0


if __name__ == "__main__":
    from gameflow.games import register_all

    register_all()  # the composition root: the games this process plays
    sys.exit(main())
