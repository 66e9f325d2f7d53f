"""A burst of missed deadlines drains (bench/scheduler.py found it did not).

10,000 deadlines missed while no scheduler ran all came due at the next start;
APScheduler started every job at once, their loads waited on the store's
connection pool and most failed, again at every re-arm. The scheduler now
loads at most `MAX_IN_FLIGHT` at a time. Here a source that, like a pool, fails
a load when too many are waiting shows that every deadline is submitted, once,
and that no more than `MAX_IN_FLIGHT` loads ever overlap.
"""

from __future__ import annotations

import asyncio

import pytest
import time_machine

from gameflow.core.state import Game
from scheduler.deadlines import MAX_IN_FLIGHT, DeadlineScheduler
from scheduler.memory import MemoryGames, MemoryService
from tests.test_scheduler import EPOCH, station

pytestmark = pytest.mark.scheduler

GAMES = 600
POOL = 128  # a load beyond this many waiting fails, as "No connection available"


class PooledGames(MemoryGames):
    """MemoryGames whose loads take a while and fail beyond `POOL` at once."""

    def __init__(self, games: list[Game]) -> None:
        super().__init__(games)
        self.now = 0
        self.most = 0
        self.failed = 0

    async def load(self, game_id: str) -> Game | None:
        if self.now >= POOL:
            self.failed += 1
            raise ConnectionError("No connection available")
        self.now += 1
        self.most = max(self.most, self.now)
        try:
            await asyncio.sleep(0.001)
            return await super().load(game_id)
        finally:
            self.now -= 1


def test_a_burst_of_missed_deadlines_drains() -> None:
    games = [station(f"g{i:04d}") for i in range(GAMES)]
    with time_machine.travel(EPOCH + 3600, tick=False):  # every deadline an hour ago

        async def go() -> tuple[PooledGames, MemoryService]:
            source = PooledGames(games)
            service = MemoryService(source)
            sched = DeadlineScheduler(source, service)
            service.listeners.append(sched.on_transition)
            await sched.start()
            try:
                for _ in range(400):
                    if len({s.game_id for s in service.accepted}) == GAMES:
                        break
                    sched.aps.wakeup()
                    await asyncio.sleep(0.01)
            finally:
                sched.stop()
            return source, service

        source, service = asyncio.run(go())
    assert len({s.game_id for s in service.accepted}) == GAMES
    assert len(service.accepted) == GAMES  # each once
    assert source.most <= MAX_IN_FLIGHT < POOL
    assert source.failed == 0
