"""`REDIS_URL` to a client: one Redis, or a Redis Cluster.

One setting names the store in every process (the workers, `python -m
bots.scheduler --redis`, `muldvarp export`, the tests' child processes), so
the Cluster is a URL scheme, not a second setting that could disagree with it:

  redis://host:port/0, rediss://..., unix://...   one Redis (or a primary
                                                   behind a failover proxy)
  redis+cluster://host:port, rediss+cluster://... a Redis Cluster: any one
                                                   node (or a managed service's
                                                   configuration endpoint);
                                                   the client finds the rest

On a Cluster the clients are redis-py's `RedisCluster`: it reads the slot map,
sends each command to its slot's master, follows MOVED/ASK, and on a
connection error re-reads the map (how it finds a promoted replica). The keys
are laid out for it: a game's keys share the hash tag `{g:ID}` (one slot, so
one script), and no script or transaction names keys of two slots.

A Cluster client keeps a pool per node that does not wait when full (it
raises): `max_connections` (the URL's, or the default below) is per node.
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import redis
import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

SCHEMES = ("redis", "rediss", "unix", "redis+cluster", "rediss+cluster")
CLUSTER_MAX_CONNECTIONS = 1000  # per node: a burst of webhooks must not hit it


def is_cluster(url: str) -> bool:
    return urlsplit(url).scheme.endswith("+cluster")


def plain(url: str) -> str:
    """`url` with redis:// or rediss:// in place of the cluster scheme."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(scheme=parts.scheme.removesuffix("+cluster")))


def check(url: str) -> str:
    """The settings' check: a scheme above, a port and a database that are
    numbers, options redis-py can read, and a host for a Cluster. The messages
    never repeat the URL (it may hold a password)."""
    parts = urlsplit(url)
    if parts.scheme not in SCHEMES:
        raise ValueError(
            "must start with redis://, rediss://, unix://, redis+cluster:// or rediss+cluster://"
        )
    try:
        port = parts.port
    except ValueError:
        port = 0
    if port == 0:
        raise ValueError("the port must be a number from 1 to 65535 (redis://host:6379/0)")
    db = parts.path.strip("/")
    if parts.scheme != "unix" and db and not db.isdigit():
        raise ValueError("the database after the port must be a number (redis://host:6379/0)")
    if is_cluster(url):
        if not parts.hostname:
            raise ValueError("a cluster URL names one node: redis+cluster://host:port")
        if parts.path.strip("/") not in ("", "0"):
            raise ValueError("a Redis Cluster has only database 0")
    try:
        redis.connection.parse_url(plain(url) if is_cluster(url) else url)  # type: ignore[no-untyped-call, unused-ignore]
    except ValueError as exc:  # an option's value, say ?socket_timeout=x
        raise ValueError(str(exc)) from None
    return url


if "_initialize" not in RedisCluster.__slots__:  # pragma: no cover - a redis-py outside the pin
    raise ImportError(
        f"redis-py {redis.__version__}: RedisCluster has no _initialize flag, which "
        "adapters/redis_url.py's Cluster reads; install the redis version pyproject.toml pins"
    )


def cluster_client(url: str, *, decode_responses: bool = False, **kwargs: Any) -> RedisCluster:
    """An asyncio `RedisCluster` for a redis+cluster:// URL (a `max_connections`
    in the URL wins over the default)."""
    kwargs.setdefault("max_connections", CLUSTER_MAX_CONNECTIONS)
    return Cluster.from_url(plain(url), decode_responses=decode_responses, **kwargs)


def async_client(url: str, *, decode_responses: bool = False) -> aioredis.Redis | RedisCluster:
    """A plain asyncio client for `url` (what `Redis.from_url` gave before)."""
    if is_cluster(url):
        return cluster_client(url, decode_responses=decode_responses)
    return aioredis.Redis.from_url(url, decode_responses=decode_responses)


class Cluster(RedisCluster):
    """`RedisCluster` that (re-)reads the slot map alone, before any command
    goes out. redis-py 8.1 lets a burst of commands race its initialization
    (the first one, and the one after a connection error): some go to the wrong
    node (MOVED) or lose their connection after being sent and are sent again,
    so a `SET NX` could run twice and be refused to both of its callers
    (tests/test_sms_directory.py caught it: a MessageSid new to neither
    worker). Pipelines and scripts go through `execute_command` too.

    It reads redis-py's private `_initialize` flag, so pyproject.toml pins
    redis to the minor version it was tested with, and importing this module
    fails at once on a redis-py without the flag."""

    _first: asyncio.Lock | None = None

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        if self._initialize:
            if self._first is None:
                self._first = asyncio.Lock()
            async with self._first:
                if self._initialize:
                    await self.initialize()
        return await super().execute_command(*args, **kwargs)
