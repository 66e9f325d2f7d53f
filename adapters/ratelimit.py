"""Send-rate buckets that every worker shares: when may the next message go to X?

Telegram's limits (about 30 messages a second per bot, one a second per private
chat, 20 a minute per group) and a Twilio long code's (about one text a second)
hold for all workers together: pacing in each worker's memory would let two
workers send twice as fast. So each limit is a bucket here, in memory for one
process or in Redis for several, and a sender reserves a slot before each send
(`Limiter` says how).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class Rate:
    """`count` sends per `per` seconds, evenly spaced, of which `burst` may go
    back to back (then the rest of the window is paced). `count <= 0`: no limit."""

    count: float
    per: float = 1.0
    burst: int = 1

    @property
    def interval(self) -> float:
        return self.per / self.count if self.count > 0 else 0.0

    @property
    def tolerance(self) -> float:
        return self.interval * max(0, self.burst - 1)


@dataclass(frozen=True, slots=True)
class Bucket:
    """One limit on one thing. Buckets reserved together must share `scope`
    (one bot, one SMS sender): in Redis it is the key's hash tag."""

    scope: str
    name: str
    rate: Rate


@dataclass(frozen=True, slots=True)
class Grant:
    ok: bool  # a slot is reserved: send after `wait` seconds
    wait: float  # seconds until the slot (ok), or until one may be free (not ok)
    blocker: int = -1  # index of the bucket that held back the most (-1: none)


class Limiter(Protocol):
    """Send slots on rate buckets, for one process or every worker.

    The algorithm is GCRA (the generic cell rate algorithm, as in `redis-cell` and
    `throttled`): a bucket is one number, its theoretical arrival time (TAT). A send
    conforms when `now >= TAT - tolerance`; it then moves the TAT to
    `max(TAT, now) + interval`. One number per bucket means one key per bucket, no
    background refill, and a reservation across several buckets (a bot and a chat)
    is all-or-nothing: either every bucket takes the send or none does.

    `reserve` never waits and holds nothing: it either reserves a slot (`Grant.ok`,
    send after `wait` seconds, at most `within`) or says how long until one may be
    free (`wait`) and which bucket holds back (`blocker`), so the caller can serve
    other chats meanwhile. Which message goes first (prompts before news) is the
    outbound queue's business, not the limiter's. A 429 from the platform is
    `hold(bucket, seconds)`: nobody sends to that bucket until then.

    Two implementations of one interface:

    - `MemoryLimiter`: one process (the embedded store), on an injectable clock;
    - `RedisLimiter`: one Lua script per reservation, on the Redis server's clock
      (`TIME`), so workers on several hosts agree without synchronised clocks.
      Keys live under the deployment's `MULDVARP_PREFIX` and carry a hash tag per
      scope (`{rl:tg:<bot id>}`, `{rl:sms:<sender>}`), so all the buckets of one
      reservation sit in one Redis Cluster slot. Every key expires once its bucket
      is back to idle: nothing to clean up."""

    async def reserve(self, buckets: Sequence[Bucket], *, within: float = 0.0) -> Grant:
        """Reserve one send on every bucket if it may go within `within` seconds."""
        ...

    async def hold(self, bucket: Bucket, seconds: float) -> None:
        """Nothing may be reserved on `bucket` for `seconds` (a 429's retry_after)."""
        ...

    async def close(self) -> None: ...


# -- Telegram's and Twilio's limits --------------------------------------------------


@dataclass(frozen=True, slots=True)
class TelegramRates:
    """Telegram's documented limits (core.telegram.org/bots/faq): about 30
    messages a second per bot, one a second per chat, 20 a minute per group.
    Telegram documents no burst, so the defaults allow none."""

    bot: Rate = Rate(30.0)
    private: Rate = Rate(1.0)
    group: Rate = Rate(20.0, 60.0)


def bot_scope(token_or_id: str | int) -> str:
    """A bot's scope: its numeric id, the part of the token before `:` (never
    the secret part, which must not end up in a key name)."""
    return f"tg:{str(token_or_id).split(':', 1)[0]}"


def telegram_buckets(
    scope: str, rates: TelegramRates, chat_id: int, *, paced: bool = True
) -> list[Bucket]:
    """The buckets one Bot API call counts against: always the bot's; the chat's
    unless unpaced (an edit answering a tap)."""
    buckets = [Bucket(scope, "bot", rates.bot)]
    if paced:
        rate = rates.group if chat_id < 0 else rates.private
        buckets.append(Bucket(scope, f"chat:{chat_id}", rate))
    return [b for b in buckets if b.rate.count > 0]


def sms_bucket(sender: str, rate: float) -> Bucket:
    """One SMS sender's bucket: a phone number or a Messaging Service SID
    (`SMS_RATE` texts a second: 1 for a long code, more for a service)."""
    return Bucket(f"sms:{sender}", "sender", Rate(rate))


# -- in memory -------------------------------------------------------------------------


