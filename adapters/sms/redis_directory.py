"""The SMS adapter's records in Redis, shared by every worker on that Redis.

With several `muldvarp serve` workers, Twilio posts a text to whichever worker
the proxy picks, redelivers it (same `MessageSid`) to another when the first
gave no answer, and sends its status callbacks anywhere. So the records the
SMS side keeps (see `adapters.sms.directory`) must be shared: here they are
Redis keys under the game store's prefix, and every operation is one atomic
Redis step, so two workers handling the same MessageSid at once cannot both
treat it as new (`SET NX`).

Keys, under `prefix` (default "muldvarp:", the same as the game store's):
  sms:in:SID        JSON [phone, body, at]: an inbound text (`SET NX`), TTL retention
  sms:num:PLAYER    JSON [phone, game]: player -> phone, TTL retention, renewed
                    whenever the number is looked up (so it lives while texts
                    go to it, a 12-day campaign included)
  sms:stop:PHONE    opted out (STOP) at this time; no TTL: a STOP holds until START
  sms:out:SID       hash phone, player, game, secret, status, error, at: an
                    outbound text and its delivery status, TTL retention
  sms:texts:PHONE   set of in:SID and out:SID, the texts from and to PHONE,
                    TTL retention (written before the text's own key): what
                    `forget_game` deletes with the number

Each key is on its own (no multi-key step), so Redis Cluster works as it does
for the store. `forget_game` drops a number's texts and then the number
(compare-and-delete on its game): a crash between the two leaves the number,
and the retention pass, which repeats a game whose step failed, does both
again.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import redis.asyncio as aioredis
from cachetools import LRUCache
from redis.asyncio.cluster import RedisCluster
from redis.typing import EncodableT, FieldT

from adapters.redis_url import cluster_client, is_cluster
from adapters.sms.directory import Directory, Received, Sent
from service.ports import DEFAULT_RETENTION

# KEYS: the outbound hash. ARGV: status, error ("" for none), at.
# The old fields, or nothing when the message is unknown (a callback for a text
# recorded nowhere must not create a record).
_UPDATE_STATUS = """
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local old = redis.call('HMGET', KEYS[1], 'phone', 'player', 'game', 'secret', 'status')
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'error', ARGV[2], 'at', ARGV[3])
return old
"""


# KEYS: a number's key. ARGV: the game. The phone if the number was linked to
# that game (and is now deleted), else nothing.
_FORGET_NUMBER = """
local value = redis.call('GET', KEYS[1])
if not value then return false end
local number = cjson.decode(value)
if number[2] ~= ARGV[1] then return false end
redis.call('DEL', KEYS[1])
return number[1]
"""


PHONES_REMEMBERED = 10_000  # players whose number is kept as `reachable`'s guess


def _ms(seconds: float) -> int:
    return max(1, round(seconds * 1000))


def _opt(value: Any) -> str | None:
    return None if value is None or value == "" else str(value)


class RedisDirectory(Directory):
    """The `Directory` port on Redis (`redis.asyncio`)."""

    def __init__(
        self,
        client: aioredis.Redis | RedisCluster,
        *,
        prefix: str = "muldvarp:",
        retention: float = DEFAULT_RETENTION,
    ) -> None:
        if "{" in prefix or "}" in prefix:
            raise ValueError("the key prefix must not contain braces (hash tags)")
        self.client = client
        self.prefix = prefix
        self.retention = retention
        self._update_status = client.register_script(_UPDATE_STATUS)
        self._forget_number = client.register_script(_FORGET_NUMBER)
        # player -> phone as last read or written here: `reachable`'s guess
        self._phones: LRUCache[str, str] = LRUCache(maxsize=PHONES_REMEMBERED)

    @classmethod
    def from_url(cls, url: str, *, max_connections: int = 64, **kwargs: Any) -> RedisDirectory:
        """A directory with a connection pool of its own. The pool blocks when all
        `max_connections` are busy (redis-py's default pool raises instead), so
        a burst of webhooks waits its turn rather than failing. A
        redis+cluster:// URL gives a `RedisCluster` client (adapters/redis_url.py)."""
        if is_cluster(url):
            return cls(cluster_client(url, decode_responses=True), **kwargs)
        pool = aioredis.BlockingConnectionPool.from_url(
            url, decode_responses=True, max_connections=max_connections, timeout=10
        )
        return cls(aioredis.Redis.from_pool(pool), **kwargs)

    def _k(self, kind: str, name: str) -> str:
        return f"{self.prefix}sms:{kind}:{name}"

    # -- inbound ----------------------------------------------------------------

    async def _index(self, phone: str, text: str) -> None:
        """`text` (in:SID, out:SID) is from or to `phone`: before it is written."""
        key = self._k("texts", phone)
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.sadd(key, text)
            pipe.pexpire(key, _ms(self.retention))
            await pipe.execute()

    async def store_inbound(self, sid: str, phone: str, body: str, at: float) -> bool:
        value = json.dumps([phone, body, at], ensure_ascii=False)
        await self._index(phone, "in:" + sid)
        stored = await self.client.set(self._k("in", sid), value, nx=True, px=_ms(self.retention))
        return bool(stored)

    async def inbound(self, sid: str) -> Received | None:
        value = await self.client.get(self._k("in", sid))
        if value is None:
            return None
        phone, body, at = json.loads(value)
        return Received(sid, str(phone), str(body), float(at))

    # -- numbers ------------------------------------------------------------------

    async def set_phone(self, player: str, phone: str, game: str | None) -> None:
        value = json.dumps([phone, game])
        await self.client.set(self._k("num", player), value, px=_ms(self.retention))
        self._remember(player, phone)

    async def phone_of(self, player: str) -> str | None:
        value = await self.client.getex(self._k("num", player), px=_ms(self.retention))
        return None if value is None else str(json.loads(value)[0])

    # -- opt-out ------------------------------------------------------------------

    async def opt_out(self, phone: str, at: float) -> bool:
        return bool(await self.client.set(self._k("stop", phone), repr(at), nx=True))

    async def opt_in(self, phone: str) -> bool:
        return bool(await self.client.delete(self._k("stop", phone)))

    async def opted_out(self, phone: str) -> bool:
        return bool(await self.client.exists(self._k("stop", phone)))

    async def reachable(self, players: Sequence[str]) -> dict[str, str]:
        # Pipelined, each key on its own (so this works on a Cluster as well):
        # the numbers (renewing them, as `phone_of` does) and, in the same
        # round trip, the STOP of the phone each player had when this
        # directory last saw their number (a guess, checked against the number
        # found, never trusted); a second round trip only for the players
        # whose number is not the one guessed. Texting a player one text at a
        # time (adapters/sms/delivery.py) so costs one round trip a text.
        if not players:
            return {}
        ttl = _ms(self.retention)
        guess = {p: self._phones[p] for p in players if p in self._phones}
        async with self.client.pipeline(transaction=False) as pipe:
            for player in players:
                pipe.getex(self._k("num", player), px=ttl)
            for phone in guess.values():
                pipe.exists(self._k("stop", phone))
            found = await pipe.execute()
        numbers, stops = found[: len(players)], dict(zip(guess, found[len(players) :], strict=True))
        phones = {p: str(json.loads(v)[0]) for p, v in zip(players, numbers, strict=True) if v}
        stopped = {p: bool(stops[p]) for p, phone in phones.items() if guess.get(p) == phone}
        rest = [p for p in phones if p not in stopped]
        if rest:
            async with self.client.pipeline(transaction=False) as pipe:
                for p in rest:
                    pipe.exists(self._k("stop", phones[p]))
                found = await pipe.execute()
            stopped.update((p, bool(s)) for p, s in zip(rest, found, strict=True))
        for p in players:
            self._remember(p, phones.get(p))
        return {p: phone for p, phone in phones.items() if not stopped[p]}

    def _remember(self, player: str, phone: str | None) -> None:
        """`player`'s number as last seen here (None: they have none)."""
        if phone is None:
            self._phones.pop(player, None)
            return
        self._phones[player] = phone  # (a long-running worker forgets the oldest)

    # -- outbound -----------------------------------------------------------------

    async def _keep_sent(self, sent: Sent, at: float, error: str | None) -> None:
        sid, phone, player, game, secret, status = sent
        key = self._k("out", sid)
        fields: dict[FieldT, EncodableT] = {
            "phone": phone,
            "player": player or "",
            "game": game or "",
            "secret": "1" if secret else "0",
            "status": status,
            "error": error or "",
            "at": repr(at),
        }
        await self._index(phone, "out:" + sid)
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.hset(key, mapping=fields)
            pipe.pexpire(key, _ms(self.retention))
            await pipe.execute()

    async def update_status(
        self, sid: str, status: str, error: str | None, at: float
    ) -> Sent | None:
        old = await self._update_status(
            keys=[self._k("out", sid)], args=[status, error or "", repr(at)]
        )
        if not old:
            return None
        phone, player, game, secret, before = old
        return Sent(sid, str(phone), _opt(player), _opt(game), secret == "1", str(before))

    async def sent(self, sid: str) -> Sent | None:
        row = await self.client.hmget(
            self._k("out", sid), ["phone", "player", "game", "secret", "status"]
        )
        phone, player, game, secret, status = row
        if phone is None:
            return None
        return Sent(sid, str(phone), _opt(player), _opt(game), secret == "1", str(status))

    # -- forgetting -------------------------------------------------------------------

    async def forget_game(self, game: str, players: Sequence[str]) -> list[str]:
        phones = []
        for player in players:
            value = await self.client.get(self._k("num", player))
            if value is None or json.loads(value)[1] != game:
                continue  # none, or a number now in a later game: kept
            phone = str(json.loads(value)[0])
            index = self._k("texts", phone)
            for text in await self.client.smembers(index):
                await self.client.delete(self._k(*str(text).split(":", 1)))
            await self.client.delete(index)
            if await self._forget_number(keys=[self._k("num", player)], args=[game]):
                phones.append(phone)
            self._phones.pop(player, None)
        return phones

    async def close(self) -> None:
        if isinstance(self.client, RedisCluster):
            await self.client.aclose()  # its pools are its own
        else:
            await self.client.aclose(close_connection_pool=True)
