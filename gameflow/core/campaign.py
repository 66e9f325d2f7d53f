"""Calendar pacing for every game: a day's phases close at clock times.

A game on `campaign` pacing plays one round per real day. Each game declares its
*windows* (`Rules.windows`): a window is a name, the phase it closes and the
option holding its clock time ("HH:MM" in the game's time zone), so the host
sets the times through the ordinary options and moves them later with the
`MoveWindow` host action. This module turns those clock times into deadlines:

- a deadline is the instant its clock time falls at on a local date of the
  game's zone (`gameflow.core.clock`: the zone arrives as a table of UTC offsets
  with the start, so a daily 18:00 stays 18:00 across daylight-saving switches);
- no deadline ever falls in the quiet hours (option `quiet_hours`, default
  "23:00-07:00", start inclusive, end exclusive; "" means none): [decision] a
  deadline that would fall inside them moves to the end of the quiet hours, so a
  window set to 23:30 closes at 07:00 the next morning, and a phase resumed late
  in the evening ends at 07:00 rather than at midnight;
- a reminder goes out `campaign_reminder_before` seconds before each deadline;
  [decision] one that would fall in quiet hours goes out when they end, and not
  at all when that is at or after the deadline (as the scheduler sends it);
- a day lost to a pause is skipped, never squeezed: the search for a window
  starts at the campaign's next day and walks on (at most MAX_SKIP days) to the
  first window leaving at least the least time (MIN_PHASE, FIRST_LEAST for the
  first phase of a day).

Everything is pure: time is an input, the zone is data in the state.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from typing import Any, Final, NamedTuple

from gameflow.core import actions as A
from gameflow.core.clock import (
    DAY,
    clock_text,
    day_date,
    local_day,
    offset_at,
    parse_clock,
    parse_quiet,
)
from gameflow.core.clock import at as clock_at
from gameflow.core.events import Event, Kind, announce, reminder, timer
from gameflow.core.legal import ActionSpec, Field
from gameflow.core.options import CLOCK, FLAG, QUIET, ZONE, Limit, one_of, seconds, span
from gameflow.core.result import Accepted, Rejected, accepted, reject
from gameflow.core.rules import rules_for
from gameflow.core.state import Game
from gameflow.core.text import N_, msg

CAMPAIGN: Final = "campaign"
FAST: Final = "fast"
PACINGS: Final = (CAMPAIGN, FAST)
DEFAULT_QUIET: Final = "23:00-07:00"
DEFAULT_REMINDER: Final = 3600.0
DIGEST_EVERY: Final = 1800.0  # SMS talk: at most one digest text a player this often
TEXTS_PER_DAY: Final = 12  # SMS talk: at most this many digest texts a player a day
MIN_PHASE: Final = 300.0  # a calendar-anchored phase never gets less than this
FIRST_LEAST: Final = 3600.0  # the first window of a day: else the day is tomorrow
MAX_SKIP: Final = 400  # days a search may skip: bounds it (a campaign lasts weeks)

# (window name, phase it closes, option holding its "HH:MM")
WindowDecl = tuple[str, str, str]


class Window(NamedTuple):
    """One coming close: window `name` closes phase `phase` at instant `closes`
    on local date `day` (an ordinal)."""

    day: int
    name: str
    phase: str
    closes: float


class Quiet(NamedTuple):
    """Whether an instant is in the quiet hours, and the instant they end (None
    when it is not)."""

    inside: bool
    ends: float | None


# The talk options every game takes (service/talk.py, adapters/sms/digest.py),
# also for a game that lists its campaign options itself (the Traitors).
TALK_OPTIONS: Final[dict[str, Any]] = {
    "talk_digest_every": DIGEST_EVERY,
    "talk_texts_per_day": TEXTS_PER_DAY,
    "talk_record": False,
}
TALK_LIMITS: Final[dict[str, Limit]] = {
    "talk_digest_every": seconds(0.0, DAY),
    "talk_texts_per_day": span(0, 96),
    "talk_record": FLAG,
}


def campaign_options(windows: dict[str, str], *, pacing: str = FAST) -> dict[str, Any]:
    """The options every calendar-paced game takes: the game's window options
    (`windows`: option name -> default clock time) and the shared ones."""
    return {
        "pacing": pacing,
        "timezone": "Europe/Oslo",
        "quiet_hours": DEFAULT_QUIET,
        "campaign_reminder_before": DEFAULT_REMINDER,
        "campaign_auto_advance": False,
        **TALK_OPTIONS,
        **windows,
    }


# One line each on the shared options, for a game's `option_help`
# (gameflow/core/definition.py); a window option's line is the game's.
CAMPAIGN_HELP: Final = {
    "pacing": N_("fast: one sitting, each phase on a timer; campaign: one round a day"),
    "timezone": N_("the time zone of the campaign's clock times, e.g. Europe/Oslo"),
    "quiet_hours": N_(
        'hours in which the bot texts nothing and no deadline falls, e.g. 23:00-07:00; "" for none'
    ),
    "campaign_reminder_before": N_("campaign: how long before a deadline the reminder goes"),
    "campaign_auto_advance": N_("campaign: a phase ends early once everyone has answered"),
    "talk_digest_every": N_(
        "campaign: an SMS player gets the talk merged into one text at most this often; 0 for a text a line"
    ),
    "talk_texts_per_day": N_(
        "campaign: the most talk texts an SMS player gets a day (more waits for the next day); 0 for no cap"
    ),
    "talk_record": N_(
        "the players' talk through the bot is kept with the game, for its export (off: it is not kept)"
    ),
}


def campaign_limits(windows: Iterable[str]) -> dict[str, Limit]:
    """The limits (gameflow.core.options) of the options `campaign_options`
    gives, `windows` being the names of the window options."""
    return {
        "pacing": one_of(*PACINGS),
        "timezone": ZONE,
        "quiet_hours": QUIET,
        "campaign_reminder_before": seconds(0.0, DAY),
        "campaign_auto_advance": FLAG,
        **TALK_LIMITS,
        **{name: CLOCK for name in windows},
    }


clock = parse_clock  # "HH:MM" as seconds: the one parser (gameflow.core.clock)


# -- the game's calendar -------------------------------------------------------------


def is_campaign(game: Game) -> bool:
    return bool(game.option("pacing") == CAMPAIGN)


def declared(game: Game) -> tuple[WindowDecl, ...]:
    """The game's windows, as its rules declare them (none: no calendar pacing)."""
    return rules_for(game.kind).windows


