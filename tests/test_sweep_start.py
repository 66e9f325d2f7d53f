"""A start's sweep on the embedded store (issue #31, item 1): `muldvarp serve`
repairs the active set before its scheduler starts (bots/serve.py), and used
to load and decode every active game for it, so a worker holding 100,000 idle
campaigns took 23 s to serve. Only a game without an instant in the deadline
index can be active and over (SqliteStore.unsettled), so the sweep reads
those: a start loads none of the games waiting on a deadline, and a game left
active and over is still finished.

The loads are counted at the store; the real game service and stores.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from bots.serve import EmbeddedScheduler
from gameflow.core.state import Game
from scheduler.plan import next_instant
from service.games import GameService
from tests.store_helpers import final, run, store_fixture
from tests.test_scheduler_index import started

pytestmark = pytest.mark.scheduler

make_store = store_fixture(("sqlite", "redis"))
make_sqlite = store_fixture(("sqlite",))
H = 3600.0


def counting(store: Any) -> list[str]:
    """Count the store's loads from here on (the sweep and scheduler use `load`)."""
    loads: list[str] = []
    inner = store.load

    async def load(game_id: str) -> Game | None:
        loads.append(game_id)
        game: Game | None = await inner(game_id)
        return game

    store.load = load
    return loads


class Gauge:
    def set(self, value: float) -> None:
        self.value = value


def test_a_start_on_many_idle_games_loads_none(make_sqlite: Any) -> None:
    """60 started games six hours from their deadline: the embedded
    scheduler's start (its sweep, then arming from the index) loads none of
    them; the lobby beside them is the one game the sweep reads."""

    async def go() -> None:
        async with make_sqlite() as store:
            service = GameService(store, next_instant=next_instant)  # as bots/ wire it
            idle = [await started(service, 6 * H) for _ in range(60)]
            waiting = (await service.create_game("station", "tg:77", lang="en")).game.id
            loads = counting(store)
            settings = SimpleNamespace(scheduler_resync=300.0, contacts_retention_hours=24.0)
            rt = SimpleNamespace(
                store=store,
                service=service,
                settings=settings,
                metrics=SimpleNamespace(leader=Gauge()),
                sms_directory=None,
            )
            sched = EmbeddedScheduler(rt)  # type: ignore[arg-type]
            await sched.start()
            try:
                assert sched.status() == "embedded"
                assert not set(loads) & set(idle), "a start decoded an idle campaign"
                assert loads == [waiting]
                assert sorted(await store.active_games()) == sorted([*idle, waiting])
            finally:
                await sched.stop()

    run(go())


def test_a_game_left_active_and_over_is_still_finished(make_store: Any) -> None:
    """A game stored over but still in the active set (what a crash between
    a commit and its finish leaves on Redis; on SQLite a commit finishes in
    its transaction, so only a game stored over is left so): the sweep
    finishes it, and leaves the running and waiting games alone."""

    async def go() -> None:
        async with make_store() as store:
            service = GameService(store, next_instant=next_instant)  # as bots/ wire it
            running = await started(service, 6 * H)
            waiting = (await service.create_game("station", "tg:77", lang="en")).game.id
            over = final(3)
            assert over.over
            assert await store.create(over)
            assert over.id in await store.active_games()
            swept = await service.sweep()
            assert over.id not in swept  # finished, not returned as still active
            assert over.id not in await store.active_games()
            assert sorted(await store.active_games()) == sorted([running, waiting])
            assert await service.sweep() in ([waiting], sorted([running, waiting]))

    run(go())
