"""The part of the games' test drivers that does not depend on the game: apply
an action at a fake clock, keep what was accepted, demand acceptance (`ok`, the
version up by one) and end a phase as its deadline would. Each game's helpers
(station_helpers.py, resistance_helpers.py) add its inputs and its `refused`."""

from __future__ import annotations

from gameflow.core import actions as A
from gameflow.core.engine import apply
from gameflow.core.events import Event
from gameflow.core.result import Accepted, Rejected
from gameflow.core.state import Game

T0 = 1_700_000_000.0


class GameDriver:
    """Applies actions to one game at a fake clock and checks each result."""

    def __init__(self, game: Game, now: float = T0) -> None:
        self.game = game
        self.now = now
        self.events: tuple[Event, ...] = ()
        self.log: list[tuple[A.Action, float]] = []

    def apply(self, action: A.Action) -> Accepted[Game] | Rejected:
        """Apply `action` at the current time; accepted ones are kept in `log`."""
        result = apply(self.game, action, self.now)
        if isinstance(result, Accepted):
            self.log.append((action, self.now))
            self.game = result.state
            self.events = result.events
        return result

    def ok(self, action: A.Action) -> tuple[Event, ...]:
        before = self.game.version
        result = self.apply(action)
        assert isinstance(result, Accepted), f"{action!r} refused: {result}"
        assert self.game.version == before + 1
        return result.events

    def deadline(self) -> tuple[Event, ...]:
        """End the current phase as its deadline would (the clock jumps to it)."""
        due = self.game.phase.deadline
        if due is not None:
            self.now = max(self.now, due)
        return self.ok(A.Deadline(None, self.game.phase.seq))
