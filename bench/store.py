"""Store benchmark: inputs applied and persisted per second through the real
GameService, with p50/p99/max latency, on Redis and on the embedded SQLite store,
each next to a floor of its own measured in the same run.

Not a test: it prints figures. Run
`.venv/bin/python bench/store.py [--redis URL] [--games 1000] [--per-game 20]`
(without `--redis` it starts a throw-away redis-server on loopback).

Floors (the least a durable input costs on that store, without our code):
- Redis: a raw load/save pair: GET then SET of a value the size of the game's
  snapshot, on a plain client (every submit makes at least these two trips).
- SQLite: the same shape on a bare `sqlite3` connection in the same folder, with
  the same journal and `synchronous` setting, through a one-thread executor as
  the store uses: a SELECT of the snapshot, then BEGIN IMMEDIATE, SELECT the
  version, INSERT the log row, UPDATE the snapshot, COMMIT.
SQLite is never divided by a Redis floor.

Floor and subject alternate in blocks (a game's inputs, then as many floor
operations; the next block the other way round), so the machine's drift falls
on both alike:
1. One hot game: whole 15-player Station games played one input at a time
   (load, apply, append + save atomically, notify), as a busy table does.
2. Many games: `--games` started 15-player games in `--blocks` blocks,
   `--concurrency` inputs in flight at once, each game's inputs in order (its
   own clock), the first `--per-game` inputs of each; the floor with the same
   concurrency.

Inputs come from a seeded random legal policy played once through the core; the
service then replays them at their recorded times (a fake clock per game), so
the figures are the store path plus the core, not the policy.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sqlite3
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from adapters.store.redis_store import RedisStore
from adapters.store.sqlite_store import SqliteStore
from bench.common import machine, ratio, redis_url, stats
from gameflow.core import actions as A
from gameflow.core.codec import encode_game
from gameflow.core.engine import apply, legal, new_game
from gameflow.core.result import Rejected
from gameflow.core.state import Game
from gameflow.replay import parse_step
from service.games import GameService
from service.ports import GameStore

Stream = list[tuple[A.Action, float]]
T0 = 1_700_000_000.0


def record_game(seed: int, players: int = 15) -> tuple[Game, Stream]:
    """A started game and the inputs of one whole playthrough, with their times."""
    rng = random.Random(seed)
    game = new_game("station", f"b{seed}", "host", seed, lang="en")
    for i in range(players):
        game = _ok(apply(game, A.Join(f"p{i}", None, f"P{i}"), T0))
    game = start = _ok(apply(game, A.Start("host"), T0))
    now, stream = T0, []
    while not game.over and len(stream) < 1000:
        now += 1.0
        specs = [(p, s) for p in game.players for s in legal(game, p)]
        if specs:
            p, spec = rng.choice(specs)
            step: dict[str, Any] = {"as": p, "do": spec.kind}
            step.update({f.name: rng.choice(f.options) for f in spec.fields})
            action = parse_step(game, step)
        else:
            now = max(now, game.phase.deadline or now)
            action = A.Deadline(None, game.phase.seq)
        result = apply(game, action, now)
        if isinstance(result, Rejected):
            continue
        stream.append((action, now))
        game = result.state
    return start, stream


def _ok(result: object) -> Game:
    assert not isinstance(result, Rejected), result
    state: Game = result.state  # type: ignore[attr-defined]
    return state


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


Op = Callable[[int], Awaitable[None]]


class RedisFloor:
    """GET + SET of a snapshot-sized value on a plain client."""

    def __init__(self, url: str, size: int) -> None:
        import redis.asyncio as aioredis

        self.client = aioredis.Redis.from_url(url, decode_responses=True)
        self.key = f"bench:{uuid.uuid4().hex}"
        self.value = "x" * size

    async def op(self, i: int) -> None:
        await self.client.get(self.key)
        await self.client.set(self.key, self.value)

    async def close(self) -> None:
        await self.client.delete(self.key)
        await self.client.aclose()


class SqliteFloor:
    """A load and a commit of the store's shape on a bare sqlite3 connection."""

    def __init__(self, path: str, synchronous: str, size: int) -> None:
        self.pool = ThreadPoolExecutor(max_workers=1)
        self.value = "x" * size
        self.seq = 0

        def open_db() -> sqlite3.Connection:
            db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(f"PRAGMA synchronous={synchronous}")
            db.execute("CREATE TABLE g (id TEXT PRIMARY KEY, version INTEGER, snapshot TEXT)")
            db.execute(
                "CREATE TABLE log (game TEXT, seq INTEGER, entry TEXT, PRIMARY KEY (game, seq))"
                " WITHOUT ROWID"
            )
            db.execute("INSERT INTO g VALUES ('g', 0, ?)", (self.value,))
            return db

        self.db = self.pool.submit(open_db).result()

    def _load(self) -> None:
        self.db.execute("SELECT snapshot FROM g WHERE id = 'g'").fetchone()

    def _commit(self) -> None:
        self.seq += 1
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        db.execute("SELECT version FROM g WHERE id = 'g'").fetchone()
        db.execute('INSERT INTO log VALUES (\'g\', ?, \'{"do":"vote","as":"p1"}\')', (self.seq,))
        db.execute("UPDATE g SET version = ?, snapshot = ? WHERE id = 'g'", (self.seq, self.value))
        db.execute("COMMIT")

    async def op(self, i: int) -> None:
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self.pool, self._load)
        await loop.run_in_executor(self.pool, self._commit)

    async def close(self) -> None:
        self.pool.submit(self.db.close).result()
        self.pool.shutdown()