class MemoryLimiter:
    """The buckets of one process. `clock` is injectable (tests run it on a
    virtual clock); reservations never suspend, so they need no lock."""

    PRUNE_AT = 10_000  # buckets kept before the idle ones are forgotten

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._tat: dict[tuple[str, str], float] = {}

    async def reserve(self, buckets: Sequence[Bucket], *, within: float = 0.0) -> Grant:
        now = self.clock()
        at, blocker = now, -1
        tats = []
        for i, b in enumerate(buckets):
            tat = max(self._tat.get((b.scope, b.name), now), now)
            tats.append(tat)
            if tat - b.rate.tolerance > at:
                at, blocker = tat - b.rate.tolerance, i
        if at - now > within:
            return Grant(False, at - now, blocker)
        if len(self._tat) > self.PRUNE_AT:
            self._tat = {k: t for k, t in self._tat.items() if t > now}
        for b, tat in zip(buckets, tats, strict=True):
            self._tat[(b.scope, b.name)] = max(tat, at) + b.rate.interval
        return Grant(True, at - now, blocker)

    async def hold(self, bucket: Bucket, seconds: float) -> None:
        key = (bucket.scope, bucket.name)
        until = self.clock() + seconds + bucket.rate.tolerance
        self._tat[key] = max(self._tat.get(key, 0.0), until)

    async def close(self) -> None:
        return None


# -- in Redis --------------------------------------------------------------------------

# KEYS: the buckets (one slot). ARGV: within (ms), then per bucket its interval
# and tolerance (ms). Times are the server's, in ms, stored as text with three
# decimals (Lua's tostring keeps only 14 digits). Returns {ok, wait ms, blocker}.
_RESERVE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local within = tonumber(ARGV[1])
local at, blocker = now, 0
local tats = {}
for i, key in ipairs(KEYS) do
  local tat = tonumber(redis.call('GET', key) or '0') or 0
  if tat < now then tat = now end
  tats[i] = tat
  local allowed = tat - tonumber(ARGV[2 * i + 1])
  if allowed > at then at, blocker = allowed, i end
end
if at - now > within then
  return {0, string.format('%.3f', at - now), blocker}
end
for i, key in ipairs(KEYS) do
  local tat = math.max(tats[i], at) + tonumber(ARGV[2 * i])
  redis.call('SET', key, string.format('%.3f', tat), 'PX', math.ceil(tat - now) + 1000)
end
return {1, string.format('%.3f', at - now), blocker}
"""

# KEYS: one bucket. ARGV: hold (ms), tolerance (ms).
_HOLD = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local until_ = now + tonumber(ARGV[1]) + tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
if until_ > tat then
  redis.call('SET', KEYS[1], string.format('%.3f', until_), 'PX', math.ceil(until_ - now) + 1000)
end
return 1
"""

_UNSAFE = re.compile(r"[{}\s]")


class RedisLimiter:
    """The buckets of every worker, in one Redis (or Cluster): each reservation
    is one script call, atomic over its buckets (one hash slot per scope)."""

    def __init__(self, client: Any, *, prefix: str = "") -> None:
        self.client = client
        self.prefix = prefix
        self._reserve = client.register_script(_RESERVE)
        self._hold = client.register_script(_HOLD)

    @classmethod
    def from_url(cls, url: str, *, prefix: str = "") -> RedisLimiter:
        """A limiter with its own small connection pool (a reservation must not
        queue behind the store's commits). A Cluster URL is not special: one
        script touches one slot, which redis-py's cluster client routes
        (redis+cluster://: adapters/redis_url.py)."""
        import redis.asyncio as aioredis

        from adapters.redis_url import cluster_client, is_cluster

        if is_cluster(url):
            return cls(cluster_client(url), prefix=prefix)
        pool = aioredis.BlockingConnectionPool.from_url(url, max_connections=16, timeout=10)
        return cls(aioredis.Redis.from_pool(pool), prefix=prefix)

    def key(self, bucket: Bucket) -> str:
        scope = _UNSAFE.sub("_", bucket.scope)
        return f"{self.prefix}{{rl:{scope}}}:{bucket.name}"

    async def reserve(self, buckets: Sequence[Bucket], *, within: float = 0.0) -> Grant:
        if not buckets:
            return Grant(True, 0.0)
        if len({b.scope for b in buckets}) != 1:
            raise ValueError("buckets reserved together must share one scope (one slot)")
        args: list[float] = [within * 1000.0]
        for b in buckets:
            args += [b.rate.interval * 1000.0, b.rate.tolerance * 1000.0]
        ok, wait, blocker = await self._reserve(keys=[self.key(b) for b in buckets], args=args)
        return Grant(bool(int(ok)), max(0.0, float(wait) / 1000.0), int(blocker) - 1)

    async def hold(self, bucket: Bucket, seconds: float) -> None:
        args = [seconds * 1000.0, bucket.rate.tolerance * 1000.0]
        await self._hold(keys=[self.key(bucket)], args=args)

    async def close(self) -> None:
        await self.client.aclose()
