"""Store benchmark: inputs applied and persisted per second through the real
GameService, with p50/p99 latency, on Redis and on the embedded SQLite store.

Not a test: it prints figures. Run
`.venv/bin/python bench/store.py [--redis URL] [--games 1000] [--per-game 20]`.

1. Floor: the raw Redis round trip (one GET), sequential and with the same
   concurrency as the many-games run; every submit costs at least two of them
   (load, commit) plus one for the duplicate check.
2. One hot game: whole 15-player Station games played one input at a time
   (load, apply, append + save atomically, notify), as a busy table does.
3. Many games: `--games` started 15-player games, `--concurrency` inputs in
   flight at once, each game's inputs in order (its own clock), the first
   `--per-game` inputs of each.

Inputs come from a seeded random legal policy played once through the core; the
service then replays them at their recorded times (a fake clock per game), so
the figures are the store path plus the core, not the policy.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from adapters.store.redis_store import RedisStore
from adapters.store.sqlite_store import SqliteStore
from gameflow.core import actions as A
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


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def line(name: str, ops: int, seconds: float, lat: list[float]) -> str:
    return (
        f"  {name:<34} {ops / seconds:>8,.0f} ops/s   p50 {pct(lat, 0.5):6.2f} ms"
        f"   p99 {pct(lat, 0.99):6.2f} ms   ({ops} ops)"
    )


async def floor(url: str, n: int, concurrency: int) -> tuple[str, str, float]:
    import redis.asyncio as aioredis

    client = aioredis.Redis.from_url(url, decode_responses=True)
    key = f"bench:{uuid.uuid4().hex}"
    await client.set(key, "x" * 2000)
    lat: list[float] = []
    t0 = time.perf_counter()
    for _ in range(n):
        t = time.perf_counter()
        await client.get(key)
        lat.append(time.perf_counter() - t)
    seq = time.perf_counter() - t0
    clat: list[float] = []

    async def worker(k: int) -> None:
        for _ in range(k):
            t = time.perf_counter()
            await client.get(key)
            clat.append(time.perf_counter() - t)

    t0 = time.perf_counter()
    await asyncio.gather(*(worker(n // concurrency) for _ in range(concurrency)))
    conc = time.perf_counter() - t0
    await client.delete(key)
    await client.aclose()
    per_get = n / seq
    return (
        line("raw GET, sequential", n, seq, lat),
        line(f"raw GET, {concurrency} in flight", len(clat), conc, clat),
        per_get,
    )


async def hot_game(
    store: GameStore, games: list[tuple[Game, Stream]]
) -> tuple[int, float, list[float]]:
    lat: list[float] = []
    ops = 0
    t0 = time.perf_counter()
    for start, stream in games:
        clock = Clock()
        service = GameService(store, clock=clock)
        game = start._replace(id=f"hot{uuid.uuid4().hex[:10]}")
        await store.create(game)
        for n, (action, now) in enumerate(stream):
            clock.now = now
            t = time.perf_counter()
            out = await service.submit(game.id, action, key=f"k{n}")
            lat.append(time.perf_counter() - t)
            assert out.accepted, out
            ops += 1
    return ops, time.perf_counter() - t0, lat


async def many_games(
    store: GameStore, games: list[tuple[Game, Stream]], count: int, per_game: int, concurrency: int
) -> tuple[int, float, list[float]]:
    prepared = []
    for i in range(count):
        start, stream = games[i % len(games)]
        game = start._replace(id=f"m{i}x{uuid.uuid4().hex[:8]}")
        await store.create(game)
        prepared.append((game.id, stream[:per_game]))
    queue: asyncio.Queue[tuple[str, Stream]] = asyncio.Queue()
    for item in prepared:
        queue.put_nowait(item)
    lat: list[float] = []

    async def worker() -> int:
        done = 0
        while not queue.empty():
            game_id, stream = queue.get_nowait()
            clock = Clock()
            service = GameService(store, clock=clock)
            for n, (action, now) in enumerate(stream):
                clock.now = now
                t = time.perf_counter()
                out = await service.submit(game_id, action, key=f"k{n}")
                lat.append(time.perf_counter() - t)
                assert out.accepted, out
                done += 1
        return done

    t0 = time.perf_counter()
    ops = sum(await asyncio.gather(*(worker() for _ in range(concurrency))))
    return ops, time.perf_counter() - t0, lat


async def bench_store(
    name: str,
    store: GameStore,
    games: list[tuple[Game, Stream]],
    args: argparse.Namespace,
    per_get: float | None,
) -> None:
    print(f"{name}:")
    ops, secs, lat = await hot_game(store, games[: args.hot])
    print(line("one hot game, sequential", ops, secs, lat))
    if per_get:
        print(f"  {'':<34} {ops / secs / per_get:8.2f} x the sequential GET rate")
    ops, secs, lat = await many_games(store, games, args.games, args.per_game, args.concurrency)
    print(line(f"{args.games} games, {args.concurrency} in flight", ops, secs, lat))


async def main(args: argparse.Namespace) -> None:
    games = [record_game(seed) for seed in range(max(args.hot, 20))]
    total = sum(len(s) for _, s in games[: args.hot])
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs")
    print(
        f"inputs: {args.hot} whole 15-player games ({total} inputs) for the hot game; "
        f"{args.games} games x {args.per_game} inputs for the many-games run"
    )
    per_get = None
    if args.redis:
        seq, conc, per_get = await floor(args.redis, 5000, args.concurrency)
        print("Redis floor:")
        print(seq)
        print(conc)
        prefix = f"bench{uuid.uuid4().hex[:8]}:"
        store = RedisStore.from_url(args.redis, prefix=prefix)
        try:
            await bench_store("Redis store", store, games, args, per_get)
        finally:
            async for key in store.client.scan_iter(match=prefix + "*", count=1000):
                await store.client.delete(key)
            await store.close()
    for sync in ("FULL", "NORMAL"):
        with tempfile.TemporaryDirectory() as tmp:
            sqlite = SqliteStore(str(Path(tmp) / "bench.sqlite3"), synchronous=sync)
            try:
                await bench_store(
                    f"SQLite store (WAL, synchronous={sync})", sqlite, games, args, per_get
                )
            finally:
                await sqlite.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--redis",
        default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
        help="Redis URL ('' to skip Redis)",
    )
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--per-game", type=int, default=20)
    parser.add_argument("--hot", type=int, default=5, help="whole games played on the hot game")
    parser.add_argument("--concurrency", type=int, default=32)
    asyncio.run(main(parser.parse_args()))
