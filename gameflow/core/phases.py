"""Entering a phase: the absolute deadline and the timer/reminder events.

Game modules call `enter` whenever they move on, so every phase of every game
gets its deadline, its sequence number and its reminders the same way.
"""

from __future__ import annotations

from typing import Final

from gameflow.core import campaign
from gameflow.core.events import Event, reminder, timer
from gameflow.core.state import Game, Phase

# Phases are built directly, as events are: every phase change makes one.
_new: Final = tuple.__new__


def enter(
    game: Game, name: str, round_: int, seconds: float | None, now: float
) -> tuple[Phase, tuple[Event, ...]]:
    """The next phase (seq + 1) starting at `now`, and the events that arm it.

    `seconds` None means the phase has no deadline (it waits for the host).
    The reminder goes out `reminder_before` seconds before the deadline when the
    phase is long enough for a reminder to make sense.
    """
    seq = game.phase.seq + 1
    if seconds is None:
        return _new(Phase, (name, seq, round_, now, None, None)), ()
    deadline = now + seconds
    phase: Phase = _new(Phase, (name, seq, round_, now, deadline, None))
    return phase, rearm(game, seq, deadline, now)


def rearm(game: Game, seq: int, deadline: float, now: float) -> tuple[Event, ...]:
    """The timer of phase `seq`, and its reminder `reminder_before` seconds ahead
    when that leaves at least as long again before it (no reminder right after a
    phase starts or resumes). A campaign's reminder follows its own option and
    the quiet hours (gameflow.core.campaign.reminder_at)."""
    if campaign.is_campaign(game) and campaign.declared(game):
        return campaign.rearm(game, seq, deadline, now)
    before = float(game.option("reminder_before", 60))
    if before > 0 and deadline - now >= 2 * before:
        return (timer(seq, deadline), reminder(seq, deadline - before))
    return (timer(seq, deadline),)


def over(game: Game, now: float) -> Phase:
    phase: Phase = _new(Phase, ("over", game.phase.seq + 1, game.phase.round, now, None, None))
    return phase
