"""Campaign calendars: wall-clock times in a game's time zone, DST-correct.

A campaign (one round per real day) is scheduled in clock times of the game's
time zone: "breakfast at 08:00", "reminders at 09:00", "no reminders between
22:00 and 08:00". The game state only carries absolute deadlines (seconds since
the epoch), so this module is where clock times become instants and back, with
`zoneinfo` deciding the offsets. Two DST rules matter:

- a clock time that does not exist (02:30 on the spring-forward night) means the
  same distance past the jump, as a clock that had not jumped would show it:
  02:30 becomes 03:30 summer time (PEP 495, fold=0);
- a clock time that exists twice (02:30 on the fall-back night) means its first
  occurrence (summer time).

So a daily 08:00 is 23 hours after the previous one across the spring switch and
25 hours across the autumn switch, and "the phase lasts until 07:00" stays 07:00
whichever night the clocks change.

It sits beside the service, which hands the core a game's zone table when the
game starts (`service.zones`); the scheduler plans its reminders' clock times
with it too, from the layer above.
"""

from __future__ import annotations

import math
from datetime import UTC, date, datetime, time, timedelta
from functools import lru_cache
from typing import NamedTuple
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from gameflow.core import clock as core_clock

MAX_DAYS = 400  # bounds every search: a campaign lasts weeks, never years


def _time(seconds: float) -> time:
    s = int(seconds)
    return time(s // 3600, s % 3600 // 60)


def parse_clock(text: str) -> time:
    """ "HH:MM" as a time of day, read by the core's parser
    (`gameflow.core.clock.parse_clock`, so "8:5" is refused); ValueError if malformed."""
    return _time(core_clock.parse_clock(text))


def parse_quiet(text: str | None) -> tuple[time, time] | None:
    """ "22:00-08:00" as (start, end) of quiet hours, read by the core's parser;
    None or "" means none."""
    span = core_clock.parse_quiet(text)
    return None if span is None else (_time(span[0]), _time(span[1]))


class Calendar(NamedTuple):
    """Clock times in one time zone, with optional quiet hours."""

    tz: ZoneInfo
    quiet: tuple[time, time] | None = None

    # -- instants and clock times ------------------------------------------------

    def local(self, t: float) -> datetime:
        """The wall-clock time at instant `t` (aware, in this zone)."""
        return datetime.fromtimestamp(t, self.tz)

    def at(self, day: date, clock: time) -> float:
        """The instant the wall clock shows `clock` on `day` (see the DST rules above)."""
        return datetime.combine(day, clock).replace(tzinfo=self.tz, fold=0).timestamp()

    def next_at(self, after: float, clock: time) -> float:
        """The first instant strictly after `after` at which the clock shows `clock`."""
        day = self.local(after).date() - timedelta(days=1)
        for _ in range(MAX_DAYS):
            t = self.at(day, clock)
            if t > after:
                return t
            day += timedelta(days=1)
        raise ValueError("no such clock time within the search bound")  # pragma: no cover

    def daily(self, start: float, end: float, clock: time) -> list[float]:
        """Every instant in (start, end) at which the clock shows `clock`."""
        out: list[float] = []
        t = self.next_at(start, clock)
        while t < end and len(out) < MAX_DAYS:
            out.append(t)
            t = self.next_at(t, clock)
        return out

    def wall_clock_add(self, start: float, seconds: float) -> float:
        """`start` plus `seconds` on the wall clock: 20:30 + 10.5 h is 07:00 local
        time even on the night the clocks change (when it is 9.5 or 11.5 real hours)."""
        naive = self.local(start).replace(tzinfo=None) + timedelta(seconds=seconds)
        return naive.replace(tzinfo=self.tz, fold=0).timestamp()

    # -- quiet hours ---------------------------------------------------------------

    def in_quiet(self, t: float) -> bool:
        """Whether instant `t` falls in the quiet hours (start inclusive, end exclusive)."""
        if self.quiet is None:
            return False
        start, end = self.quiet
        now = self.local(t).time()
        if start < end:
            return start <= now < end
        return now >= start or now < end  # quiet hours across midnight

    def after_quiet(self, t: float) -> float:
        """`t` itself outside quiet hours, else the instant the quiet hours end."""
        if self.quiet is None or not self.in_quiet(t):
            return t
        return self.next_at(t, self.quiet[1])


@lru_cache(maxsize=256)
def calendar(tz_name: str, quiet: str | None = None) -> Calendar:
    """A (cached) calendar for a zone name and quiet-hours text."""
    return Calendar(ZoneInfo(tz_name), parse_quiet(quiet))


def utc(t: float) -> datetime:
    return datetime.fromtimestamp(t, UTC)


def _offset(tz: ZoneInfo, t: float) -> float:
    delta = datetime.fromtimestamp(t, tz).utcoffset()
    return delta.total_seconds() if delta is not None else 0.0


def zone_table(tz_name: str, start: float, days: int = MAX_DAYS) -> tuple[tuple[float, float], ...]:
    """The UTC offsets of zone `tz_name` from `start` for `days` days, as the
    core's `Zone` table: `(from_instant, offset)` pairs, the first at `start`,
    then one per switch, found to the second. This is how a campaign's clock
    times reach the pure core (gameflow.core.clock); ValueError for an unknown zone."""
    try:
        tz = ZoneInfo(tz_name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ValueError(f"unknown time zone: {tz_name!r}") from exc
    table = [(float(start), _offset(tz, start))]
    # Switches are months apart, each at a whole second: probed every 6 hours
    # on whole seconds, each found by bisection on whole seconds. (On the
    # start's fraction, a bisection whose ends were 1-2 s apart never moved:
    # a game started a fraction of a second past a multiple of 6 hours before
    # a switch hung its worker.)
    step = 6 * 3600
    t = math.floor(start)
    end = t + days * 86_400
    while t < end:
        nxt = min(t + step, end)
        if _offset(tz, nxt) != table[-1][1]:
            lo, hi = t, nxt  # the switch lies in (lo, hi]
            while hi - lo > 1:
                mid = (lo + hi) // 2
                lo, hi = (mid, hi) if _offset(tz, mid) == table[-1][1] else (lo, mid)
            table.append((float(hi), _offset(tz, hi)))
        t = nxt
    return tuple(table)
