"""The leader lease: one scheduler at a time, a standby takes over quickly.

`SET key token NX PX ttl` takes the lease; the holder extends it with a Lua
compare-and-extend (only while the key still holds *its* token) and releases it
with a compare-and-delete, so a process that stalled past its TTL can never
extend or delete the lease a successor now holds. With the defaults (TTL 5 s,
renewal every ~1.7 s, standbys retrying every second) a standby takes over at
most TTL + retry = 6 s after the leader dies, inside the 10 s budget. The
leader renews from a thread (`scheduler.keeper`), so a busy event loop can't
make it late.

The holder also keeps a local *validity* deadline: the moment its last successful
renewal started plus the TTL, minus a safety margin for clock drift. The
scheduler asks `valid()` before every firing, so a leader cut off from Redis goes
quiet before the key can expire and a successor can start. (Firing twice would be
harmless anyway: the service dedupes on the deadline's key.)
"""

from __future__ import annotations

import os
import socket
import time
import uuid
from typing import Any

RENEW_SCRIPT = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
"""

RELEASE_SCRIPT = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0
"""

DEFAULT_TTL_MS = 5000
DRIFT = 0.8  # trust at most this share of the TTL locally


def new_token() -> str:
    """A token that names the holder in logs and can't collide: host, pid, random."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:12]}"


class Lease:
    """A Redis lease on `key` for the holder `token` (redis.asyncio client)."""

    def __init__(
        self, redis: Any, key: str, *, ttl_ms: int = DEFAULT_TTL_MS, token: str | None = None
    ) -> None:
        if ttl_ms < 100:
            raise ValueError("a lease shorter than 100 ms can't be renewed reliably")
        self.redis = redis
        self.key = key
        self.ttl_ms = ttl_ms
        self.token = token or new_token()
        self._valid_until = 0.0  # time.monotonic()
        self._renew = redis.register_script(RENEW_SCRIPT)
        self._release = redis.register_script(RELEASE_SCRIPT)

    @property
    def renew_every(self) -> float:
        """Seconds between renewals: three tries before the lease could lapse."""
        return self.ttl_ms / 3000.0

    def valid(self) -> bool:
        """Whether this process may still act as leader (by its own clock)."""
        return time.monotonic() < self._valid_until

    def trust(self, started: float) -> None:
        """Held as of a take or renewal that started at `started` (monotonic)."""
        self._valid_until = started + DRIFT * self.ttl_ms / 1000.0

    def invalidate(self) -> None:
        """Stop acting as leader at once (lost, given up, or in doubt)."""
        self._valid_until = 0.0

    async def acquire(self) -> bool:
        """Take the lease if nobody holds it; True if we hold it now."""
        started = time.monotonic()
        ok = await self.redis.set(self.key, self.token, nx=True, px=self.ttl_ms)
        if ok:
            self.trust(started)
            return True
        return False

    async def renew(self) -> bool:
        """Extend the lease if we still hold it; False (and invalid) if we lost it."""
        started = time.monotonic()
        ok = await self._renew(keys=[self.key], args=[self.token, self.ttl_ms])
        if ok:
            self.trust(started)
            return True
        self.invalidate()
        return False

    async def release(self) -> bool:
        """Give the lease up if we still hold it (a standby takes over at once)."""
        self.invalidate()
        return bool(await self._release(keys=[self.key], args=[self.token]))

    async def holder(self) -> str | None:
        value = await self.redis.get(self.key)
        if value is None:
            return None
        return value.decode() if isinstance(value, bytes) else str(value)
