"""The Redis store's deadline index (issue #31): what falls due, without
loading a game.

Keys, under the store's prefix, all with the hash tag `{due}` (one slot, so
the scripts below work on a Cluster):
  {due}      sorted set: game id -> its next instant (a deadline or a reminder)
  {due}:v    hash: game id -> the version whose commit wrote that instant
  {due}:p    hash: game id -> the server time (us) a Cluster commit began
  {due}:filled   set once the games from before the index were entered
and in the game's own hash the field `due` (the instant, or '' for none;
written by every create and commit).

On one Redis the commit's script writes all of it with the snapshot (a
script may name keys of any slot there): the index and the game can never
disagree, whatever dies when. On a Cluster a script names one slot, so the
commit's script writes the game's `due` field and the index is written by
two small scripts around it, the way the outbox's ready hints are:

- right before (`_BEFORE`): the entry only moves earlier (ZADD LT) and the
  game is marked "a commit is on its way" in `{due}:p`;
- right after (`_AFTER`): the entry and version as the commit wrote them
  (only if that version is newer than the index's), and the mark dropped
  if it is still this commit's.

A worker killed between the two leaves an entry no later than the truth,
marked: `due` reports a marked game with version None (the scheduler loads
it: early, never late), and once the mark is older than `MARK_GRACE` it
repairs the entry from the game's hash (`_REPAIR`, compare-and-set on the
mark) so the game stops costing a load.
"""

from __future__ import annotations

from typing import Any

from adapters.store.redis_part import RedisPart
from service.ports import Due

MARK_GRACE = 10.0  # s: a commit's script lands well within this of its mark

# The commit script's part (a function: on one Redis). `ix`: KEYS index of the
# sorted set (its version hash follows); `at`: the instant or ''; `id`, `v`.
LUA = """
local function index_due(ix, at, id, v)
  redis.call('HSET', KEYS[1], 'due', at)
  if ix == 0 then return end
  if at == '' then
    redis.call('ZREM', KEYS[ix], id)
    redis.call('HDEL', KEYS[ix + 1], id)
  else
    redis.call('ZADD', KEYS[ix], at, id)
    redis.call('HSET', KEYS[ix + 1], id, v)
  end
end
"""

# KEYS: index, versions, marks. ARGV: game id, instant or ''. Returns the mark.
_BEFORE = """
if ARGV[2] ~= '' then redis.call('ZADD', KEYS[1], 'LT', ARGV[2], ARGV[1]) end
local t = redis.call('TIME')
local mark = t[1] .. string.format('%06d', tonumber(t[2]))
redis.call('HSET', KEYS[3], ARGV[1], mark)
return mark
"""

# KEYS: index, versions, marks. ARGV: game id, instant or '', version,
# landed ('1'/'0'), mark. Also the repair (`_REPAIR`: landed, the game's
# version and instant as its hash holds them).
_AFTER = """
if ARGV[4] == '1' then
  local held = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '-1')
  if tonumber(ARGV[3]) > held then
    if ARGV[2] == '' then
      redis.call('ZREM', KEYS[1], ARGV[1])
      redis.call('HDEL', KEYS[2], ARGV[1])
    else
      redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
      redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
    end
  end
end
if ARGV[5] ~= '' and redis.call('HGET', KEYS[3], ARGV[1]) == ARGV[5] then
  redis.call('HDEL', KEYS[3], ARGV[1])
end
return 1
"""

# KEYS: index, versions, marks. ARGV: until. Returns flat: id, score, version
# ('' unknown), age of its mark in us ('' none).
_READ = """
local got = redis.call('ZRANGE', KEYS[1], '-inf', ARGV[1], 'BYSCORE', 'WITHSCORES')
local out = {}
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
for i = 1, #got, 2 do
  local id = got[i]
  local v = redis.call('HGET', KEYS[2], id) or ''
  local mark = redis.call('HGET', KEYS[3], id)
  local age = ''
  if mark then age = tostring(now - tonumber(mark)) .. '|' .. mark end
  out[#out + 1] = id
  out[#out + 1] = got[i + 1]
  out[#out + 1] = v
  out[#out + 1] = age
end
return out
"""