def quiet_of(game: Game) -> tuple[float, float] | None:
    """The game's quiet hours (None: none, or a game without the option).
    `validate` refuses malformed ones at the start; here they count as none."""
    try:
        return parse_quiet(game.option("quiet_hours"))
    except ValueError:
        return None


def validate(game: Game) -> None:
    """ValueError unless the pacing, the quiet hours and every window's clock
    time can be used (checked at the start)."""
    if game.option("pacing") not in PACINGS:
        raise ValueError("pacing")
    parse_quiet(game.option("quiet_hours"))
    for _, _, option in declared(game):
        clock(game.option(option))


def _in(quiet: tuple[float, float], seconds: float) -> bool:
    start, end = quiet
    if start < end:
        return start <= seconds < end
    return seconds >= start or seconds < end  # across midnight


def _local_seconds(game: Game, t: float) -> float:
    """The wall clock at `t`, in seconds after midnight."""
    return (t + offset_at(game.zone, t)) % DAY


def quiet_ahead(game: Game, now: float) -> Quiet:
    """Whether `now` is inside the game's quiet hours, and when they end."""
    quiet = quiet_of(game)
    if quiet is None:
        return Quiet(False, None)
    secs = _local_seconds(game, now)
    if not _in(quiet, secs):
        return Quiet(False, None)
    day = local_day(game.zone, now)
    if secs >= quiet[1]:  # before midnight: they end tomorrow
        return Quiet(True, clock_at(game.zone, day + 1, quiet[1]))
    end = clock_at(game.zone, day, quiet[1])
    if end <= now:  # the second pass of an hour the autumn switch repeats
        end = now + (quiet[1] - secs)
    return Quiet(True, end)


def fit(game: Game, t: float) -> float:
    """`t` itself outside quiet hours, else the instant they end."""
    for _ in range(3):  # a quiet end in a skipped hour may land in them again
        q = quiet_ahead(game, t)
        if q.ends is None:
            return t
        t = q.ends
    return t


def close_at(game: Game, day: int, seconds: float) -> float:
    """The deadline of a window at clock time `seconds` on local date `day`,
    moved out of quiet hours."""
    return fit(game, clock_at(game.zone, day, seconds))


def clocks(game: Game, phase: str) -> tuple[float, ...]:
    """The clock times of `phase`'s windows, in the day's order."""
    return tuple(clock(game.option(opt)) for _, p, opt in declared(game) if p == phase)


def next_close(
    game: Game, phase: str, now: float, *, least: float = MIN_PHASE, from_day: int | None = None
) -> float:
    """The earliest deadline of one of `phase`'s windows at least `least` after
    `now`, on local date `from_day` (default today) or later: days lost to a
    pause are skipped, not squeezed."""
    times = clocks(game, phase)
    if not times:
        raise KeyError(phase)
    day = local_day(game.zone, now) if from_day is None else from_day
    for _ in range(MAX_SKIP):
        found = [t for t in (close_at(game, day, s) for s in times) if t - now >= least]
        if found:
            return min(found)
        day += 1
    return fit(game, now + least)  # pragma: no cover (MAX_SKIP days without a window)


def seconds_for(
    game: Game,
    phase: str,
    fast: float,
    now: float,
    *,
    least: float = MIN_PHASE,
    from_day: int | None = None,
) -> float:
    """How long `phase`, entered at `now`, lasts: until its next window in a
    campaign, `fast` seconds otherwise."""
    if not is_campaign(game):
        return fast
    return next_close(game, phase, now, least=least, from_day=from_day) - now


