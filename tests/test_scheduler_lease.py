"""The leader lease on a real Redis (the tests' own; under CI a missing Redis fails).

Short TTLs keep these fast; every test uses a key prefix of its own and deletes it.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable

import pytest
import redis
from redis.asyncio import Redis

from scheduler.lease import Lease
from tests.store_helpers import redis_url_or_fail

pytestmark = pytest.mark.scheduler


def redis_or_fail() -> str:
    """The tests' own Redis (tests/redis_server.py); missing, it skips locally
    and FAILS when CI is set."""
    return redis_url_or_fail()


def unique_prefix() -> str:
    return f"mvtest:sched:{uuid.uuid4().hex[:12]}:"


def drop(prefix: str) -> None:
    client = redis.Redis.from_url(redis_or_fail())
    try:
        keys = list(client.scan_iter(match=prefix + "*", count=500))
        if keys:
            client.delete(*keys)
    finally:
        client.close()


def with_redis(body: Callable[[Redis, str], Awaitable[None]]) -> None:
    url = redis_or_fail()
    prefix = unique_prefix()

    async def main() -> None:
        client = Redis.from_url(url)
        try:
            await body(client, prefix)
        finally:
            await client.aclose()

    try:
        asyncio.run(main())
    finally:
        drop(prefix)


def rivals(r: Redis, prefix: str, ttl_ms: int) -> tuple[Lease, Lease]:
    """Two holders' leases on the one key `prefix + "lead"`."""
    return Lease(r, prefix + "lead", ttl_ms=ttl_ms), Lease(r, prefix + "lead", ttl_ms=ttl_ms)


def test_only_one_holder_at_a_time() -> None:
    async def body(r: Redis, prefix: str) -> None:
        a, b = rivals(r, prefix, 2000)
        assert await a.acquire()
        assert not await b.acquire()
        assert await a.holder() == a.token
        assert a.valid() and not b.valid()
        assert 0 < await r.pttl(prefix + "lead") <= 2000

    with_redis(body)


def test_renewal_keeps_the_lease_past_its_ttl() -> None:
    async def body(r: Redis, prefix: str) -> None:
        a, b = rivals(r, prefix, 300)
        assert await a.acquire()
        for _ in range(4):  # 0.6 s in all, twice the TTL
            await asyncio.sleep(0.15)
            assert await a.renew()
            assert not await b.acquire()
        assert await a.holder() == a.token

    with_redis(body)


def test_others_can_neither_renew_nor_release_a_lease_they_do_not_hold() -> None:
    async def body(r: Redis, prefix: str) -> None:
        a, b = rivals(r, prefix, 2000)
        assert await a.acquire()
        assert not await b.renew()
        assert not await b.release()
        assert await a.holder() == a.token
        assert await a.release()
        assert await a.holder() is None
        assert await b.acquire()  # at once after a release, no TTL wait

    with_redis(body)


def test_a_lapsed_lease_passes_on_and_the_old_holder_learns_it() -> None:
    async def body(r: Redis, prefix: str) -> None:
        a, b = rivals(r, prefix, 200)
        assert await a.acquire()
        await asyncio.sleep(0.17)
        assert not a.valid()  # its own clock stops trusting it before the key lapses
        await asyncio.sleep(0.08)
        assert await b.acquire()
        assert not await a.renew()
        assert not a.valid()
        assert not await a.release()  # and it cannot delete the new holder's key
        assert await b.holder() == b.token

    with_redis(body)


def test_a_lease_must_be_long_enough_to_renew() -> None:
    with pytest.raises(ValueError):
        Lease(object(), "k", ttl_ms=10)
