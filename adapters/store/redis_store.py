"""The Redis store: several worker processes share one Redis (or a Cluster).

Every key of one game carries the hash tag `{g:ID}`, so a game lives in one
slot and its commit can be one Lua script: check the idempotency key, check the
version, RPUSH the log entry, save snapshot and version, remember the key until
its expiry (redis_inputs.py), write the game's next instant to the deadline index (on one Redis; on a
Cluster around the script: redis_due.py), and for a finished game set the
expiry, all atomically. The directories
(join codes, identities, TV tokens, the active set, the outbox's ready
hints) are ordinary keys outside
the games' slots; they are derived data, repairable from the games (`finish`).
A join's identity binding is written by the commit's own script on one Redis
(a script may name keys of any slot there: atomic, and no second round trip),
and right after the commit on a Cluster. The outbox (streams per game and
channel, adapters/store/redis_outbox.py) is written by the commit's script;
on a Cluster its ready hints are bumped right before and right after it.

Keys, under `prefix` (default "muldvarp:"):
  {g:ID}          hash: version, snapshot, initial, code, tv, attr:NAME
  {g:ID}:log      list of JSON log entries
  {g:ID}:in       hash, the inputs' bookkeeping (adapters/store/redis_inputs.py):
                  k:KEY -> "VERSION EXPIRY_MS" (an idempotency key, until its
                  expiry), w:IDENTITY -> '' (bound to the game; unbound when it
                  ends), @ -> when the expired keys are next dropped
  {g:ID}:k:KEY, {g:ID}:who   the same before issue #31's layout: still read
  {g:ID}:outs, {g:ID}:out:CH, {g:ID}:out:CH:keys   the outbox (redis_outbox.py)
  key:KEY         global idempotency key (game creation)
  code:CODE       join code -> game id
  ended:CODE      join code -> the last game that held it and ended (TTL retention)
  who#XYZ         hash: identity -> game id, or JSON [game id, player id]
                  (adapters/store/redis_identities.py; before: who:IDENTITY)
  tv:HASH         TV token hash -> game id
  active          set of unfinished game ids
  {due}, {due}:v, {due}:p   the deadline index (adapters/store/redis_due.py)
  forget          sorted set: ended games whose contacts are still kept, by
                  their end (adapters/store/redis_forget.py)
  outbox:CH       sorted set of games that may have undelivered CH messages
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import redis.asyncio as aioredis
from cachetools import LRUCache
from redis.asyncio.cluster import RedisCluster

from adapters.redis_url import cluster_client, is_cluster
from adapters.store import redis_due, redis_inputs, redis_outbox
from adapters.store.redis_due import RedisDue
from adapters.store.redis_forget import RedisForget
from adapters.store.redis_identities import RedisIdentities, binding_value
from adapters.store.redis_inputs import RedisInputs
from adapters.store.redis_outbox import RedisOutbox
from gameflow.core.codec import decode_game, encode_game
from gameflow.core.state import Game
from service.outbox import OutboxMessage
from service.ports import (
    DEFAULT_DEDUPE_TTL,
    DEFAULT_RETENTION,
    Commit,
    CommitResult,
    GameStore,
    Status,
    Swap,
    due_floor,
)

_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'version', ARGV[1], 'snapshot', ARGV[2], 'initial', ARGV[2], 'due', ARGV[3])
return 1
"""

