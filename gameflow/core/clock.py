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
"""

from __future__ import annotations

from bisect import bisect_right
from datetime import date
from typing import Final

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
