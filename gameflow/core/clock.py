"""Wall-clock times of a game's time zone, from a table of UTC offsets.

A campaign game is scheduled in clock times ("breakfast at 08:00") of its time
zone, but the core reads no time-zone database (that would make a replay depend
on the machine's tzdata). So the zone arrives as data with the host's `start`:
a `Zone` is the sorted tuple of `(from_instant, utc_offset_seconds)` pairs in
force from the start on, computed by the service from `zoneinfo`
(`service.calendar.zone_table`). An empty table means UTC.

Clock times that a DST switch skips or repeats follow PEP 495 with fold=0, as
`service.calendar` does: a skipped time (02:30 on the spring-forward night)
means the instant a clock that had not jumped would show it, i.e. 03:30 summer
time; a repeated one (02:30 on the fall-back night) means its first occurrence.

Clock texts ("HH:MM", quiet hours "HH:MM-HH:MM") are parsed here and only here:
the core decides with this parser and `service.calendar` (the scheduler's
calendar) wraps it, so both read every setting the same way. [decision] The hour
takes one or two digits, the minutes exactly two: "7:05" is 07:05, "8:5" is
refused (it could mean 08:05 or 08:50).
"""

from __future__ import annotations

from bisect import bisect_right
from datetime import date
from typing import Any, Final

Zone = tuple[tuple[float, float], ...]

DAY: Final = 86_400.0
_EPOCH_ORDINAL: Final = date(1970, 1, 1).toordinal()


def offset_at(zone: Zone, t: float) -> float:
    """The UTC offset in force at instant `t` (the first entry's before it starts)."""
    if not zone:
        return 0.0
    i = bisect_right(zone, (t, float("inf"))) - 1
    return zone[max(i, 0)][1]


def local_day(zone: Zone, t: float) -> int:
    """The local calendar date at instant `t`, as a proleptic Gregorian ordinal."""
    return _EPOCH_ORDINAL + int((t + offset_at(zone, t)) // DAY)


def at(zone: Zone, day: int, seconds: float) -> float:
    """The instant the local clock shows `seconds` after midnight on date `day`
    (an ordinal); skipped and repeated clock times as in the module docstring."""
    wall = (day - _EPOCH_ORDINAL) * DAY + seconds
    # The offsets in force a day either side (switches are months apart). A
    # reading is valid when the offset at the instant it gives is its own.
    before, after = offset_at(zone, wall - DAY), offset_at(zone, wall + DAY)
    valid = [wall - o for o in {before, after} if offset_at(zone, wall - o) == o]
    if valid:
        return min(valid)  # a repeated time: its first occurrence
    return wall - before  # a skipped time: as a clock that had not jumped shows it


def day_date(day: int) -> date:
    """The date of an ordinal (for texts and tests)."""
    return date.fromordinal(day)


def parse_clock(text: Any) -> float:
    """Seconds after midnight of "HH:MM" (see the module docstring); ValueError
    if `text` is not such a clock time."""
    if not isinstance(text, str):
        raise ValueError(f"not a clock time (HH:MM): {text!r}")
    hours, sep, minutes = text.strip().partition(":")
    if not sep or not hours.isdigit() or not minutes.isdigit() or len(minutes) != 2:
        raise ValueError(f"not a clock time (HH:MM): {text!r}")
    h, m = int(hours), int(minutes)
    if not (0 <= h < 24 and 0 <= m < 60):
        raise ValueError(f"not a clock time (HH:MM): {text!r}")
    return h * 3600.0 + m * 60.0


def parse_quiet(text: Any) -> tuple[float, float] | None:
    """ "23:00-07:00" as (start, end) in seconds after midnight; None or ""
    means none; ValueError if malformed, empty or all day."""
    if text is None or text == "":
        return None
    if not isinstance(text, str):
        raise ValueError(f"quiet hours look like 23:00-07:00, not {text!r}")
    start, sep, end = text.partition("-")
    if not sep:
        raise ValueError(f"quiet hours look like 23:00-07:00, not {text!r}")
    a, b = parse_clock(start), parse_clock(end)
    if a == b:
        raise ValueError(f"quiet hours must not be empty or all day: {text!r}")
    return a, b


def clock_text(seconds: float) -> str:
    """ "HH:MM" of `seconds` after midnight (the inverse of `parse_clock`)."""
    s = int(seconds) % int(DAY)
    return f"{s // 3600:02}:{s % 3600 // 60:02}"
