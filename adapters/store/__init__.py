"""Game stores: the two implementations of the service's store port
(`service.ports.GameStore`), Redis (`redis_store.RedisStore`, several
processes) and SQLite (`sqlite_store.SqliteStore`, the embedded default).
Import the one you use from its module, so that the embedded store never needs
the Redis client loaded."""