class Tally:
    def __init__(self) -> None:
        self.lat: list[float] = []
        self.wall = 0.0


async def floor_block(op: Op, count: int, concurrency: int, tally: Tally) -> None:
    async def worker(k: int) -> None:
        for i in range(k):
            t = time.perf_counter()
            await op(i)
            tally.lat.append(time.perf_counter() - t)

    share = [
        count // concurrency + (1 if w < count % concurrency else 0) for w in range(concurrency)
    ]
    t0 = time.perf_counter()
    await asyncio.gather(*(worker(k) for k in share if k))
    tally.wall += time.perf_counter() - t0


async def play(
    store: GameStore, items: list[tuple[str, Stream]], concurrency: int, tally: Tally
) -> None:
    """Each game's inputs in order through the service, `concurrency` games at once."""
    queue: asyncio.Queue[tuple[str, Stream]] = asyncio.Queue()
    for item in items:
        queue.put_nowait(item)

    async def worker() -> None:
        while not queue.empty():
            game_id, stream = queue.get_nowait()
            clock = Clock()
            service = GameService(store, clock=clock)
            for n, (action, now) in enumerate(stream):
                clock.now = now
                t = time.perf_counter()
                out = await service.submit(game_id, action, key=f"k{n}")
                tally.lat.append(time.perf_counter() - t)
                assert out.accepted, out

    t0 = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    tally.wall += time.perf_counter() - t0


async def alternate(
    store: GameStore, op: Op, blocks: list[list[tuple[str, Stream]]], concurrency: int
) -> tuple[Tally, Tally]:
    subject, floor = Tally(), Tally()
    for b, items in enumerate(blocks):
        count = sum(len(stream) for _, stream in items)
        for first in (b % 2 == 0, b % 2 == 1):
            if first:
                await floor_block(op, count, concurrency, floor)
            else:
                await play(store, items, concurrency, subject)
    return subject, floor


async def bench_store(
    name: str, store: GameStore, op: Op, games: list[tuple[Game, Stream]], args: argparse.Namespace
) -> None:
    print(f"{name}:")
    hot = []
    for start, stream in games[: args.hot]:
        game = start._replace(id=f"hot{uuid.uuid4().hex[:10]}")
        await store.create(game)
        hot.append([(game.id, stream)])
    subject, floor = await alternate(store, op, hot, 1)
    print(stats("one hot game, sequential", subject.lat, subject.wall))
    print(stats("  its floor, alternating", floor.lat, floor.wall))
    print(ratio("  ratio", subject.lat, subject.wall, floor.lat, floor.wall))
    prepared = []
    for i in range(args.games):
        start, stream = games[i % len(games)]
        game = start._replace(id=f"m{i}x{uuid.uuid4().hex[:8]}")
        await store.create(game)
        prepared.append((game.id, stream[: args.per_game]))
    size = -(-len(prepared) // args.blocks)
    blocks = [prepared[i : i + size] for i in range(0, len(prepared), size)]
    subject, floor = await alternate(store, op, blocks, args.concurrency)
    label = f"{args.games} games, {args.concurrency} in flight"
    print(stats(label, subject.lat, subject.wall))
    print(stats("  its floor, alternating", floor.lat, floor.wall))
    print(ratio("  ratio", subject.lat, subject.wall, floor.lat, floor.wall))


async def main(args: argparse.Namespace) -> None:
    games = [record_game(seed) for seed in range(max(args.hot, 20))]
    total = sum(len(s) for _, s in games[: args.hot])
    size = max(len(encode_game(g)) for g, _ in games)
    print(machine())
    print(
        f"inputs: {args.hot} whole 15-player games ({total} inputs) for the hot game; "
        f"{args.games} games x {args.per_game} inputs for the many-games run; "
        f"floors move {size:,} characters (the largest starting snapshot)"
    )
    with redis_url(args.redis) as url:
        if url:
            prefix = f"bench{uuid.uuid4().hex[:8]}:"
            store = RedisStore.from_url(url, prefix=prefix)
            rfloor = RedisFloor(url, size)
            try:
                await bench_store(
                    "Redis store (floor: GET + SET pair)", store, rfloor.op, games, args
                )
            finally:
                async for key in store.client.scan_iter(match=prefix + "*", count=1000):
                    await store.client.delete(key)
                await store.close()
                await rfloor.close()
    for sync in ("FULL", "NORMAL"):
        with tempfile.TemporaryDirectory() as tmp:
            sqlite = SqliteStore(str(Path(tmp) / "bench.sqlite3"), synchronous=sync)
            sfloor = SqliteFloor(str(Path(tmp) / "floor.sqlite3"), sync, size)
            try:
                await bench_store(
                    f"SQLite store (WAL, synchronous={sync}; floor: bare sqlite3, same shape)",
                    sqlite, sfloor.op, games, args,
                )  # fmt: skip
            finally:
                await sqlite.close()
                await sfloor.close()


if __name__ == "__main__":
    from gameflow.games import register_all

    register_all()  # the composition root: the games this process plays

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--redis", default=None, help="Redis URL ('' to skip Redis; default: start one on loopback)"
    )
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--per-game", type=int, default=20)
    parser.add_argument("--hot", type=int, default=5, help="whole games played on the hot game")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument(
        "--blocks", type=int, default=8, help="alternating blocks of the many-games run"
    )
    asyncio.run(main(parser.parse_args()))
