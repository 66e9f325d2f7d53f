"""The stores' deadline index (issue #31): each commit writes its game's next
instant with the snapshot, in the same atomic step, and `due` reads what falls
due without loading a game. Run against SQLite, one Redis, one Redis with the
Cluster's one-slot rule, and a real Cluster (marker `cluster`)."""

from __future__ import annotations

from typing import Any

import pytest

from gameflow.core import actions as A
from gameflow.core.engine import apply
from gameflow.core.state import Game
from scheduler.plan import next_instant
from service.ports import Due, due_floor
from tests.store_helpers import HOST, T0, lobby, ok, run, step, store_fixture, stored

pytestmark = pytest.mark.store

make_store = store_fixture(("sqlite", "redis", "redis-cluster", "cluster"))
make_redis = store_fixture(("redis", "redis-cluster", "cluster"))  # the Redis-only upgrade path
FAR = 1e12


class Killed(BaseException):
    """The worker dies here (nothing after this point of the commit runs)."""


async def commit(store: Any, before: Game, action: A.Action, at: float = T0) -> Game:
    after, entry = step(before, action, at)
    done = await store.commit(before.id, before.version, after, entry, due=next_instant(after))
    assert done.status.value == "ok", done
    return after


def test_each_commit_moves_its_index_entry(make_store: Any) -> None:
    async def go() -> None:
        async with make_store() as store:
            game = lobby(5)
            assert await store.create(game)
            assert await store.due(FAR) == []  # a lobby has nothing to fire
            started = await commit(store, game, A.Start(HOST))
            first = next_instant(started)
            assert first is not None and first < (started.phase.deadline or 0)
            assert await store.due(FAR) == [Due("g1", first, started.version)]
            assert await store.due(first - 0.001) == []
            paused = await commit(store, started, A.Pause(HOST), T0 + 10)
            assert await store.due(FAR) == []  # paused: nothing to fire
            resumed = await commit(store, paused, A.Resume(HOST), T0 + 100)
            moved = next_instant(resumed)
            assert moved is not None and moved > first
            assert await store.due(FAR) == [Due("g1", moved, resumed.version)]
            # a commit naming no instant indexes the floor: never later than the plan
            paused2, entry = step(resumed, A.Pause(HOST), T0 + 120)
            await store.commit("g1", resumed.version, paused2, entry)
            assert await store.due(FAR) == []
            again, entry = step(paused2, A.Resume(HOST), T0 + 130)
            await store.commit("g1", paused2.version, again, entry)
            floor = due_floor(again)
            assert floor is not None and floor <= (next_instant(again) or 0)
            assert await store.due(FAR) == [Due("g1", floor, again.version)]

    run(go())


def test_an_ended_game_leaves_the_index_and_the_active_set(make_store: Any) -> None:
    async def go() -> None:
        async with make_store() as store:
            game = await stored(store, 5)
            started = await commit(store, game, A.Start(HOST))
            assert [d.game_id for d in await store.due(FAR)] == ["g1"]
            over, entry = step(started, A.End(HOST))
            assert over.over
            await store.commit("g1", started.version, over, entry, due=next_instant(over))
            assert await store.due(FAR) == []
            assert await store.active_games() == []
            await store.finish("g1")  # the repair, again: nothing comes back
            assert await store.due(FAR) == []

    run(go())


def test_the_index_orders_many_games_by_instant(make_store: Any) -> None:
    async def go() -> None:
        async with make_store() as store:
            wanted = []
            for i, seconds in enumerate((900, 300, 600)):
                game = await stored(store, 5, game_id=f"g{i}", options={"mission_seconds": seconds})
                started = await commit(store, game, A.Start(HOST))
                wanted.append(Due(game.id, next_instant(started) or 0, started.version))
            got = await store.due(FAR)
            assert got == sorted(wanted, key=lambda d: d.at)
            assert [d.game_id for d in await store.due(T0 + 500)] == ["g1"]

    run(go())


