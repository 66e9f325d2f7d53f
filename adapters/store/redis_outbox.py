"""The Redis store's outbox (service/outbox.py): a stream per game and channel.

A commit's messages are written by the commit's own script, so they exist
exactly when the input does; the hard part is telling the workers which games
have messages without losing a hint on a Redis Cluster, where the script may
not touch the ready set (issue #20). `RedisOutbox` gives the keys and the
protocol, with the windows it leaves and the backstop that repairs them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from adapters.store.redis_part import RedisPart
from service.outbox import (
    OutboxEntry,
    OutboxMessage,
    OutboxStore,
    check_channel,
    group_messages,
)

GROUP = "send"
HINT_GRACE = 10.0  # s: a take keeps a hint bumped before a commit this long

# A Lua function for the commit's and append's scripts. `ko`: the index in KEYS
# of the game's channel set, followed per channel by its stream, its keys hash
# and (ARGV[ao + 2] == '1') the ready set; `ao`: the index in ARGV of the game
# id, then the number of channels, the ready flag, and per channel its name,
# its number m of messages and m (key, payload) pairs. `ttl` (ms): expire the
# keys with the game (0: as the game hash does, if it expires). Returns the
# number of messages written (keys already written are skipped).
LUA = """
local function outbox(ko, ao, ttl)
  local n = tonumber(ARGV[ao + 1])
  if n == 0 then return 0 end
  local ready = ARGV[ao + 2] == '1'
  if ttl <= 0 then ttl = redis.call('PTTL', KEYS[1]) end
  local k, a, added = ko + 1, ao + 3, 0
  for _ = 1, n do
    local stream, seen, m = KEYS[k], KEYS[k + 1], tonumber(ARGV[a + 1])
    redis.call('SADD', KEYS[ko], ARGV[a])
    if redis.call('EXISTS', stream) == 0 then
      redis.call('XGROUP', 'CREATE', stream, 'send', '0', 'MKSTREAM')
    end
    local here = 0
    for i = 1, m do
      local key = ARGV[a + 2 * i]
      if redis.call('HEXISTS', seen, 'i:' .. key) == 0 then
        local id = redis.call('XADD', stream, '*', 'k', key, 'p', ARGV[a + 2 * i + 1])
        redis.call('HSET', seen, 'i:' .. key, id)
        here = here + 1
      end
    end
    if ttl > 0 then
      redis.call('PEXPIRE', stream, ttl)
      redis.call('PEXPIRE', seen, ttl)
      redis.call('PEXPIRE', KEYS[ko], ttl)
    end
    if ready then
      if here > 0 then redis.call('ZINCRBY', KEYS[k + 2], 1, ARGV[ao]) end
      k = k + 3
    else
      k = k + 2
    end
    a = a + 2 + 2 * m
    added = added + here
  end
  return added
end
"""

# KEYS: game hash, then the outbox keys (as LUA). ARGV: the outbox args.
_APPEND = (
    LUA
    + """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
return outbox(2, 1, 0)
"""
)

# KEYS: stream, [ready set]. ARGV: consumer, count, min idle ms, game id.
_TAKE = """
local s = KEYS[1]
if redis.call('XLEN', s) == 0 then
  if KEYS[2] then redis.call('ZREM', KEYS[2], ARGV[4]) end
  return {'empty'}
end
local count, idle = tonumber(ARGV[2]), tonumber(ARGV[3])
local pending = redis.call('XPENDING', s, 'send', '-', '+', 1000)
for _, p in ipairs(pending) do
  if p[3] < idle then return {'busy'} end
