"""Adapters from the project's game service and store to the scheduler's ports.

Typed structurally (small Protocols below) so the scheduler imports nothing from
`bots` or `adapters` (bots/scheduler.py wires the Redis store in): if the
service's API moves, only this file follows it.

- `StoreSource(store)`: `GameSource` over a `GameStore` (its deadline index, `due`).
- `ServiceSink(service, store, notifiers)`: deadlines go through
  `GameService.submit(game_id, Deadline(None, seq), key=...)`, which stores the
  key with the transition (a second submission is answered as a duplicate) and
  lets the core refuse a stale or early one; reminders become `Kind.REMINDER`
  events, one per awaited player, handed to the outbound notifiers.
- `SchedulerNotifier(sched)`: a service notifier that re-arms a game in the same
  process after every committed transition; `WakeNotifier(redis, prefix)` does it
  across processes by publishing the game id on the leader's wake channel.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from gameflow.core import actions as A
from gameflow.core.events import Event, Kind
from gameflow.core.state import Game
from scheduler.deadlines import LOAD_AT_ONCE as LOAD_AT_ONCE  # (bench/scheduler.py)
from scheduler.deadlines import DeadlineScheduler
from scheduler.plan import schedule
from scheduler.redis_ports import wake_channel
from service.ports import Due


class _Store(Protocol):
    async def load(self, game_id: str) -> Game | None: ...

    async def due(self, until: float) -> list[Due]: ...


class _Service(Protocol):
    async def submit(self, game_id: str, action: A.Action, *, key: str | None = None) -> Any: ...


class _Notifier(Protocol):
    async def notify(self, game: Game, events: tuple[Event, ...]) -> None: ...


class StoreSource:
    """`GameSource` over a `GameStore`: the deadline index and loads."""

    def __init__(self, store: _Store) -> None:
        self.store = store

    async def due(self, until: float) -> Sequence[Due]:
        return await self.store.due(until)

    async def load(self, game_id: str) -> Game | None:
        return await self.store.load(game_id)


class ServiceSink:
    def __init__(
        self, service: _Service, store: _Store, notifiers: Sequence[_Notifier] = ()
    ) -> None:
        self.service = service
        self.store = store
        self.notifiers = list(notifiers)

    async def submit_deadline(self, game_id: str, phase_seq: int, idempotency_key: str) -> None:
        await self.service.submit(game_id, A.Deadline(None, phase_seq), key=idempotency_key)

    async def send_reminder(self, game_id: str, phase_seq: int, seats: tuple[int, ...]) -> None:
        game = await self.store.load(game_id)
        if game is None or game.phase.seq != phase_seq:
            return
        events = tuple(
            Event(Kind.REMINDER, game.players[s], None, phase_seq, game.phase.deadline)
            for s in seats
        )
        for notifier in self.notifiers:
            await notifier.notify(game, events)


class SchedulerNotifier:
    """Re-arm in this process after each committed transition (only enqueues work)."""

    def __init__(self, sched: DeadlineScheduler) -> None:
        self.sched = sched

    async def notify(self, game: Game, events: tuple[Event, ...]) -> None:
        if self.sched.running:
            self.sched.on_transition(game, events)


class WakeNotifier:
    """Tell the scheduler leader, wherever it runs, that a game changed.

    While this process leads (`local`: the term's armed scheduler, set and
    cleared by `scheduler.runner.lead`'s `on_term`), its own commits re-arm
    in-process from the state just committed: publishing them would only bring
    them back to this process, which would then load and decode the snapshot
    it had in hand (a Redis round trip, a pub/sub message, a load and a decode
    per input, measured with bench/knee.py). A commit made as the lease lapses
    unnoticed is caught by the next leader, which re-arms every game when its
    term starts, and by its periodic resync.

    Another process's wake-up is the game id and the committed state's
    schedule (`scheduler.plan.Schedule`): the leader loads and decodes the game
    only when that is not the schedule its jobs were made from (with two
    workers, re-arming the other's commits was 8-9 % of the leader's time)."""

    def __init__(self, redis: Any, prefix: str) -> None:
        self.redis = redis
        self.channel = wake_channel(prefix)
        self.local: DeadlineScheduler | None = None
        self.published = 0  # wake-ups sent to another process (tests, metrics)

    def lead(self, sched: DeadlineScheduler | None) -> None:
        """`on_term` for `scheduler.runner.candidate`."""
        self.local = sched

    async def notify(self, game: Game, events: tuple[Event, ...]) -> None:
        local = self.local
        if local is not None and local.running:
            local.on_transition(game, events)
            return
        self.published += 1
        # with the state's schedule (default policy): the leader skips the
        # load and decode when it is the one its jobs were made from
        # and its version: a resync then needs no load for it either
        text = f"{game.id} {schedule(game).text()} {game.version}"
        await self.redis.publish(self.channel, text)
