"""What to arm for one game: a pure function of the game state and the policy.

The game state is the source of truth. `plan(game, now)` lists the jobs the
scheduler should hold for a game right now (at most one deadline and a few
reminders); the scheduler diffs that against what it holds. Because the plan is
recomputed from state, a restart, a missed notification, a pause or a resume all
converge on the same jobs.

Live games get the core's reminder (`reminder_before`, default 60 s, when the
phase is at least twice that long). Campaigns (`pacing == "campaign"`) get one
an hour before the deadline and one at the morning time each day the phase
spans; reminders falling in quiet hours move to the end of the quiet hours, or
are dropped when that is too late.
"""

from __future__ import annotations

import json
import logging
from typing import NamedTuple

from gameflow.core.campaign import is_campaign
from gameflow.core.rules import rules_for
from gameflow.core.state import Game
from service.calendar import Calendar, calendar, parse_clock

log = logging.getLogger("scheduler")

DEADLINE = "deadline"
REMINDER = "reminder"
MIN_GAP = 1800.0  # campaign reminders closer than this to an earlier one are dropped


class Policy(NamedTuple):
    """Scheduler-wide defaults; a game's own options override them where it has them
    (`reminder_before`, `campaign_reminder_before`, `timezone`, `campaign_morning`,
    `quiet_hours`)."""

    live_before: float = 60.0
    campaign_before: float = 3600.0
    morning: str | None = "09:00"
    quiet: str | None = None  # e.g. "22:00-08:00"
    timezone: str = "Europe/Oslo"
    reminder_grace: float = 300.0  # a reminder later than this is not sent at all


class Pending(NamedTuple):
    """One job to hold: fire `kind` for phase `seq` of a game at instant `at`."""

    job_id: str
    kind: str
    seq: int
    at: float


def calendar_of(game: Game, policy: Policy) -> Calendar | None:
    """The game's calendar, or None if its zone or quiet hours can't be used (the
    game then runs on its state's deadlines alone rather than not at all)."""
    tz = game.option("timezone") or policy.timezone
    quiet = game.option("quiet_hours", policy.quiet)
    try:
        return calendar(str(tz), str(quiet) if quiet else None)
    except (ValueError, KeyError):  # ZoneInfoNotFoundError is a KeyError
        log.warning("game %s: unusable timezone %r or quiet hours %r", game.id, tz, quiet)
        return None


def fire_time(game: Game) -> float | None:
    """When the current phase's deadline should be submitted, or None if it has none.

    Always the state's deadline: campaign deadlines are already calendar instants
    in the game's time zone (the core computes them from the zone table it got
    with the start, see gameflow.core.clock), so a night that ends at 07:00 ends
    at 07:00 local time on the nights the clocks change, too.
    """
    phase = game.phase
    if not game.running or phase.paused or phase.deadline is None:
        return None
    return phase.deadline


def deadline_job_id(game_id: str, seq: int) -> str:
    return f"d|{game_id}|{seq}"


def reminder_job_id(game_id: str, seq: int, at: float) -> str:
    return f"r|{game_id}|{seq}|{at:.3f}"


def reminder_times(game: Game, fire: float, policy: Policy) -> list[float]:
    """The reminder instants of the current phase, in time order."""
    started = game.phase.started
    length = fire - started
    cal = calendar_of(game, policy) if is_campaign(game) else None
    if cal is None:
        before = float(game.option("reminder_before", policy.live_before))
        if before > 0 and length >= 2 * before:
            return [fire - before]
        return []
    times: list[float] = []
    # The game's own `campaign_reminder_before` (gameflow.core.campaign), if it has one.
    before = float(game.option("campaign_reminder_before", policy.campaign_before))
    if before > 0 and length >= 2 * before:
        times.append(fire - before)
    else:
        live = float(game.option("reminder_before", policy.live_before))
        if live > 0 and length >= 2 * live:
            times.append(fire - live)
    morning = game.option("campaign_morning", policy.morning)
    if morning:
        try:
            times.extend(cal.daily(started, fire, parse_clock(str(morning))))
        except ValueError:
            log.warning("game %s: unusable morning time %r", game.id, morning)
    # Latest first, so that of two reminders too close together the one nearer
    # the deadline (the hour-before one) is kept.
    kept: list[float] = []
    for t in sorted((cal.after_quiet(t) for t in times), reverse=True):
        if started < t < fire and (not kept or kept[-1] - t >= MIN_GAP):
            kept.append(t)
    return kept[::-1]


DEFAULT = Policy()


class Schedule(NamedTuple):
    """All that `plan` reads of a game (with the policy): two states with the
    same schedule get the same jobs at any `now`. A worker that commits a game
    sends it with its wake-up (scheduler/service_ports.WakeNotifier), so that
    the leader loads and decodes the game only when its schedule changed (an
    answer that leaves others still to answer changes none of it)."""

    seq: int
    fire: float | None  # None: nothing to arm
    awaiting: bool  # someone still owes an input (reminders are for them)
    reminders: tuple[float, ...]  # their instants, in time order

    def first(self) -> float | None:
        """The earliest instant to arm (a reminder, else the deadline): what
        the store's deadline index holds for the state (`next_instant`)."""
        if self.fire is None:
            return None
        return self.reminders[0] if self.reminders else self.fire

    def text(self) -> str:
        """The schedule as a wake-up carries it (`json` keeps every float exact)."""
        return json.dumps([self.seq, self.fire, self.awaiting, self.reminders])

    @classmethod
    def parse(cls, text: str) -> Schedule | None:
        """A schedule from `text()`; None for anything else (then load the game)."""
        try:
            seq, fire, awaiting, reminders = json.loads(text)
            return cls(int(seq), None if fire is None else float(fire), bool(awaiting),
                       tuple(float(t) for t in reminders))  # fmt: skip
        except (ValueError, TypeError):
            return None


def schedule(game: Game, policy: Policy = DEFAULT) -> Schedule:
    """What of `game` decides its jobs: the phase, its fire time, whether anyone
    owes an input, and the reminder instants."""
    seq = game.phase.seq
    fire = fire_time(game)
    if fire is None:
        return Schedule(seq, None, False, ())
    awaiting = bool(rules_for(game.kind).awaiting(game))
    return Schedule(
        seq, fire, awaiting, tuple(reminder_times(game, fire, policy)) if awaiting else ()
    )


def next_instant(game: Game, policy: Policy = DEFAULT) -> float | None:
    """`game`'s next instant for the store's deadline index (the service's
    `NextInstant` port): the earliest of its deadline and its reminders."""
    return schedule(game, policy).first()


def plan(game: Game, now: float, policy: Policy = DEFAULT) -> tuple[Pending, ...]:
    """The jobs to hold for `game` at `now`: its deadline and its future reminders.

    A deadline already past is still listed (it fires at once: nothing is dropped
    because the process was down); a reminder more than `reminder_grace` late is not.
    """
    return jobs(game.id, schedule(game, policy), now, policy)


def jobs(game_id: str, s: Schedule, now: float, policy: Policy = DEFAULT) -> tuple[Pending, ...]:
    """`plan` from a game's schedule."""
    if s.fire is None:
        return ()
    held = [Pending(deadline_job_id(game_id, s.seq), DEADLINE, s.seq, s.fire)]
    if now >= s.fire or not s.awaiting:
        # too late to remind anyone, or nobody owes an input (an input that made
        # someone owe one would come with a transition, and a re-plan)
        return tuple(held)
    for t in s.reminders:
        if t > now - policy.reminder_grace:
            held.append(Pending(reminder_job_id(game_id, s.seq, t), REMINDER, s.seq, t))
    return tuple(held)