# KEYS: game hash, log, the idempotency key as kept before `{g:ID}:in` (read
#   only; a dummy in the slot without a key), the game's `{g:ID}:in`, its
#   identity set from before (redis_inputs.py), then per bind the directory's
#   hash and the identity's key from before (redis_identities.py; none on a
#   Cluster), then the deadline index and its versions (none
#   on a Cluster), then the outbox's keys from index ARGV[9] on
# ARGV: expected version, new version, snapshot, entry, has key, key ttl ms,
#   retention ms, number of binds n, where the outbox's keys and args start,
#   the next instant ('' none), where the index's keys are (0: not here), the
#   game id, the key ('' none), then n identities and, unless on a Cluster,
#   their n directory values (redis_identities.binding_value), then the outbox's args (redis_outbox.LUA)
_COMMIT = (
    redis_outbox.LUA
    + redis_due.LUA
    + redis_inputs.LUA
    + """
local v = redis.call('HGET', KEYS[1], 'version')
if not v then return {'missing', -1} end
local now = input_now()
if ARGV[5] == '1' then
  local done = input_seen(4, 3, ARGV[14], now)
  if done then return {'duplicate', done} end
end
if v ~= ARGV[1] then return {'conflict', tonumber(v)} end
redis.call('RPUSH', KEYS[2], ARGV[4])
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'snapshot', ARGV[3])
input_migrate(4, 5)
if ARGV[5] == '1' then input_keep(4, ARGV[14], ARGV[2], tonumber(ARGV[6]), now) end
local n = tonumber(ARGV[8])
local ix = tonumber(ARGV[12])
for i = 1, n do
  redis.call('HSET', KEYS[4], 'w:' .. ARGV[14 + i], '')
  if ix > 5 + 2 * i then
    redis.call('HSET', KEYS[4 + 2 * i], ARGV[14 + i], ARGV[14 + n + i])
    redis.call('DEL', KEYS[5 + 2 * i])
  end
end
index_due(ix, ARGV[11], ARGV[13], ARGV[2])
outbox(tonumber(ARGV[9]), tonumber(ARGV[10]), tonumber(ARGV[7]))
if tonumber(ARGV[7]) > 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[7])
  redis.call('PEXPIRE', KEYS[2], ARGV[7])
  redis.call('PEXPIRE', KEYS[4], ARGV[7])
end
return {'ok', tonumber(ARGV[2])}
"""
)

# KEYS: game hash, then its other keys (log, `{g:ID}:in`). ARGV: ttl ms.
_EXPIRE_GAME = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
for i = 2, #KEYS do
  if redis.call('PTTL', KEYS[i]) == -1 then redis.call('PEXPIRE', KEYS[i], ARGV[1]) end
end
return 1
"""

# KEYS: game hash. ARGV: field, expect unset ('1'/'0'), expected value, new value
_SWAP_CHECK = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if ARGV[2] == '1' then
  if cur then return 0 end
elseif cur ~= ARGV[3] then return 0 end
"""
_SWAP_SET = """redis.call('HSET', KEYS[1], ARGV[1], ARGV[4])
return 1
"""
_SWAP_ATTR = _SWAP_CHECK + _SWAP_SET

# The outbox's ack, then the attribute swap, in one script (the two scripts as
# functions: KEYS and ARGV are their parameters). KEYS: the game's hash, then
# the ack's (stream, its keys hash, [ready set]). ARGV: the swap's four (field,
# unset flag, old, new), then the ack's (key, result, [game id]). Returns
# {ack's result, swap's}.
_ACK_SWAP = f"""
local function ack(KEYS, ARGV)
{redis_outbox._ACK}
end
local function swap(KEYS, ARGV)
{_SWAP_ATTR}
end
return {{ack({{KEYS[2], KEYS[3], KEYS[4]}}, {{ARGV[5], ARGV[6], ARGV[7]}}),
        swap({{KEYS[1]}}, {{ARGV[1], ARGV[2], ARGV[3], ARGV[4]}})}}
"""

# The attribute swap and the outbox's append in one script: the swap's check,
# then the messages, then the new value last (Redis keeps a failed script's
# earlier writes: a failure among the messages leaves the attribute as it was).
# KEYS: the game's hash, then the outbox keys (redis_outbox.LUA from KEYS[2]).
# ARGV: the swap's four (field, unset flag, old, new), then the outbox args.
_SWAP_APPEND = redis_outbox.LUA + _SWAP_CHECK + "outbox(2, 5, 0)\n" + _SWAP_SET

