"""Redis-backed ports shared between processes: a stand-in for the game service.

The subprocess tests (kill -9, two schedulers, failover) need the games and the
deadline inputs to be visible to several processes, like the real store and
service make them. Until the runner is wired to `service.games`, this module plays
that part with the same guarantees that matter here:

- games are snapshots (`gameflow.core.codec`) at `{prefix}game:{id}`, the active
  ids in the set `{prefix}active`, and the deadline index (`scheduler.plan.
  next_instant`) in the sorted set `{prefix}due` with the versions in the hash
  `{prefix}due:v`, written in the same transaction as the snapshot;
- `submit_deadline` applies `Deadline(None, seq)` through the core in one
  optimistic transaction (WATCH/MULTI) that also stores the idempotency key and
  appends to `{prefix}applied`: a deadline takes effect at most once however many
  schedulers submit it, and the core refuses it when stale or early;
- reminders are appended to `{prefix}reminders`;
- every accepted change is published on `{prefix}scheduler:wake` with the game
  id, which the leader uses to re-arm that game at once.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import WatchError

from gameflow.core import actions as A
from gameflow.core.codec import decode_game, encode_game
from gameflow.core.engine import apply
from gameflow.core.result import Accepted
from gameflow.core.state import Game
from scheduler.plan import next_instant
from service.ports import Due

KEY_TTL = 14 * 24 * 3600  # idempotency keys outlive any phase


def wake_channel(prefix: str) -> str:
    return f"{prefix}scheduler:wake"


class RedisGames:
    """GameSource over Redis snapshots."""

    def __init__(self, redis: Redis, prefix: str) -> None:
        self.redis = redis
        self.prefix = prefix

    def key(self, game_id: str) -> str:
        return f"{self.prefix}game:{game_id}"

    def index(self, pipe: Any, game: Game) -> None:
        """Queue `game`'s deadline index entry (inside the caller's MULTI)."""
        at = next_instant(game)
        if at is None:
            pipe.zrem(f"{self.prefix}due", game.id)
            pipe.hdel(f"{self.prefix}due:v", game.id)
        else:
            pipe.zadd(f"{self.prefix}due", {game.id: at})
            pipe.hset(f"{self.prefix}due:v", game.id, game.version)

    async def save(self, game: Game, *, wake: bool = True) -> None:
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.set(self.key(game.id), encode_game(game))
            self.index(pipe, game)
            if game.over:
                pipe.srem(f"{self.prefix}active", game.id)
            else:
                pipe.sadd(f"{self.prefix}active", game.id)
            if wake:
                pipe.publish(wake_channel(self.prefix), game.id)
            await pipe.execute()

    async def active_games(self) -> AsyncIterator[Game]:
        ids = [
            i.decode() if isinstance(i, bytes) else i
            async for i in self.redis.sscan_iter(f"{self.prefix}active", count=1000)
        ]
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            for text in await self.redis.mget([self.key(i) for i in chunk]):
                if text is not None:
                    yield decode_game(text)

    async def due(self, until: float) -> list[Due]:
        got: list[Any] = await self.redis.zrange(
            f"{self.prefix}due", "-inf", until, byscore=True, withscores=True
        )
        ids = [i.decode() if isinstance(i, bytes) else str(i) for i, _ in got]
        versions = await self.redis.hmget(f"{self.prefix}due:v", ids) if ids else []
        return [
            Due(game_id, float(pair[1]), None if v is None else int(v))
            for game_id, pair, v in zip(ids, got, versions, strict=True)
        ]

    async def load(self, game_id: str) -> Game | None:
        text = await self.redis.get(self.key(game_id))
        return None if text is None else decode_game(text)


class RedisService:
    """DeadlineSink over `RedisGames`: applies deadlines atomically, once."""

    def __init__(self, games: RedisGames, clock: Callable[[], float] = time.time) -> None:
        self.games = games
        self.redis = games.redis
        self.prefix = games.prefix
        self.clock = clock
        self.who = f"pid{os.getpid()}"

    async def submit_deadline(self, game_id: str, phase_seq: int, idempotency_key: str) -> None:
        game_key = self.games.key(game_id)
        done_key = f"{self.prefix}done:{idempotency_key}"
        async with self.redis.pipeline(transaction=True) as pipe:
            while True:
                try:
                    await pipe.watch(game_key, done_key)
                    if await pipe.exists(done_key):
                        return  # already took effect
                    text = await pipe.get(game_key)
                    if text is None:
                        return
                    game = decode_game(text)
                    result = apply(game, A.Deadline(None, phase_seq), self.clock())
                    if not isinstance(result, Accepted):
                        return  # stale or early: the core changes nothing
                    new = result.state
                    entry = json.dumps(
                        {"game": game_id, "seq": phase_seq, "by": self.who, "at": self.clock()}
                    )
                    pipe.multi()  # type: ignore[no-untyped-call]
                    pipe.set(game_key, encode_game(new))
                    pipe.set(done_key, self.who, ex=KEY_TTL)
                    pipe.rpush(f"{self.prefix}applied", entry)
                    self.games.index(pipe, new)
                    if new.over:
                        pipe.srem(f"{self.prefix}active", game_id)
                    pipe.publish(wake_channel(self.prefix), game_id)
                    await pipe.execute()
                    return
                except WatchError:
                    continue  # someone else changed the game: look again

    async def send_reminder(self, game_id: str, phase_seq: int, seats: tuple[int, ...]) -> None:
        entry = json.dumps(
            {
                "game": game_id,
                "seq": phase_seq,
                "seats": list(seats),
                "by": self.who,
                "at": self.clock(),
            }
        )
        await self.redis.rpush(f"{self.prefix}reminders", entry)

    async def applied(self) -> list[dict[str, Any]]:
        """Every deadline that took effect, oldest first (for tests)."""
        return [json.loads(x) for x in await self.redis.lrange(f"{self.prefix}applied", 0, -1)]


def from_env(redis: Redis, prefix: str) -> tuple[RedisGames, RedisService]:
    """The runner's `--ports` factory for these stand-in ports."""
    games = RedisGames(redis, prefix)
    return games, RedisService(games)
