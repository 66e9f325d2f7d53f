"""The scheduler wired to the project's real game service and SQLite store.

The deadline goes through `GameService.submit` with its idempotency key; the
service's notifier re-arms the next phase. (Adapters: `scheduler.service_ports`.)
"""

from __future__ import annotations

import asyncio

import pytest
import time_machine

from gameflow.core import actions as A
from gameflow.core.events import Event, Kind
from gameflow.core.state import Game
from scheduler.deadlines import DeadlineScheduler
from scheduler.ports import deadline_key
from scheduler.service_ports import SchedulerNotifier, ServiceSink, StoreSource
from tests.scheduler_helpers import clock, until

pytestmark = pytest.mark.scheduler

T0 = 1_800_000_000.0
HOST = "tg:host"
__all__ = ["clock"]  # the fixture, used by name


class Outbox:
    """A notifier that keeps what it was given."""

    def __init__(self) -> None:
        self.sent: list[tuple[int, tuple[Event, ...]]] = []

    async def notify(self, game: Game, events: tuple[Event, ...]) -> None:
        self.sent.append((game.version, events))


def test_deadlines_go_through_the_game_service_once(clock: time_machine.Coordinates) -> None:
    from adapters.store.sqlite_store import SqliteStore
    from service.games import GameService

    async def main() -> None:
        store = SqliteStore(":memory:")
        outbox = Outbox()
        service = GameService(store, [outbox])
        created = await service.create_game(
            "station", HOST, lang="en", code=False, options={"auto_advance": False}
        )
        gid = created.game.id
        for p in ("ana", "bo", "cy", "dag", "eli"):
            await service.submit(gid, A.Join(p, None, p.title()))
        await service.submit(gid, A.Start(HOST))
        sink = ServiceSink(service, store, [outbox])
        sched = DeadlineScheduler(StoreSource(store), sink)
        service.notifiers.append(SchedulerNotifier(sched))
        try:
            assert await sched.start() == 1
            game = await service.load(gid)
            assert game.phase.deadline == T0 + 600
            clock.move_to(T0 + 540)
            sched.aps.wakeup()

            # (the core's own REMINDER event from the start has no addressee)
            def sent() -> list[Event]:
                return [e for _, es in outbox.sent for e in es if e.kind is Kind.REMINDER and e.to]

            await until(lambda: sent())
            reminders = sent()
            assert sorted(e.to or "" for e in reminders) == ["ana", "bo", "cy", "dag", "eli"]
            clock.move_to(T0 + 600)
            sched.aps.wakeup()
            await until(lambda: sched.armed(gid).get(f"d|{gid}|2") == T0 + 780)
            game = await service.load(gid)
            assert (game.phase.name, game.phase.seq) == ("discussion", 2)
            # the same deadline again: the service answers it as a duplicate
            again = await service.submit(gid, A.Deadline(None, 1), key=deadline_key(gid, 1))
            assert again.duplicate
            assert (await service.load(gid)).version == game.version
        finally:
            sched.stop()
            await store.close()

    asyncio.run(main())