_DELETE_IF = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

DECODED_REMEMBERED = 2048  # games whose last snapshot text is kept with its state


def _ms(seconds: float) -> int:
    return max(1, round(seconds * 1000))


def _swap_args(swap: Swap) -> list[str]:
    """`_SWAP_ATTR`'s ARGV: the field, whether it must be unset, old, new."""
    return ["attr:" + swap.name, "1" if swap.old is None else "0", swap.old or "", swap.new]


class RedisStore(RedisOutbox, RedisDue, RedisForget, RedisInputs, RedisIdentities, GameStore):
    """The GameStore port on Redis (`redis.asyncio`; hiredis parses replies)."""

    def __init__(
        self,
        client: aioredis.Redis | RedisCluster,
        *,
        prefix: str = "muldvarp:",
        retention: float = DEFAULT_RETENTION,
        dedupe_ttl: float = DEFAULT_DEDUPE_TTL,
        cluster: bool | None = None,
    ) -> None:
        if "{" in prefix or "}" in prefix:
            raise ValueError("the key prefix must not contain braces (hash tags)")
        self.client = client
        # On a Cluster a script may only name keys of one slot: the commit's
        # binds then go right after it instead of inside it (None: tell by the client).
        self.cluster = isinstance(client, RedisCluster) if cluster is None else cluster
        self.prefix = prefix
        self.retention = retention
        self.dedupe_ttl = dedupe_ttl
        self._create = client.register_script(_CREATE)
        self._commit = client.register_script(_COMMIT)
        self._expire = client.register_script(_EXPIRE_GAME)
        self._delete_if = client.register_script(_DELETE_IF)
        self._swap_attr = client.register_script(_SWAP_ATTR)
        self._ack_swap = client.register_script(_ACK_SWAP)
        self._swap_append = client.register_script(_SWAP_APPEND)
        # game -> (snapshot text, its state) last committed or decoded here
        self._decoded: LRUCache[str, tuple[str, Game]] = LRUCache(maxsize=DECODED_REMEMBERED)
        self._init_outbox()
        self._init_due()
        self._init_forget()
        self._init_inputs()
        self._init_identities()

    @classmethod
    def from_url(cls, url: str, *, max_connections: int = 128, **kwargs: Any) -> RedisStore:
        """A store with a connection pool of its own that *waits* when all
        `max_connections` are busy (redis-py's default pool raises "Too many
        connections" instead, which under a burst of webhooks turned inputs into
        errors). A `max_connections` in the URL wins. A redis+cluster:// URL
        gives a `RedisCluster` client (adapters/redis_url.py)."""
        if is_cluster(url):
            return cls(cluster_client(url, decode_responses=True), **kwargs)
        pool = aioredis.BlockingConnectionPool.from_url(
            url, decode_responses=True, max_connections=max_connections, timeout=10
        )
        return cls(aioredis.Redis.from_pool(pool), **kwargs)

    # -- keys ---------------------------------------------------------------------

    def _log(self, game_id: str) -> str:
        return self._game(game_id) + ":log"

    def _g(self, name: str) -> str:
        return self.prefix + name

    # -- games --------------------------------------------------------------------

    async def create(self, game: Game) -> bool:
        at = due_floor(game)  # a new game is in its lobby (None); a bench's may run
        created = await self._create(
            keys=[self._game(game.id)],
            args=[game.version, encode_game(game), redis_due.instant(at)],
        )
        if created:
            index, versions, _ = self.due_keys()
            async with self.client.pipeline(transaction=False) as pipe:
                pipe.sadd(self._g("active"), game.id)
                if at is not None:
                    pipe.zadd(index, {game.id: at})
                    pipe.hset(versions, game.id, game.version)
                await pipe.execute()
        return bool(created)

    async def load(self, game_id: str) -> Game | None:
        text = await self.client.hget(self._game(game_id), "snapshot")
        return None if text is None else self._decode(game_id, text)

    async def load_with(self, game_id: str, name: str) -> tuple[Game | None, str | None]:
        text, value = await self.client.hmget(self._game(game_id), ["snapshot", "attr:" + name])
        game = None if text is None else self._decode(game_id, text)
        return game, None if game is None or value is None else str(value)

    def _decode(self, game_id: str, text: str | bytes) -> Game:
        """The state a snapshot's text holds. The text this process last
        committed or decoded for the game is kept with its state: the same
        text again (the next input after our own commit, a view of an
        unchanged game) costs a comparison, not a decoding. A state is
        immutable, so sharing it is safe; any other text is decoded."""
        if isinstance(text, bytes):  # (a client without decode_responses)
            text = text.decode()
        known = self._decoded.get(game_id)
        if known is not None and known[0] == text:
            return known[1]
        game = decode_game(text)
        self._decoded[game_id] = (text, game)
        return game

    async def initial(self, game_id: str) -> Game | None:
        text = await self.client.hget(self._game(game_id), "initial")
        return None if text is None else decode_game(text)

    async def _commit_step(self, c: Commit) -> CommitResult:
        game_id, expected, game, line, key, binds, outbox, at = c
        hashed = self._game(game_id)
        keys = [hashed, hashed + ":log", self._old_key(game_id, key or "")]
        keys += [self._inputs(game_id), self._old_bound_set(game_id)]
        snapshot = encode_game(game)
        args: list[str | int] = [
            expected,
            game.version,
            snapshot,
            line,
            "1" if key is not None else "0",
            _ms(self.dedupe_ttl),
            _ms(self.retention) if game.over else 0,
            len(binds),
            0,
            0,
            redis_due.instant(at),
            0,
            game_id,
            key or "",
        ]
        args.extend(identity for identity, _ in binds)
        values = [binding_value(game_id, player, identity) for identity, player in binds]
        if not self.cluster:  # a join's binding in the same script: no second round trip
            for identity, _ in binds:
                keys += [self.who_hash(identity), self.old_who_key(identity)]
            args.extend(values)
            args[11] = len(keys) + 1  # the deadline index too: one atomic step
            keys.extend(self.due_keys()[:2])
        more_keys, more_args, later = self.outbox_parts(game_id, outbox)
        args[8], args[9] = len(keys) + 1, len(args) + 1
        bumps = await self.flag_before(game_id, later)  # a Cluster: hints before and after
        # a Cluster: the index no later than `at` before the script, exact after
        mark = await self.mark_due(game_id, at) if self.cluster else ""
        status, version = await self._commit(keys=keys + more_keys, args=args + more_args)
        result = CommitResult(Status(status), int(version))
        ok = result.status is Status.OK
        if ok:
            self._decoded[game_id] = (snapshot, game)
        if self.cluster:
            await self.settle_due(game_id, at, game.version, ok, mark)
        if self.cluster and ((binds and ok) or later):
            async with self.client.pipeline(transaction=False) as pipe:
                if ok:
                    for identity, player in binds:
                        self.queue_binding(pipe, identity, game_id, player)
                self.flag_after(pipe, game_id, later, bumps, landed=ok)
                await pipe.execute()
        if ok and game.over:
            await self.finish(game_id)
        return result

    async def log(self, game_id: str, start: int = 0) -> list[dict[str, Any]]:
        items = await self.client.lrange(self._log(game_id), start, -1)
        return [json.loads(item) for item in items]

    async def expires_in(self, game_id: str) -> float | None:
        ms = await self.client.pttl(self._game(game_id))
        return None if ms < 0 else ms / 1000.0

    async def claim(self, key: str, value: str) -> str:
        name = self._g("key:" + key)
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.set(name, value, nx=True, px=_ms(self.dedupe_ttl))
            pipe.get(name)
            _, held = await pipe.execute()
        return str(held)

    async def finish(self, game_id: str) -> None:
        ms = _ms(self.retention)
        game = self._game(game_id)
        code, tv = await self.client.hmget(game, ["code", "tv"])
        await self._expire(keys=[game, self._log(game_id), self._inputs(game_id)], args=[ms])
        await self.finish_outbox(game_id, ms)
        if code is not None:
            await self.client.set(self._g("ended:" + str(code)), game_id, px=ms)
            await self.release_code(str(code), game_id)
        if tv is not None:
            await self.client.pexpire(self._g("tv:" + str(tv)), ms)
        identities = await self.bound(game_id)
        for identity in identities:
            await self.unbind(identity, game_id)
        await self.drop_bound(game_id, identities)
        index, versions, _ = self.due_keys()
        async with self.client.pipeline(transaction=False) as pipe:
            pipe.zrem(index, game_id)
            pipe.hdel(versions, game_id)
            self.queue_forget(pipe, game_id)  # its contacts count down from now
            await pipe.execute()
        await self.client.srem(self._g("active"), game_id)

    # -- directories ------------------------------------------------------------------

    async def claim_code(self, code: str, game_id: str) -> bool:
        if not await self.client.set(self._g("code:" + code), game_id, nx=True):
            return False
        await self.client.hset(self._game(game_id), "code", code)
        return True

    async def game_for_code(self, code: str) -> str | None:
        value = await self.client.get(self._g("code:" + code))
        return None if value is None else str(value)

    async def game_last_with_code(self, code: str) -> str | None:
        holder = await self.game_for_code(code)
        if holder is not None:
            return holder
        value = await self.client.get(self._g("ended:" + code))
        return None if value is None else str(value)

    async def code_for(self, game_id: str) -> str | None:
        code = await self.client.hget(self._game(game_id), "code")
        if code is None or await self.game_for_code(str(code)) != game_id:
            return None
        return str(code)

    async def release_code(self, code: str, game_id: str) -> None:
        await self._delete_if(keys=[self._g("code:" + code)], args=[game_id])

    async def set_tv(self, token_hash: str, game_id: str) -> None:
        await self.client.set(self._g("tv:" + token_hash), game_id)
        await self.client.hset(self._game(game_id), "tv", token_hash)

    async def set_attr(self, game_id: str, name: str, value: str) -> None:
        # A field of the game's own hash: it expires with the game, same slot.
        # Only for a stored game: a hash made here would never expire.
        key = self._game(game_id)
        if await self.client.exists(key):
            await self.client.hset(key, "attr:" + name, value)

    async def _ack_swap_step(
        self, channel: str, key: str, result: Mapping[str, Any] | None, swap: Swap
    ) -> tuple[bool, bool]:
        keys, args = self._ack_call(channel, swap.game_id, key, result)
        acked, swapped = await self._ack_swap(
            keys=[self._game(swap.game_id), *keys], args=[*_swap_args(swap), *args]
        )
        return int(acked) == 1, int(swapped) == 1

    async def _swap_step(self, swap: Swap, messages: Sequence[OutboxMessage]) -> bool:
        game_id = swap.game_id
        if not messages:  # the swap alone: the script without the outbox's part
            return bool(await self._swap_attr(keys=[self._game(game_id)], args=_swap_args(swap)))
        return await self.append_with(self._swap_append, game_id, messages, _swap_args(swap)) == 1

    async def get_attr(self, game_id: str, name: str) -> str | None:
        value = await self.client.hget(self._game(game_id), "attr:" + name)
        return None if value is None else str(value)

    async def game_for_tv(self, token_hash: str) -> str | None:
        game_id = await self.client.get(self._g("tv:" + token_hash))
        return None if game_id is None else str(game_id)

    async def active_games(self) -> list[str]:
        return sorted(str(g) for g in await self.client.smembers(self._g("active")))

    async def close(self) -> None:
        await self.client.aclose()
