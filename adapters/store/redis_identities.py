"""The Redis store's identity directory: which game (and player) a Telegram
user or a phone is in, kept in 4,096 hashes instead of a key per identity.

Why (issue #31, "under 8 KiB of store per game"): a key of its own cost
Redis about 150 bytes beyond its 20-40 bytes of content, and a started
seven-player game binds eight identities. A field of a small hash costs its
content and a few bytes (a listpack, Redis's compact encoding under its
default thresholds: 512 fields of up to 64 bytes each). An identity's hash is
`who#XYZ`, XYZ the low 12 bits of the CRC-32 of the identity in hex: fixed
forever, since a reader must find the field where a writer put it. At
100,000 games (800,000 identities) a hash holds about 200 fields; past 512
Redis turns it into a hash table, which still works and costs about what the
keys did. The hashes carry no hash tag: a Cluster spreads them over its slots.

A field's value is the game id when the player id is the identity (a join's
binding), else JSON [game id, player id] (a phone bound to its SMS player).
A game id never begins with '[' (`service.ports.check_id`).

Before this layout an identity was the key `who:IDENTITY` holding JSON [game
id, player id]. Such keys are still read (`whereis`: the hash first, both in
one round trip), a new binding deletes the identity's old key, and
`unbind` drops whichever of the two still names the game.
"""

from __future__ import annotations

import json
import zlib
from typing import TYPE_CHECKING, Any

from adapters.store.redis_part import RedisPart

BUCKETS = 4096  # never change it: the fields already written would be lost

# KEYS: the identity's hash. ARGV: identity, game id. 1: dropped, 0: not the game's.
_UNBIND = """
local v = redis.call('HGET', KEYS[1], ARGV[1])
if not v then return 0 end
if string.sub(v, 1, 1) == '[' then v = cjson.decode(v)[1] end
if v == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0
"""

# The key from before (`who:IDENTITY`). KEYS: it. ARGV: game id.
_UNBIND_OLD = """
local v = redis.call('GET', KEYS[1])
if not v then return 0 end
if cjson.decode(v)[1] == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


def binding_value(game_id: str, player: str, identity: str) -> str:
    """A binding's value: the game id alone when the player is the identity."""
    if player == identity:
        return game_id
    return json.dumps([game_id, player], separators=(",", ":"))


def read_entry(value: str | bytes, identity: str) -> tuple[str, str]:
    """(game id, player id) from a binding's value, either layout."""
    text = value.decode() if isinstance(value, bytes) else str(value)
    if text.startswith("["):
        game_id, player = json.loads(text)
        return str(game_id), str(player)
    return text, identity


class RedisIdentities(RedisPart):
    """The identity directory of `RedisStore` (a mixin)."""

    if TYPE_CHECKING:

        def queue_bound(self, pipe: Any, game_id: str, identity: str) -> None: ...

    def _init_identities(self) -> None:
        self._unbind_new = self.client.register_script(_UNBIND)
        self._unbind_old = self.client.register_script(_UNBIND_OLD)

    def who_hash(self, identity: str) -> str:
        """The hash holding `identity`'s binding."""
        return f"{self.prefix}who#{zlib.crc32(identity.encode()) % BUCKETS:03x}"

    def old_who_key(self, identity: str) -> str:
        """`identity`'s key before the hashes (read, and deleted on a new binding)."""
        return f"{self.prefix}who:{identity}"

    def queue_binding(self, pipe: Any, identity: str, game_id: str, player: str) -> None:
        """Queue the directory's entry for a binding, and the old key's deletion."""
        pipe.hset(self.who_hash(identity), identity, binding_value(game_id, player, identity))
        pipe.delete(self.old_who_key(identity))

    async def bind(self, identity: str, game_id: str, player: str) -> None:
        # One round trip (every join pays it). Not a transaction: the keys
        # live in different slots of a Redis Cluster.
        async with self.client.pipeline(transaction=False) as pipe:
            self.queue_binding(pipe, identity, game_id, player)
            self.queue_bound(pipe, game_id, identity)
            await pipe.execute()

    async def whereis(self, identity: str) -> tuple[str, str] | None:
        async with self.client.pipeline(transaction=False) as pipe:
            pipe.hget(self.who_hash(identity), identity)
            pipe.get(self.old_who_key(identity))
            now, before = await pipe.execute()
        value = now if now is not None else before
        return None if value is None else read_entry(value, identity)

    async def unbind(self, identity: str, game_id: str) -> bool:
        dropped = await self._unbind_new(keys=[self.who_hash(identity)], args=[identity, game_id])
        old = await self._unbind_old(keys=[self.old_who_key(identity)], args=[game_id])
        return bool(dropped) or bool(old)
