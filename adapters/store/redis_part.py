"""What the parts of the Redis store share (adapters/store/redis_*.py: the
outbox, the deadline index, the inputs, the identities, the forgetting): the
client, where the keys go, and the name of a game's own hash, whose hash tag
puts every key of one game in one slot."""

from __future__ import annotations

from typing import TYPE_CHECKING

from service.ports import check_id

if TYPE_CHECKING:
    import redis.asyncio as aioredis
    from redis.asyncio.cluster import RedisCluster


class RedisPart:
    """The base of `RedisStore`'s mixins; `RedisStore.__init__` sets these."""

    client: aioredis.Redis | RedisCluster
    cluster: bool  # a Redis Cluster: a script names keys of one slot only
    prefix: str

    def _game(self, game_id: str) -> str:
        return f"{self.prefix}{{g:{check_id(game_id)}}}"
