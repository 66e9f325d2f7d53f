"""Renewing the leader lease from a thread, so a busy event loop can't starve it.

The leader's event loop also serves the webhooks. Saturated (hundreds of
requests, each holding the loop for a few milliseconds between awaits), it runs
every task late, and a renewal task due every TTL/3 came after the TTL: the
lease lapsed, the leader held back its due deadlines (its lease was in doubt),
stepped down and re-armed everything when it took the lease again, and lapsed
again (tests/test_scheduler_busy.py reproduces it). A thread with a Redis
connection of its own renews on time whatever the loop does: the GIL is handed
over every few milliseconds, and the renewal is one round trip.

But a lease kept alive from a thread would outlive a loop that hangs for good
(a deadlock, a call that never returns), and no deadline would fire anywhere.
So the loop proves it is alive: `beat()` from a task of its own, every TTL/6.
When no beat has come for `stall` seconds (default 30 s: far past any load the
webhooks survive, their senders time out after 15 s) the keeper stops trusting
the lease, deletes it (a standby takes over at once) and reports it lost.

Also lost: a renewal that finds another holder or no key, or that fails (Redis
down or slow) once the local validity has run out. `on_lost` is called from the
keeper's thread, once; the runner hands the news to its loop.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import redis
import redis.connection

from scheduler.lease import RELEASE_SCRIPT, RENEW_SCRIPT, Lease

log = logging.getLogger("scheduler.keeper")

STALL = 30.0  # seconds without a beat from the loop before the lease is given up

# What a synchronous twin of an asyncio client's connections needs: where and
# who. The rest (retry objects, parser classes) are asyncio-only or ours to set.
_COPY = (
    "host",
    "port",
    "db",
    "path",
    "username",
    "password",
    "client_name",
    "credential_provider",
    "protocol",
    "socket_keepalive",
    "socket_keepalive_options",
)


def sync_twin(client: Any, timeout: float) -> redis.Redis:
    """A synchronous client to the same server, database and user as the
    asyncio `client`, with `timeout` on every socket operation (a renewal that
    hangs must not hold the thread past the lease)."""
    from redis.asyncio.cluster import RedisCluster

    if isinstance(client, RedisCluster):
        return _sync_cluster(client, timeout)  # type: ignore[return-value]
    pool = client.connection_pool
    kwargs = {k: v for k, v in pool.connection_kwargs.items() if k in _COPY or k.startswith("ssl_")}
    cls = getattr(redis.connection, pool.connection_class.__name__, redis.connection.Connection)
    kwargs.update(socket_timeout=timeout, socket_connect_timeout=timeout)
    return redis.Redis(connection_pool=redis.ConnectionPool(connection_class=cls, **kwargs))


def _sync_cluster(client: Any, timeout: float) -> redis.RedisCluster:
    """The same for an asyncio cluster client: same nodes, user and TLS."""
    node = next(iter(client.nodes_manager.startup_nodes.values()))
    kw = client.connection_kwargs
    kwargs = {k: v for k, v in kw.items() if k in ("username", "password") or k.startswith("ssl_")}
    ssl = "SSL" in getattr(kw.get("connection_class"), "__name__", "")
    if not ssl:
        kwargs = {k: v for k, v in kwargs.items() if not k.startswith("ssl_")}
    return redis.RedisCluster(
        host=node.host,
        port=int(node.port),
        ssl=ssl,
        socket_timeout=timeout,
        socket_connect_timeout=timeout,
        **kwargs,
    )


class Keeper:
    """Renews a held `lease` every `lease.renew_every` seconds from a thread
    until `stop()`, the lease is lost, or the loop stops beating for `stall` s."""

    def __init__(
        self,
        lease: Lease,
        on_lost: Callable[[str], None],
        *,
        stall: float = STALL,
        client: redis.Redis | None = None,
    ) -> None:
        self.lease = lease
        self.on_lost = on_lost
        self.stall = stall
        self.client = client or sync_twin(lease.redis, timeout=lease.renew_every)
        self._renew = self.client.register_script(RENEW_SCRIPT)
        self._release = self.client.register_script(RELEASE_SCRIPT)
        self._beat = time.monotonic()
        self._halt = threading.Event()
        self._thread = threading.Thread(target=self._run, name="lease-keeper", daemon=True)
        self.renewals = 0
        self.worst_gap = 0.0  # the longest time between two renewals' starts, in s
        # how much later than asked the loop's worst beat came, in s (the beats'
        # own spacing left out: the loop's lag, not the beat interval)
        self.worst_lag = 0.0

    def start(self) -> None:
        self._beat = time.monotonic()
        self._thread.start()

    def beat(self, every: float = 0.0) -> None:
        """The loop is alive (called from a task on the loop that sleeps
        `every` seconds between beats)."""
        now = time.monotonic()
        self.worst_lag = max(self.worst_lag, now - self._beat - every)
        self._beat = now

    def stop(self, timeout: float = 2.0) -> None:
        """End the thread (blocks at most `timeout`; a renewal in flight is bounded
        by the socket timeout). The lease itself is left as it is."""
        self._halt.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout)
        self.client.close()

    @property
    def stats(self) -> dict[str, int]:
        return {
            "renewals": self.renewals,
            "renew_gap_ms": round(self.worst_gap * 1000),
            "loop_lag_ms": round(self.worst_lag * 1000),
        }

    def _run(self) -> None:
        last = time.monotonic()
        why = ""
        wait = 0.0  # renew at once: the take may have come back late on a busy loop
        while not self._halt.wait(wait):
            wait = self.lease.renew_every
            started = time.monotonic()
            if started - self._beat > self.stall:
                why = f"the event loop stalled for {started - self._beat:.1f} s"
                self.lease.invalidate()
                try:
                    self._release(keys=[self.lease.key], args=[self.lease.token])
                except redis.RedisError as exc:
                    log.warning("releasing the lease failed: %r", exc)
                break
            self.worst_gap = max(self.worst_gap, started - last)
            last = started
            try:
                held = bool(
                    self._renew(keys=[self.lease.key], args=[self.lease.token, self.lease.ttl_ms])
                )
            except redis.RedisError as exc:
                log.warning("renewing the lease failed: %r", exc)
                if self.lease.valid():
                    continue  # surely still ours by the local clock: try again
                why = f"renewals failed until the lease ran out ({exc!r})"
                self.lease.invalidate()
                break
            if not held:
                why = "the key holds another token or none"
                self.lease.invalidate()
                break
            self.lease.trust(started)
            self.renewals += 1
        if why and not self._halt.is_set():
            log.warning("lost the scheduler lease: %s", why)
            self.on_lost(why)