def reminder_at(game: Game, started: float, deadline: float) -> float | None:
    """A campaign's reminder of a phase from `started` to `deadline`, as the
    scheduler sends it (scheduler.plan): `campaign_reminder_before` ahead (a
    phase too short for that: `reminder_before` ahead), moved to the end of the
    quiet hours when it falls in them, and None when that leaves it outside the
    phase (or the phase is too short for any reminder)."""
    before = float(game.option("campaign_reminder_before", DEFAULT_REMINDER))
    if before <= 0 or deadline - started < 2 * before:
        before = float(game.option("reminder_before", 60.0))
        if before <= 0 or deadline - started < 2 * before:
            return None
    t = fit(game, deadline - before)
    if quiet_ahead(game, t).inside:  # a quiet end in a skipped hour (fit gave up)
        return None
    return t if started < t < deadline else None


def rearm(game: Game, seq: int, deadline: float, now: float) -> tuple[Event, ...]:
    """A campaign phase's timer and its reminder (see `reminder_at`)."""
    at = reminder_at(game, now, deadline)
    if at is None:
        return (timer(seq, deadline),)
    return (timer(seq, deadline), reminder(seq, at))


def held_options(game: Game) -> tuple[tuple[str, Any], ...]:
    """The options as played: a campaign's phases keep their clock times (no
    automatic advancing once everyone has answered) unless the host chose
    `campaign_auto_advance`."""
    if not is_campaign(game) or game.option("campaign_auto_advance"):
        return game.options
    return tuple((k, False if k == "auto_advance" else v) for k, v in game.options)


# -- helpers for the channels ----------------------------------------------------------


def day_of(game: Game, now: float) -> date:
    """The local calendar date at `now` in the game's zone."""
    return day_date(local_day(game.zone, now))


def phase_window(game: Game) -> float | None:
    """The instant the current phase closes (None: no deadline, or paused)."""
    return game.phase.deadline


def days_ahead(game: Game, now: float, n: int) -> tuple[Window, ...]:
    """Every window closing in the next `n` local days from `now`'s, in time
    order (the coming calendar, for an .ics export)."""
    first = local_day(game.zone, now)
    out = [
        Window(day, name, phase, close_at(game, day, clock(game.option(opt))))
        for day in range(first, first + max(0, n))
        for name, phase, opt in declared(game)
    ]
    return tuple(sorted((w for w in out if w.closes >= now), key=lambda w: w.closes))


# -- the host moves a window -----------------------------------------------------------


def move_spec(game: Game) -> ActionSpec | None:
    """The host's MoveWindow, when the game is on campaign pacing."""
    windows = declared(game)
    if not windows or not is_campaign(game) or game.over:
        return None
    names = tuple(name for name, _, _ in windows)
    return ActionSpec(
        A.MoveWindow.kind, game.phase.seq, (Field("window", names), Field("clock", (), free=True))
    )


def move_window(game: Game, action: A.Action, now: float) -> Accepted[Game] | Rejected:
    """Set window `action.window` to clock time `action.clock`. When the current
    phase is closing at that window, its deadline moves to the new time on the
    same local date (never sooner than MIN_PHASE from now, never in quiet
    hours); other windows take the new time the next time they are used."""
    assert isinstance(action, A.MoveWindow)
    if action.by != game.host:
        return reject("host_only", N_("Only the host can do that."))
    if game.over:
        return reject("over", N_("The game is over."))
    if not is_campaign(game):
        return reject("not_campaign", N_("Windows can be moved only in a campaign game."))
    decl = {name: (phase, opt) for name, phase, opt in declared(game)}
    if action.window not in decl:
        return reject(
            "bad_window", N_("This game has no window called {name}."), name=action.window
        )
    try:
        seconds = clock(action.clock)
    except ValueError:
        return reject("bad_clock", N_("Give a clock time as HH:MM, such as 18:00."))
    phase_name, option = decl[action.window]
    old = clock(game.option(option))
    opts = dict(game.options)
    opts[option] = clock_text(seconds)
    moved = game._replace(options=tuple(sorted(opts.items())))
    events: list[Event] = []
    phase = game.phase
    deadline = phase.deadline
    if game.running and phase.name == phase_name and deadline is not None:
        day = local_day(game.zone, deadline)
        if close_at(game, day, old) == deadline:
            new = max(close_at(moved, day, seconds), fit(moved, now + MIN_PHASE))
            phase = phase._replace(deadline=new)
            moved = moved._replace(phase=phase)
            events.append(
                announce(
                    msg(
                        N_("The host moved this phase's deadline to {time}."),
                        time=clock_text(_local_seconds(moved, new)),
                    ),
                    phase.seq,
                )
            )
            events.extend(rearm(moved, phase.seq, new, now))
    if not events:
        text = msg(N_("The host moved a window of the day to {time}."), time=clock_text(seconds))
        events.append(announce(text, phase.seq))
    events.append(Event(Kind.CHANGED, phase=phase.seq))
    return accepted(moved, tuple(events))