def instant(at: float | None) -> str:
    """An instant as the scripts take it ('' for none); repr keeps it exact."""
    return "" if at is None else repr(float(at))


class RedisDue(RedisPart):
    """The deadline index methods of `RedisStore` (a mixin)."""

    def _init_due(self) -> None:
        self._due_before = self.client.register_script(_BEFORE)
        self._due_after = self.client.register_script(_AFTER)
        self._due_read = self.client.register_script(_READ)
        self.mark_grace = MARK_GRACE
        self._filled = False  # the games from before the index: see `_backfill`

    def due_keys(self) -> list[str]:
        """The index, its versions and its marks (one slot: `{due}`)."""
        base = self.prefix + "{due}"
        return [base, base + ":v", base + ":p"]

    async def mark_due(self, game_id: str, at: float | None) -> str:
        """A Cluster, right before a commit's script: the entry no later than
        `at`, and the game marked. Returns the mark for `settle_due`."""
        return str(await self._due_before(keys=self.due_keys(), args=[game_id, instant(at)]))

    async def settle_due(
        self, game_id: str, at: float | None, version: int, landed: bool, mark: str
    ) -> None:
        """A Cluster, right after a commit's script: the entry as it wrote it
        (if it `landed` and is newer than the index's), the mark dropped."""
        args: list[str | int] = [game_id, instant(at), version, "1" if landed else "0", mark]
        await self._due_after(keys=self.due_keys(), args=args)

    async def _backfill(self) -> None:
        """Once per Redis: the active games from before the index (their hash
        has no field `due`, which every create and commit since writes) get
        an entry due at once (0, version 0: each is loaded once, and its next
        commit writes its real instant). NX: never over a commit's entry."""
        index, versions, _ = self.due_keys()
        done = index + ":filled"
        if await self.client.exists(done):
            self._filled = True
            return
        ids = [str(i) for i in await self.client.smembers(self.prefix + "active")]
        async with self.client.pipeline(transaction=False) as pipe:
            for game_id in ids:
                pipe.hexists(self._game(game_id), "due")
            has = await pipe.execute() if ids else []
        old = [game_id for game_id, known in zip(ids, has, strict=True) if not known]
        async with self.client.pipeline(transaction=False) as pipe:  # {due}: one slot
            for start in range(0, len(old), 500):
                chunk = old[start : start + 500]
                pipe.zadd(index, dict.fromkeys(chunk, 0), nx=True)
                for game_id in chunk:
                    pipe.hsetnx(versions, game_id, 0)
            pipe.set(done, "1")
            await pipe.execute()
        self._filled = True

    async def due(self, until: float) -> list[Due]:
        if not self._filled:
            await self._backfill()
        flat = await self._due_read(keys=self.due_keys(), args=[repr(float(until))])
        out: list[Due] = []
        stale: list[tuple[str, str]] = []
        for i in range(0, len(flat), 4):
            game_id, score, version, age = (str(x) for x in flat[i : i + 4])
            known = int(version) if version and not age else None
            out.append(Due(game_id, float(score), known))
            if age:
                us, _, mark = age.partition("|")
                if int(us) > self.mark_grace * 1e6:
                    stale.append((game_id, mark))
        for game_id, mark in stale:
            await self._repair(game_id, mark)
        return out

    async def _repair(self, game_id: str, mark: str) -> None:
        """A mark older than the grace: its commit landed long ago or never
        will. The entry from the game's hash (what the last commit wrote),
        and the mark dropped unless a newer commit marked the game since."""
        version, at = await self.client.hmget(self._game(game_id), ["version", "due"])
        if version is None:  # the game is gone: drop its entry
            args: list[Any] = [game_id, "", 1 << 62, "1", mark]
        else:
            args = [game_id, "" if at is None else str(at), int(version), "1", mark]
        await self._due_after(keys=self.due_keys(), args=args)
