"""The Redis store's forgetting of ended games' contacts (service/forget.py).

`finish` enters an ended game in the sorted set `forget` (score: the end, NX:
a repeated finish does not restart the count). `forget_contacts` takes the
games ended long enough ago, rewrites each one's snapshot, initial state and
log without its contacts and drops its channels' attributes and its outbox
(streams, keys and results: payloads name chat ids, keys players) in one
script on the game's slot (only if the version is still the one read: a game
is over, so it only guards against a stranger), then leaves the outbox hints
and the set. The game keeps its expiry; one that expired meanwhile just
leaves the set. The caller's `first` (the SMS numbers) runs before the
script, so a crash between the two repeats it, never skips it.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from adapters.store.redis_part import RedisPart
from service.forget import channel_ids, forget_texts
from service.outbox import check_channel

if TYPE_CHECKING:
    from service.ports import Forgetting

# KEYS: game hash, log, then the outbox keys to delete. ARGV: version,
# snapshot ('' keep), initial, n, n log entries, then the attribute fields to drop.
_FORGET = """
if redis.call('HGET', KEYS[1], 'version') ~= ARGV[1] then return 0 end
local n = tonumber(ARGV[4])
if ARGV[2] ~= '' then
  redis.call('HSET', KEYS[1], 'snapshot', ARGV[2], 'initial', ARGV[3])
  local ttl = redis.call('PTTL', KEYS[2])
  redis.call('DEL', KEYS[2])
  for i = 1, n do redis.call('RPUSH', KEYS[2], ARGV[4 + i]) end
  if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
end
for i = 5 + n, #ARGV do redis.call('HDEL', KEYS[1], ARGV[i]) end
for i = 3, #KEYS do redis.call('DEL', KEYS[i]) end
return 1
"""


class RedisForget(RedisPart):
    """The contact-forgetting methods of `RedisStore` (a mixin)."""

    if TYPE_CHECKING:
        _decoded: Any

        def _ready(self, channel: str) -> str: ...

    def _init_forget(self) -> None:
        self._forget = self.client.register_script(_FORGET)

    def _forget_set(self) -> str:
        return self.prefix + "forget"

    def queue_forget(self, pipe: Any, game_id: str) -> None:
        """Queue the ended game's entry (`finish`: its contacts count down from now)."""
        pipe.zadd(self._forget_set(), {game_id: time.time()}, nx=True)

    async def forget_contacts(
        self, ended_before: float, first: Forgetting | None = None
    ) -> list[str]:
        ids = await self.client.zrange(self._forget_set(), "-inf", ended_before, byscore=True)
        done = []
        for raw in ids:
            game_id = raw.decode() if isinstance(raw, bytes) else str(raw)
            if await self._forget_one(game_id, first):
                await self.client.zrem(self._forget_set(), game_id)
                done.append(game_id)
        return done

    async def _forget_one(self, game_id: str, first: Forgetting | None) -> bool:
        """False only when the game changed under us (try again next time)."""
        game, log = self._game(game_id), self._game(game_id) + ":log"
        version, snapshot, initial = await self.client.hmget(
            game, ["version", "snapshot", "initial"]
        )
        if version is None or snapshot is None or initial is None:
            return True  # expired meanwhile: nothing left to forget
        entries = [str(e) for e in await self.client.lrange(log, 0, -1)]
        if first is not None:
            await first(game_id, channel_ids(str(snapshot), str(initial), entries))
        texts = forget_texts(str(snapshot), str(initial), entries)
        attrs = [str(f) for f in await self.client.hkeys(game) if str(f).startswith("attr:")]
        channels = sorted(check_channel(str(c)) for c in await self.client.smembers(game + ":outs"))
        outbox = [game + ":outs"]
        for channel in channels:
            outbox += [f"{game}:out:{channel}", f"{game}:out:{channel}:keys"]
        args: list[Any] = [version]
        if texts is None:
            args += ["", "", 0]
        else:
            args += [texts[0], texts[1], len(texts[2]), *texts[2]]
        self._decoded.pop(game_id, None)
        if not await self._forget(keys=[game, log, *outbox], args=[*args, *attrs]):
            return False
        for channel in channels:  # the hints, on other slots: a stale one is harmless
            await self.client.zrem(self._ready(channel), game_id)
        return True
