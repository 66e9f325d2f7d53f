"""The scheduler on the stores' deadline index (issue #31): a resync loads
only the games that fall due within the look-ahead and whose version moved;
a game further off is never decoded, and still fires on time.

The real game service and stores (SQLite, one Redis, one Redis with the
Cluster's one-slot rule); the loads are counted at the scheduler's source.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import time_machine

from gameflow.core import actions as A
from gameflow.core.state import Game
from scheduler.deadlines import DeadlineScheduler
from scheduler.plan import next_instant
from scheduler.ports import deadline_key
from scheduler.service_ports import SchedulerNotifier, ServiceSink, StoreSource
from service.games import GameService
from tests.scheduler_helpers import NoSink, clock, until
from tests.store_helpers import HOST, T0, store_fixture

pytestmark = pytest.mark.scheduler

make_store = store_fixture(("sqlite", "redis", "redis-cluster"))
__all__ = ["clock"]  # the fixture, used by name
H = 3600.0


class Counting(StoreSource):
    """The scheduler's source over the store, counting the games it loads."""

    def __init__(self, store: Any) -> None:
        super().__init__(store)
        self.loads: list[str] = []

    async def load(self, game_id: str) -> Game | None:
        self.loads.append(game_id)
        return await super().load(game_id)


async def started(service: GameService, seconds: float) -> str:
    """A started Station game whose mission ends `seconds` after its start."""
    options = {"auto_advance": False, "mission_seconds": seconds}
    created = await service.create_game("station", HOST, lang="en", code=False, options=options)
    gid = created.game.id
    for p in ("ana", "bo", "cy", "dag", "eli"):
        await service.submit(gid, A.Join(f"{gid}-{p}", None, p.title()))
    await service.submit(gid, A.Start(HOST))
    return gid


def test_a_resync_of_idle_games_loads_none(make_store: Any) -> None:
    """40 started games six hours from their deadline: resyncs load none of
    them. A game due soon is loaded once, and again only after a commit."""

    async def main() -> None:
        async with make_store() as store:
            service = GameService(store, clock=lambda: T0, next_instant=next_instant)
            idle = [await started(service, 6 * H) for _ in range(40)]
            source = Counting(store)
            sched = DeadlineScheduler(source, NoSink(), clock=lambda: T0, lookahead=900.0)
            for _ in range(3):
                assert await sched.rearm_all() == 0
            assert source.loads == []
            soon = await started(service, 600.0)  # its reminder at 540 s, its deadline at 600
            assert await sched.rearm_all() == 1
            assert source.loads == [soon]
            for _ in range(3):
                await sched.rearm_all()
            assert source.loads == [soon], "a resync loaded a game whose version had not moved"
            assert set(sched.armed(soon).values()) == {T0 + 540, T0 + 600}
            await service.submit(soon, A.Pause(HOST))
            await service.submit(soon, A.Resume(HOST))
            await sched.rearm_all()
            assert source.loads == [soon, soon]
            assert not any(sched.armed(g) for g in idle)
            sched.stop()

    asyncio.run(main())


def test_a_deadline_never_decoded_by_a_resync_fires_on_time(
    make_store: Any, clock: time_machine.Coordinates
) -> None:
    """A three-hour phase: resyncs every five minutes load nothing until its
    first instant (the reminder a minute before) comes into the window; then
    it is armed, and the deadline is submitted at its very second."""

    async def main() -> None:
        async with make_store() as store:
            service = GameService(store, next_instant=next_instant)
            gid = await started(service, 3 * H)
            deadline = T0 + 3 * H
            source = Counting(store)
            sink = ServiceSink(service, store)
            sched = DeadlineScheduler(source, sink, lookahead=900.0)
            service.notifiers.append(SchedulerNotifier(sched))
            try:
                assert await sched.start() == 0
                t = T0
                while t + 300 < deadline - 60 - 900:
                    t += 300
                    clock.move_to(t)
                    await sched.rearm_all()
                assert source.loads == []  # never decoded while it was far off
                while t < deadline - 300:
                    t += 300
                    clock.move_to(t)
                    await sched.rearm_all()
                assert source.loads == [gid]  # once, as it came into the window
                assert sched.armed(gid)[f"d|{gid}|1"] == deadline
                clock.move_to(deadline - 0.5)
                sched.aps.wakeup()
                await asyncio.sleep(0.05)
                assert (await service.load(gid)).phase.seq == 1
                clock.move_to(deadline)
                sched.aps.wakeup()

                async def ended() -> bool:
                    return (await service.load(gid)).phase.seq == 2

                await until(ended)
                log = await store.log(gid)
                fired = [e for e in log if e.get("key") == deadline_key(gid, 1)]
                assert [e["at"] for e in fired] == [deadline]
            finally:
                sched.stop()

    asyncio.run(main())
