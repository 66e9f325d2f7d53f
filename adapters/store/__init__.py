"""Game stores: the port (`base.GameStore`) and its two implementations,
Redis (`redis_store.RedisStore`, several processes) and SQLite
(`sqlite_store.SqliteStore`, the embedded default). Import the one you use from
its module, so that the embedded store never needs the Redis client loaded."""

from adapters.store.base import CommitResult, GameStore, Status

__all__ = ["CommitResult", "GameStore", "Status"]
