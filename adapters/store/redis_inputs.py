"""The Redis store's bookkeeping of a game's inputs: its idempotency keys and
the identities bound to it, in one small hash per game, `{g:ID}:in`.

Why one hash (issue #31, "under 8 KiB of store per game"): each key of
its own cost Redis about 150 bytes beyond its content (the key's name and
object, its entry in the keyspace and, with a TTL, in the expiry table),
and a started seven-player game held sixteen of them (eight idempotency
keys, each with its TTL, and a set of eight identities, a hash table on
Redis 7.0). Small fields of one hash are one listpack (Redis's compact
encoding, with its default thresholds: up to 512 fields of up to 64 bytes).

Fields:
  k:KEY       "VERSION EXPIRY_MS": the version the input produced, and when
              the key stops counting (the Redis server's clock: `TIME`, so
              every worker judges a key alike). A field has no TTL of its
              own on Redis 7.0 (no HEXPIRE), so a read checks the expiry, and a
              commit that writes a key drops the expired ones once `@` is past;
  @           the instant (ms) of the next drop: at most every half `dedupe_ttl`;
  w:IDENTITY  '': the identity is bound to the game (unbound when it ends).

Before this layout a key was `{g:ID}:k:KEY` (a string with a TTL) and the
identities the set `{g:ID}:who`. Both are still read: a key from before still
refuses its duplicate until its TTL ends (never written again), and the
first commit after the upgrade moves the set into the hash (`migrate`);
`finish` unbinds the identities of both.
"""

from __future__ import annotations

from adapters.store.redis_part import RedisPart

# Lua functions for the commit's script. `i`: KEYS index of the game's
# `{g:ID}:in`; `o`: of the key from before (`{g:ID}:k:KEY`); `w`: of the set
# from before (`{g:ID}:who`); `now`: the server's time in ms (`input_now`).
LUA = """
local function input_now()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function input_seen(i, o, key, now)
  local s = redis.call('HGET', KEYS[i], 'k:' .. key)
  if s then
    local v, exp = string.match(s, '^(%d+) (%d+)$')
    if v and tonumber(exp) > now then return tonumber(v) end
  end
  local old = redis.call('GET', KEYS[o])
  if old then return tonumber(old) end
  return nil
end
local function input_keep(i, key, version, ttl, now)
  if now >= tonumber(redis.call('HGET', KEYS[i], '@') or '0') then
    local all = redis.call('HGETALL', KEYS[i])
    for j = 1, #all, 2 do
      if string.sub(all[j], 1, 2) == 'k:' then
        local exp = tonumber(string.match(all[j + 1], ' (%d+)$') or '0')
        if exp <= now then redis.call('HDEL', KEYS[i], all[j]) end
      end
    end
    redis.call('HSET', KEYS[i], '@', string.format('%.0f', now + math.max(1, ttl / 2)))
  end
  redis.call('HSET', KEYS[i], 'k:' .. key, version .. ' ' .. string.format('%.0f', now + ttl))
end
local function input_migrate(i, w)
  if redis.call('EXISTS', KEYS[w]) == 1 then
    for _, identity in ipairs(redis.call('SMEMBERS', KEYS[w])) do
      redis.call('HSET', KEYS[i], 'w:' .. identity, '')
    end
    redis.call('DEL', KEYS[w])
  end
end
"""

# KEYS: the game's `{g:ID}:in`, the key from before. ARGV: the key.
_APPLIED = (
    LUA
    + """
return input_seen(1, 2, ARGV[1], input_now())
"""
)


class RedisInputs(RedisPart):
    """The input keys and bound identities of `RedisStore` (a mixin)."""

    def _init_inputs(self) -> None:
        self._applied = self.client.register_script(_APPLIED)

    def _inputs(self, game_id: str) -> str:
        return self._game(game_id) + ":in"

    def _old_key(self, game_id: str, key: str) -> str:
        """An idempotency key as it was kept before `{g:ID}:in`."""
        return f"{self._game(game_id)}:k:{key}"

    def _old_bound_set(self, game_id: str) -> str:
        """A game's identities as they were kept before `{g:ID}:in`."""
        return self._game(game_id) + ":who"

    async def applied(self, game_id: str, key: str) -> int | None:
        keys = [self._inputs(game_id), self._old_key(game_id, key)]
        value = await self._applied(keys=keys, args=[key])
        return None if value is None else int(value)

    def queue_bound(self, pipe: object, game_id: str, identity: str) -> None:
        """Queue the game's note that `identity` is bound to it (`bind`)."""
        pipe.hset(self._inputs(game_id), "w:" + identity, "")  # type: ignore[attr-defined]

    async def bound(self, game_id: str) -> list[str]:
        """The identities bound to the game, in either layout."""
        fields = await self.client.hkeys(self._inputs(game_id))
        now = {str(f)[2:] for f in fields if str(f).startswith("w:")}
        before = {str(i) for i in await self.client.smembers(self._old_bound_set(game_id))}
        return sorted(now | before)

    async def drop_bound(self, game_id: str, identities: list[str]) -> None:
        """Forget the game's identities (it ended; each was unbound first)."""
        async with self.client.pipeline(transaction=False) as pipe:
            if identities:
                pipe.hdel(self._inputs(game_id), *("w:" + i for i in identities))
            pipe.delete(self._old_bound_set(game_id))
            await pipe.execute()