end
local out, tries, ids = {'ok'}, {}, {}
local function add(e, n)
  local f, key, payload = e[2], nil, nil
  for j = 1, #f, 2 do
    if f[j] == 'k' then key = f[j + 1] elseif f[j] == 'p' then payload = f[j + 1] end
  end
  out[#out + 1] = key
  out[#out + 1] = payload
  out[#out + 1] = n
end
for i = 1, math.min(#pending, count) do
  ids[i] = pending[i][1]
  tries[ids[i]] = pending[i][4] + 1
end
if #ids > 0 then
  for _, e in ipairs(redis.call('XCLAIM', s, 'send', ARGV[1], 0, unpack(ids))) do
    add(e, tries[e[1]])
  end
end
if #pending < count then
  local got = redis.call('XREADGROUP', 'GROUP', 'send', ARGV[1], 'COUNT', count - #pending,
    'STREAMS', s, '>')
  if got then
    for _, e in ipairs(got[1][2]) do add(e, 1) end
  end
end
return out
"""

# KEYS: stream. ARGV: consumer.
_RENEW = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local call = {'XCLAIM', KEYS[1], 'send', ARGV[1], 0}
for _, p in ipairs(redis.call('XPENDING', KEYS[1], 'send', '-', '+', 1000, ARGV[1])) do
  call[#call + 1] = p[1]
end
if #call == 5 then return 0 end
call[#call + 1] = 'JUSTID'
return #redis.call(unpack(call))
"""

# KEYS: stream, keys hash. ARGV: key, result. 1: first ack, 0: again, -1: unknown.
# KEYS: stream, keys hash, and on one Redis the ready set. ARGV: key, result,
# game id. The ack that leaves the stream empty drops the ready hint there (one
# Redis: a commit's script adds its entries and the hint together, so an empty
# stream means nothing to deliver), sparing the delivery a take that would find
# it empty (issue #20: one round trip a batch).
_ACK = """
local id = redis.call('HGET', KEYS[2], 'i:' .. ARGV[1])
if not id then return -1 end
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('XACK', KEYS[1], 'send', id)
  redis.call('XDEL', KEYS[1], id)
end
if KEYS[3] and redis.call('XLEN', KEYS[1]) == 0 then redis.call('ZREM', KEYS[3], ARGV[3]) end
return redis.call('HSETNX', KEYS[2], 'd:' .. ARGV[1], ARGV[2])
"""

# KEYS: the channel set, then per channel stream and keys hash. ARGV: ttl ms,
# then the channels' names. Returns the channels with undelivered messages.
_EXPIRE = """
local outstanding = {}
for i = 1, #KEYS do
  if redis.call('PTTL', KEYS[i]) == -1 then redis.call('PEXPIRE', KEYS[i], ARGV[1]) end
end
for c = 2, #ARGV do
  if redis.call('XLEN', KEYS[2 * c - 2]) > 0 then outstanding[#outstanding + 1] = ARGV[c] end
end
return outstanding
"""

# A Cluster's ready hint (KEYS: ready set; ARGV: game id, '1' after a commit or
# '0' before one): the score is the node's time in microseconds (above the last
# score: never repeated), negative before a commit. Formatted with %.0f: Redis
# passes a Lua number to a command as %.14g, which would round it. Returns the
# score before ('' if none) and the one set, for `_UNDO`.
_FLAG = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local text = redis.call('ZSCORE', KEYS[1], ARGV[1])
if text then
  local old = math.abs(tonumber(text))
  if old >= now then now = old + 1 end
end
if ARGV[2] ~= '1' then now = -now end
now = string.format('%.0f', now)
redis.call('ZADD', KEYS[1], now, ARGV[1])
return {text or '', now}
"""

# Undo a bump before a commit that was refused (KEYS: ready set; ARGV: game id,
# the score the bump set, the score before it or ''): unless bumped again since,
# the hint is as it was (no hint for a refused commit's messages: none exist).
_UNDO = """
local now = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not now or tonumber(now) ~= tonumber(ARGV[2]) then return 0 end
if ARGV[3] == '' then return redis.call('ZREM', KEYS[1], ARGV[1]) end
return redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
"""

# KEYS: ready set. ARGV: game id, the score it had before the take, the grace in
# microseconds of a bump before a commit.
_UNFLAG = """
local now = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not now or tonumber(now) ~= tonumber(ARGV[2]) then return 0 end
if tonumber(now) < 0 then
  local t = redis.call('TIME')
  local age = tonumber(t[1]) * 1000000 + tonumber(t[2]) + tonumber(now)
  if age < tonumber(ARGV[3]) then return 0 end
end
return redis.call('ZREM', KEYS[1], ARGV[1])
"""


class RedisOutbox(RedisPart, OutboxStore):
    """The outbox methods of `RedisStore` (a mixin).

    Keys, beside the game's own and with its hash tag (one slot on a Cluster):
      {g:ID}:outs          set of the channels the game has an outbox on
      {g:ID}:out:CH        stream of undelivered messages (fields k: key, p: payload)
                           with one consumer group, "send"
      {g:ID}:out:CH:keys   hash: i:KEY -> stream id (every key written: dedupe),
                           d:KEY -> the ack's result (JSON)
    and one directory key per channel, outside the games' slots:
      outbox:CH            sorted set: games that may have undelivered messages

    The commit's script writes the messages (`LUA`, shared with `append_outbox`):
    so they exist exactly when the input does. An ack is XACK + XDEL: the stream
    holds only what is undelivered (trimmed at once), the hash keeps the key.

    Finding the games with output: on one Redis the script also bumps the game in
    `outbox:CH` (any key may be named there: atomic, never lost; ZINCRBY, and the
    ack that empties the stream, or a take that finds it empty, drops it in the
    same script). On a Cluster a script
    may not name keys of other slots, so the hint is bumped outside it (`_FLAG`,
    a script on the ready set alone): once right BEFORE the commit's script and
    once right after it (issue #20). A score there is the bump's time on the ready
    set's node (microseconds, never below the last score + 1), negative for a
    bump before a commit ("a commit is on its way"), positive after one. A take
    that finds the stream empty drops the hint afterwards by compare-and-delete
    (`_UNFLAG`): only if its score is the one read before the take, and not if it
    is a bump before a commit younger than `HINT_GRACE` seconds. So:

    - a worker SIGKILLed between its commit and the bump after it leaves the bump
      before it: its messages stay flagged (a take meanwhile kept the young hint);
    - scores never repeat (they follow the clock), so a take cannot drop a hint
      that another take dropped and a commit bumped again meanwhile. With counters
      it could: two workers' takes found the same game empty at once, the first
      dropped the hint, a commit recreated it at score 1, the second's
      compare-and-delete read 1 before and after and dropped it too: that commit's
      messages waited for the backstop scan;
    - the window left: the commit's script lands more than `HINT_GRACE` after the
      bump before it (the worker stalled between the two), a take in that gap finds
      the stream empty and drops the hint, and the worker dies before the bump
      after; or another bump after (another commit's, a repair's: positive)
      replaces a young bump before a commit whose script has not landed yet, a
      take then finds the stream empty and drops it, and that commit's worker dies
      before its own bump after. Then the backstop repairs it: `finish` re-flags a
      finished game's outstanding channels (a crash before it leaves the game in
      the active set, which the service's sweep finishes again), and
      `outbox_ready(scan=True)` re-flags every active game with undelivered
      entries (adapters/outbox_loop.py: at a worker's start, then about every
      minute, and a few seconds after a scan that failed).

    A bump before a commit that is refused (conflict, duplicate, no such game) is
    undone right after it (`_UNDO`: the hint as it was, unless bumped again since);
    one whose worker died before the script is dropped by the first empty take
    after `HINT_GRACE`. Pub/sub is not used: consumers poll `outbox:CH` (one small
    ZRANGE), and the worker that made a commit can wake its own consumer in-process.

    Hand-out: `take` is one script on the stream: refuse while any entry is
    pending and fresh (one batch out per game and channel: order per recipient),
    else XCLAIM the idle pending ones, then XREADGROUP new ones, in stream order."""

    def _init_outbox(self) -> None:
        self._append = self.client.register_script(_APPEND)
        self._take = self.client.register_script(_TAKE)
        self._renew = self.client.register_script(_RENEW)
        self._ack = self.client.register_script(_ACK)
        self._expire_outbox = self.client.register_script(_EXPIRE)
        self._unflag = self.client.register_script(_UNFLAG)
        self.hint_grace = HINT_GRACE

    def _stream(self, game_id: str, channel: str) -> str:
        return f"{self._game(game_id)}:out:{check_channel(channel)}"

    def _ready(self, channel: str) -> str:
        return f"{self.prefix}outbox:{check_channel(channel)}"

    def outbox_parts(
        self, game_id: str, messages: Sequence[OutboxMessage]
    ) -> tuple[list[str], list[str | int], list[str]]:
        """KEYS and ARGV for `LUA` (to append to a script's, passing where they
        start), and the channels whose ready hint goes outside the script (a
        Cluster: `flag_before` them, then `flag_ready` after the script)."""
        by = group_messages(messages)
        keys = [self._game(game_id) + ":outs"]
        args: list[str | int] = [game_id, len(by), "0" if self.cluster else "1"]
        for channel, some in by.items():
            stream = self._stream(game_id, channel)
            keys += [stream, stream + ":keys"]
            if not self.cluster:
                keys.append(self._ready(channel))
            args += [channel, len(some)]
            for m in some:
                args += [m.key, json.dumps(m.payload, ensure_ascii=False, separators=(",", ":"))]
        return keys, args, list(by) if self.cluster else []

    def flag_ready(
        self, pipe: Any, game_id: str, channels: Sequence[str], *, before: bool = False
    ) -> None:
        """Queue the ready hints of `channels` on a pipeline (a Cluster: after the
        commit, or `before` it; one Redis: the scan's and `finish`'s repairs)."""
        for channel in channels:
            if self.cluster:
                pipe.eval(_FLAG, 1, self._ready(channel), game_id, "0" if before else "1")
            else:
                pipe.zincrby(self._ready(channel), 1, game_id)

    async def flag_before(self, game_id: str, channels: Sequence[str]) -> list[list[str]]:
        """A Cluster: the hints of a commit's channels, right before its script
        (a worker killed after the script leaves them; see the module's doc).
        Returns per channel [channel, score before or '', score set] (`flag_after`).
        If it fails (the ready set's node away), the commit fails before its
        script: nothing written, retried as after any store error."""
        if not channels:
            return []
        async with self.client.pipeline(transaction=False) as pipe:
            self.flag_ready(pipe, game_id, channels, before=True)
            got = await pipe.execute()
        return [[c, str(old), str(mine)] for c, (old, mine) in zip(channels, got, strict=True)]

    def flag_after(
        self,
        pipe: Any,
        game_id: str,
        channels: Sequence[str],
        bumps: Sequence[Sequence[str]],
        *,
        landed: bool,
    ) -> None:
        """Queue what follows a script that `flag_before` bumped for: the hints
        bumped again if its messages `landed`, else the bumps undone (each hint
        as it was, unless bumped again since: a refused commit wrote none)."""
        if landed:
            self.flag_ready(pipe, game_id, channels)
            return
        for channel, old, mine in bumps:
            pipe.eval(_UNDO, 1, self._ready(channel), game_id, mine, old)

    async def append_outbox(self, game_id: str, messages: Sequence[OutboxMessage]) -> int:
        return await self.append_with(self._append, game_id, messages)

    async def append_with(
        self, script: Any, game_id: str, messages: Sequence[OutboxMessage], head: Sequence[str] = ()
    ) -> int:
        """Run `script` over the game's hash and `LUA`'s keys, its ARGV `head`
        then `LUA`'s, with the ready hints of a Cluster around it; what it
        returned (nonzero: the messages landed)."""
        keys, args, later = self.outbox_parts(game_id, messages)
        bumps = await self.flag_before(game_id, later)
        added = int(await script(keys=[self._game(game_id), *keys], args=[*head, *args]))
        if later:
            async with self.client.pipeline(transaction=False) as pipe:
                # nothing new: a game gone, or its keys written already
                self.flag_after(pipe, game_id, later, bumps, landed=bool(added))
                await pipe.execute()
        return added

    async def finish_outbox(self, game_id: str, ms: int) -> None:
        """A finished game: its outbox expires with it (unless it does already),
        and its undelivered channels are flagged ready again (repairing a hint
        lost on a Cluster)."""
        channels = sorted(str(c) for c in await self.client.smembers(self._game(game_id) + ":outs"))
        if not channels:
            return
        keys = [self._game(game_id) + ":outs"]
        for channel in channels:
            keys += [self._stream(game_id, channel), self._stream(game_id, channel) + ":keys"]
        outstanding = await self._expire_outbox(keys=keys, args=[ms, *channels])
        if outstanding:
            async with self.client.pipeline(transaction=False) as pipe:
                self.flag_ready(pipe, game_id, [str(c) for c in outstanding])
                await pipe.execute()

    async def outbox_ready(self, channel: str, *, scan: bool = False) -> list[str]:
        ready = self._ready(channel)
        if scan:
            active = sorted(str(g) for g in await self.client.smembers(self.prefix + "active"))
            async with self.client.pipeline(transaction=False) as pipe:
                for game_id in active:
                    pipe.xlen(self._stream(game_id, channel))
                lengths = await pipe.execute()
            behind = [g for g, n in zip(active, lengths, strict=True) if n]
            if behind:
                async with self.client.pipeline(transaction=False) as pipe:
                    for game_id in behind:
                        self.flag_ready(pipe, game_id, [channel])
                    await pipe.execute()
        return sorted(str(g) for g in await self.client.zrange(ready, 0, -1))

    async def _take_batch(
        self, channel: str, game_id: str, consumer: str, count: int, min_idle: float
    ) -> list[OutboxEntry]:
        stream, ready = self._stream(game_id, channel), self._ready(channel)
        args: list[str | int] = [consumer, count, max(0, round(min_idle * 1000)), game_id]
        if self.cluster:  # the ready set is in another slot: compare and delete after
            score = await self.client.zscore(ready, game_id)
            reply = await self._take(keys=[stream], args=args)
            if reply[0] == "empty" and score is not None:
                grace = max(0, round(self.hint_grace * 1_000_000))
                await self._unflag(keys=[ready], args=[game_id, repr(score), grace])
        else:
            reply = await self._take(keys=[stream, ready], args=args)
        if reply[0] != "ok":
            return []
        items = reply[1:]
        return [
            OutboxEntry(
                game_id, channel, str(items[i]), json.loads(items[i + 1]), int(items[i + 2])
            )
            for i in range(0, len(items), 3)
        ]

    async def renew(self, channel: str, game_id: str, consumer: str) -> int:
        return int(await self._renew(keys=[self._stream(game_id, channel)], args=[consumer]))

    async def ack(
        self, channel: str, game_id: str, key: str, result: Mapping[str, Any] | None = None
    ) -> bool:
        keys, args = self._ack_call(channel, game_id, key, result)
        return int(await self._ack(keys=keys, args=args)) == 1

    def _ack_call(
        self, channel: str, game_id: str, key: str, result: Mapping[str, Any] | None
    ) -> tuple[list[str], list[str]]:
        """The keys and args of `_ACK` (for `ack`, and the store's `ack_and_swap`)."""
        stream = self._stream(game_id, channel)
        text = json.dumps(dict(result or {}), ensure_ascii=False, separators=(",", ":"))
        keys, args = [stream, stream + ":keys"], [key, text]
        if not self.cluster:  # (a Cluster's hint is in another slot: the empty take drops it)
            keys.append(self._ready(channel))
            args.append(game_id)
        return keys, args

    async def delivered(self, channel: str, game_id: str, key: str) -> dict[str, Any] | None:
        text = await self.client.hget(self._stream(game_id, channel) + ":keys", "d:" + key)
        return None if text is None else dict(json.loads(text))
