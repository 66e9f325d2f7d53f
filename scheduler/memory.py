"""In-memory ports: a game store and a stand-in game service, for tests and the bench.

`MemoryService` does what the real service does with a deadline: it applies
`Deadline(None, seq)` through the core at its clock's time, keeps the accepted
state and remembers the idempotency key, so tests can count how many deadlines
took effect. It also hands every accepted transition to its listeners (the
scheduler's `on_transition`), as the real service will.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from typing import NamedTuple

from gameflow.core import actions as A
from gameflow.core.engine import apply
from gameflow.core.events import Event
from gameflow.core.result import Accepted, Rejected
from gameflow.core.state import Game
from scheduler.plan import next_instant
from service.ports import Due

Listener = Callable[[Game, tuple[Event, ...]], None]


class MemoryGames:
    """Games by id; `active_games` yields those not over."""

    def __init__(self, games: list[Game] | None = None) -> None:
        self.games: dict[str, Game] = {g.id: g for g in games or ()}
        self.loads = 0  # games loaded (and, in a real store, decoded)

    def put(self, game: Game) -> None:
        self.games[game.id] = game

    async def active_games(self) -> AsyncIterator[Game]:
        for game in list(self.games.values()):
            if not game.over:
                yield game

    async def due(self, until: float) -> list[Due]:
        """The deadline index as the stores keep it, worked out from the states
        (a put is a commit: its entry moves with it). Loads nothing (`loads`)."""
        out = []
        for game in self.games.values():
            at = next_instant(game)
            if at is not None and at <= until:
                out.append(Due(game.id, at, game.version))
        return sorted(out, key=lambda d: (d.at, d.game_id))

    async def load(self, game_id: str) -> Game | None:
        self.loads += 1
        return self.games.get(game_id)


class Submission(NamedTuple):
    game_id: str
    seq: int
    key: str
    at: float  # the service clock when it arrived
    code: str  # "accepted", "duplicate" or the core's refusal code


class MemoryService:
    """The deadline and reminder sink over `MemoryGames`, with an injected clock."""

    def __init__(self, games: MemoryGames, clock: Callable[[], float] = time.time) -> None:
        self.games = games
        self.clock = clock
        self.keys: set[str] = set()
        self.submissions: list[Submission] = []
        self.reminders: list[tuple[str, int, tuple[int, ...], float]] = []
        self.listeners: list[Listener] = []

    @property
    def accepted(self) -> list[Submission]:
        return [s for s in self.submissions if s.code == "accepted"]

    def act(self, game_id: str, action: A.Action) -> Accepted[Game] | Rejected:
        """Apply any input at the clock's time (tests drive pauses, votes, ...)."""
        result = apply(self.games.games[game_id], action, self.clock())
        if isinstance(result, Accepted):
            self.games.put(result.state)
            for listener in self.listeners:
                listener(result.state, result.events)
        return result

    async def submit_deadline(self, game_id: str, phase_seq: int, idempotency_key: str) -> None:
        now = self.clock()
        if idempotency_key in self.keys:
            self.submissions.append(
                Submission(game_id, phase_seq, idempotency_key, now, "duplicate")
            )
            return
        result = self.act(game_id, A.Deadline(None, phase_seq))
        code = "accepted" if isinstance(result, Accepted) else result.code
        if isinstance(result, Accepted):
            self.keys.add(idempotency_key)
        self.submissions.append(Submission(game_id, phase_seq, idempotency_key, now, code))

    async def send_reminder(self, game_id: str, phase_seq: int, seats: tuple[int, ...]) -> None:
        self.reminders.append((game_id, phase_seq, seats, self.clock()))