def test_a_worker_killed_right_after_the_commits_store_call(
    make_store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The save and the index are one store call: a worker killed the moment
    it returns (before anything else of the commit runs) leaves the index with
    the new version's instant (one Redis, SQLite), or on a Cluster no later
    than it and marked "load me", repaired from the game after the grace."""

    async def go() -> None:
        async with make_store() as store:
            game = await stored(store, 5)
            started = await commit(store, game, A.Start(HOST))
            before = await store.due(FAR)
            # a host move that brings the deadline nearer: pause late, resume
            paused = await commit(store, started, A.Pause(HOST), T0 + 500)
            resumed, entry = step(paused, A.Resume(HOST), T0 + 501)
            at = next_instant(resumed)
            assert at is not None
            kill_after_store_call(store, monkeypatch)
            with pytest.raises(Killed):
                await store.commit("g1", paused.version, resumed, entry, due=at)
            assert await store.load("g1") == resumed  # the commit landed
            got = await store.due(FAR)
            if not getattr(store, "cluster", False):
                assert got == [Due("g1", at, resumed.version)]
                return
            # a Cluster: the index in another slot, written around the script
            assert len(got) == 1 and got[0].version is None and got[0].at <= at, (got, before)
            store.mark_grace = 0.0  # the commit's script landed long ago
            await store.due(FAR)  # repairs from the game's hash
            assert await store.due(FAR) == [Due("g1", at, resumed.version)]

    run(go())


def kill_after_store_call(store: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker dies as the commit's one store call returns: SQLite's
    transaction (the run on its thread), Redis's script (on a Cluster: after
    the mark before it, before the entry after it)."""
    if hasattr(store, "_commit"):
        script = store._commit

        async def dying(*, keys: list[str], args: list[Any]) -> Any:
            store._commit = script  # (once: the store's next user is a new worker)
            await script(keys=keys, args=args)
            raise Killed

        monkeypatch.setattr(store, "_commit", dying)
        return
    real = store._run

    async def run_then_die(fn: Any) -> Any:
        store._run = real
        await real(fn)
        raise Killed

    monkeypatch.setattr(store, "_run", run_then_die)


def test_sqlite_a_failure_inside_the_commit_moves_neither(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite: the index is a column of the game's row, written by the commit's
    UPDATE: a fault after it (the outbox's insert) rolls back both together."""
    from adapters.store import sqlite_outbox
    from adapters.store.sqlite_store import SqliteStore
    from service.outbox import OutboxMessage

    async def go() -> None:
        store = SqliteStore(str(tmp_path / "g.sqlite3"))
        try:
            game = await stored(store, 5)
            started = await commit(store, game, A.Start(HOST))
            was = await store.due(FAR)
            paused, entry = step(started, A.Pause(HOST), T0 + 5)

            def broken(*args: Any) -> int:
                raise RuntimeError("disk full")

            monkeypatch.setattr(sqlite_outbox, "write", broken)
            message = OutboxMessage("sms", "k1", {"to": "x"})
            with pytest.raises(RuntimeError):
                await store.commit("g1", started.version, paused, entry, outbox=[message], due=None)
            assert await store.load("g1") == started
            assert await store.due(FAR) == was
        finally:
            await store.close()

    run(go())


def test_sqlite_a_file_from_before_the_index_gets_it(tmp_path: Any) -> None:
    """An existing file: the column is added, every active game due at once."""
    import sqlite3

    from adapters.store.sqlite_store import SqliteStore

    path = str(tmp_path / "old.sqlite3")

    async def make() -> None:
        store = SqliteStore(path)
        game = await stored(store, 5)
        await commit(store, game, A.Start(HOST))
        await store.close()

    run(make())
    db = sqlite3.connect(path)
    db.execute("DROP INDEX games_due")
    db.execute("DROP INDEX games_unsettled")
    db.execute("ALTER TABLE games DROP COLUMN due")
    db.commit()
    db.close()

    async def reopen() -> list[Due]:
        store = SqliteStore(path)
        try:
            return await store.due(T0)
        finally:
            await store.close()

    got = run(reopen())
    assert [(d.game_id, d.at) for d in got] == [("g1", 0.0)]


def test_redis_games_from_before_the_index_are_entered_once(make_redis: Any) -> None:
    async def go() -> None:
        async with make_redis() as store:
            game = await stored(store, 5)
            started = await commit(store, game, A.Start(HOST))
            index, versions, _ = store.due_keys()
            await store.client.delete(index, versions)  # as before the index
            await store.client.hdel(store._game("g1"), "due")
            fresh = type(store)(store.client, prefix=store.prefix)
            assert [(d.game_id, d.at) for d in await fresh.due(T0)] == [("g1", 0.0)]
            await store.client.delete(index, versions)
            again = type(store)(store.client, prefix=store.prefix)
            assert await again.due(T0) == []  # entered once per Redis, not per worker
            assert started.version > 0

    run(go())


def test_a_game_stored_already_running_is_due_from_its_floor(make_store: Any) -> None:
    """`create` of a running game (benchmarks, tools): indexed at its floor."""

    async def go() -> None:
        async with make_store() as store:
            game = ok(apply(lobby(5), A.Start(HOST), T0))
            assert await store.create(game)
            assert await store.due(FAR) == [Due("g1", due_floor(game) or 0, game.version)]

    run(go())
