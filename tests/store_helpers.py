"""Helpers for the store and service tests: games in any state, played by a
seeded random policy that reads only the legal actions (so it works for every
game whose spec field names are its script-step keys), and a fake clock."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Awaitable, Callable, Iterable, Iterator
from typing import Any, TypeVar

import pytest

from gameflow.core import actions as A
from gameflow.core.engine import apply, legal, new_game
from gameflow.core.result import Rejected
from gameflow.core.state import Game
from gameflow.replay import parse_step
from service.ports import GameStore

T0 = 1_800_000_000.0
HOST = "tg:host"
T = TypeVar("T")


class FakeClock:
    """The service's clock in tests: moves only when told to."""

    def __init__(self, now: float = T0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def tick(self, seconds: float = 1.0) -> float:
        self.now += seconds
        return self.now


class VirtualTime(FakeClock):
    """An outbound queue's monotonic clock and its sleep in tests (call it, or
    its `clock`): sleeping moves the time on at once, never back, and lets the
    loop run as a real sleep would. `slept`: each sleep asked for."""

    def __init__(self) -> None:
        super().__init__(0.0)
        self.slept: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += max(0.0, seconds)
        await asyncio.sleep(0)


def run(coro: Awaitable[T]) -> T:
    """Run one coroutine to completion (the project has no pytest-asyncio)."""

    async def main() -> T:
        return await coro

    return asyncio.run(main())


def lobby(
    n: int = 5,
    *,
    seed: str = "s",
    kind: str = "station",
    game_id: str = "g1",
    options: dict[str, Any] | None = None,
) -> Game:
    """A game in its lobby with `n` players p1..pn (names P1..Pn) joined."""
    game = new_game(kind, game_id, HOST, seed, lang="en", options=options)
    for i in range(1, n + 1):
        game = ok(apply(game, A.Join(f"p{i}", None, f"P{i}"), T0))
    return game


async def stored(store: GameStore, n: int = 5, **kw: Any) -> Game:
    """A `lobby` (the same arguments) created in `store`."""
    game = lobby(n, **kw)
    await store.create(game)
    return game


def seated(game: Game, players: Iterable[str], now: float, host: str) -> Game:
    """`game` (a lobby) with `players` joined, each named by its id, then
    started by `host`: every step accepted, all at `now`."""
    for p in players:
        game = ok(apply(game, A.Join(p, None, p), now))
    return ok(apply(game, A.Start(host), now))


def ok(result: object) -> Game:
    assert not isinstance(result, Rejected), result
    state = result.state  # type: ignore[attr-defined]
    assert isinstance(state, Game)
    return state


def step(
    game: Game, action: A.Action, at: float = T0, key: str | None = None
) -> tuple[Game, dict[str, Any]]:
    """`action` applied to `game` at `at`, and the log entry the game service
    commits with it (idempotency key `key`): what a store test commits."""
    from service.games import log_entry

    return ok(apply(game, action, at)), log_entry(game, action, at, key)


def random_action(game: Game, rng: random.Random) -> A.Action | None:
    """A random legal player or host action, or None when nobody can act."""
    options: list[tuple[str, Any]] = []
    for p in (*game.players, game.host):
        for spec in legal(game, p):
            if spec.kind == "end" and rng.random() < 0.995:
                continue  # let most games reach their natural end
            options.append((p, spec))
    if not options:
        return None
    player, spec = rng.choice(options)
    step: dict[str, Any] = {"as": player, "do": spec.kind}
    for field in spec.fields:
        if field.free:  # the player's own words (a Traitors plea)
            step[field.name] = rng.choice(("I am loyal.", "Not me!", ""))
        else:
            step[field.name] = rng.choice(field.options)
    return parse_step(game, step)


def playthrough(
    seed: int, players: int = 6, *, max_steps: int = 400, options: dict[str, Any] | None = None
) -> Iterator[tuple[Game, A.Action, float]]:
    """Start a Station game and play it with a random legal policy (deadlines
    when nobody can act); yields (game before, action, time) for every accepted
    input, beginning with the lobby joins and the start."""
    rng = random.Random(seed)
    game = new_game("station", f"r{seed}", HOST, f"seed{seed}", lang="en", options=options)
    now = T0
    lobby_inputs: list[A.Action] = [A.Join(f"p{i}", None, f"P{i}") for i in range(players)]
    lobby_inputs.append(A.Start(HOST))
    for action in lobby_inputs:
        yield game, action, now
        game = ok(apply(game, action, now))
    for _ in range(max_steps):
        if game.over:
            return
        now += rng.choice((0.5, 1.0, 30.0))
        action = random_action(game, rng)
        if action is None:
            action = A.Deadline(None, game.phase.seq)
            now = max(now, game.phase.deadline or now)
        result = apply(game, action, now)
        if isinstance(result, Rejected):
            continue
        yield game, action, now
        game = result.state


def final(seed: int, players: int = 6) -> Game:
    game = None
    for before, action, now in playthrough(seed, players):
        game = ok(apply(before, action, now))
    assert game is not None
    return game


def redis_url_or_fail() -> str:
    """The tests' own Redis (tests/redis_server.py: given for tests, or started
    by them; never the machine's); missing, it skips locally and FAILS under CI."""
    from tests.redis_server import test_redis_url

    return test_redis_url()


def unique_prefix() -> str:
    """A key prefix of its own for one test, so runs never see each other's keys."""
    return f"mvtest:{uuid.uuid4().hex[:12]}:"


def cluster_url_or_fail() -> str:
    """The tests' own Redis Cluster (tests/redis_cluster.py: six nodes started
    by the tests); without redis-server it skips locally and FAILS under CI."""
    from tests.redis_cluster import test_cluster_url

    return test_cluster_url()


def redis_kinds(*kinds: str) -> list[Any]:
    """Fixture params: "cluster" (a real Redis Cluster) carries the marker `cluster`."""
    return [pytest.param(k, marks=pytest.mark.cluster) if k == "cluster" else k for k in kinds]


def run_then_drop(coro: Awaitable[T], url: str, prefix: str) -> T:
    """`run(coro)`, then drop every key under `prefix` on `url` (also when it fails)."""
    try:
        return run(coro)
    finally:
        run(drop_prefix(url, prefix))


async def drop_prefix(url: str, prefix: str) -> int:
    """Delete every key under `prefix` (test clean-up; on a cluster, every node's)."""
    from adapters.redis_url import async_client

    client = async_client(url)
    try:
        n = 0
        async for key in client.scan_iter(match=prefix + "*", count=500):
            n += await client.delete(key)
        return n
    finally:
        await client.aclose()


Factory = Callable[..., Awaitable[Any]]


def store_fixture(kinds: tuple[str, ...] = ("sqlite", "redis")) -> Any:
    """A pytest fixture (assign it at module level) giving `make(**kwargs)`: an
    async context manager that opens a store of each kind in `kinds` on this
    test's own SQLite file or Redis key prefix, cleaned up afterwards. Kinds:
    "sqlite", "redis", "redis-cluster" (one Redis, scripts checked to keep to
    one slot, as a Cluster requires) and "cluster" (a real Redis Cluster,
    marker `cluster`)."""
    from contextlib import asynccontextmanager

    @pytest.fixture(params=redis_kinds(*kinds))
    def make_store(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Any]:
        from adapters.store.redis_store import RedisStore
        from adapters.store.sqlite_store import SqliteStore

        kind = request.param
        if kind == "cluster":  # a real Redis Cluster: the store on a RedisCluster client
            url = cluster_url_or_fail()
        else:
            url = redis_url_or_fail() if kind.startswith("redis") else ""
        prefix = unique_prefix()

        @asynccontextmanager
        async def make(**kwargs: Any) -> Any:
            store: Any
            if kind.startswith("redis") or kind == "cluster":
                kwargs.pop("clock", None)  # Redis expires by its own clock
                store = RedisStore.from_url(url, prefix=prefix, **kwargs)
                if kind == "redis-cluster":  # as on a Cluster: scripts keep to one slot
                    store.cluster = True
                    store._commit = one_slot(store._commit)
            else:
                store = SqliteStore(str(tmp_path / "games.sqlite3"), **kwargs)
            try:
                yield store
            finally:
                await store.close()

        make.kind = kind  # type: ignore[attr-defined]
        make.prefix = prefix  # type: ignore[attr-defined]
        make.url = url  # type: ignore[attr-defined]
        yield make
        if url:
            run(drop_prefix(url, prefix))

    return make_store


def one_slot(script: Any) -> Any:
    """A Redis script that fails, as a Cluster would refuse it (CROSSSLOT),
    when its keys don't all carry one hash tag."""

    async def call(*, keys: list[str], args: list[Any]) -> Any:
        tags = {k[k.index("{") : k.index("}") + 1] if "{" in k else k for k in keys}
        assert len(tags) == 1, f"a script across slots: {keys}"
        return await script(keys=keys, args=args)

    return call
