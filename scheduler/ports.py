"""The scheduler's ports: where games come from and where firings go.

The scheduler never writes game state. It reads games (to know which deadlines
and reminders are pending) and hands two kinds of input to the game service: "the
phase `seq` of game G ran out of time" and "remind these seats". The service owns
the transition (`gameflow.core.engine.apply` with `Deadline(None, seq)`), which
refuses a stale or early deadline harmlessly, so the scheduler may fire twice or
late without changing the outcome. These protocols are deliberately small so the
real service and store can be adapted to them with a few lines. Which games to
arm comes from the store's deadline index (`GameSource.due`): each commit writes
its game's next instant there, so the scheduler loads a game only when it falls
due soon and its version moved, never every game.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from gameflow.core.state import Game
from service.ports import Due


class GameSource(Protocol):
    """Read access to the games (the store) and to its deadline index."""

    async def due(self, until: float) -> Sequence[Due]:
        """The games whose next instant (`scheduler.plan.next_instant`, as
        their last commit wrote it) is at or before `until`, with the version
        that wrote it (None: unknown, load the game). Nothing is decoded."""
        ...

    async def load(self, game_id: str) -> Game | None:
        """The current state of one game, or None if it is gone."""
        ...


class DeadlineSink(Protocol):
    """Write access through the game service."""

    async def submit_deadline(self, game_id: str, phase_seq: int, idempotency_key: str) -> None:
        """Submit `Deadline(None, phase_seq)`; the service dedupes on the key."""
        ...

    async def send_reminder(self, game_id: str, phase_seq: int, seats: tuple[int, ...]) -> None:
        """Remind the players in `seats` that phase `phase_seq` is about to end."""
        ...


def deadline_key(game_id: str, phase_seq: int) -> str:
    """The idempotency key of a deadline: one phase ends at most once."""
    return f"deadline:{game_id}:{phase_seq}"
