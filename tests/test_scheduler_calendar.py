"""Campaign calendars: DST-correct clock times in Europe/Oslo, quiet hours, morning
reminders, the zone table the core gets, and campaign deadlines fired as the state has them.

Oslo's 2026 switches: spring forward on 29 March (02:00 CET -> 03:00 CEST), fall
back on 25 October (03:00 CEST -> 02:00 CET).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from datetime import date, datetime, time
from zoneinfo import ZoneInfo

import pytest
import time_machine
from test_scheduler import Rig, run, station

from gameflow.core.clock import at as clock_at
from gameflow.core.clock import local_day
from gameflow.core.state import Game
from scheduler.plan import DEADLINE, REMINDER, Policy, fire_time, plan
from service.calendar import calendar, parse_clock, parse_quiet, zone_table

pytestmark = pytest.mark.scheduler

OSLO = ZoneInfo("Europe/Oslo")
CAL = calendar("Europe/Oslo")
H = 3600.0


def oslo(*args: int) -> float:
    return datetime(*args, tzinfo=OSLO).timestamp()  # type: ignore[misc]


def local(t: float) -> str:
    return datetime.fromtimestamp(t, OSLO).strftime("%m-%d %H:%M %Z")


def campaign(started: float, deadline: float, **extra: object) -> Game:
    """A Station game re-dressed as a campaign phase from `started` to `deadline`."""
    game = station()
    opts = {**dict(game.options), "pacing": "campaign", "timezone": "Europe/Oslo", **extra}
    phase = game.phase._replace(started=started, deadline=deadline)
    return game._replace(options=tuple(sorted(opts.items())), phase=phase)


# -- clock times across DST ---------------------------------------------------------


def test_a_daily_time_is_23_hours_apart_in_spring_and_25_in_autumn() -> None:
    spring = CAL.daily(oslo(2026, 3, 27, 12), oslo(2026, 3, 31, 12), time(8))
    assert [local(t) for t in spring] == [
        "03-28 08:00 CET",
        "03-29 08:00 CEST",
        "03-30 08:00 CEST",
        "03-31 08:00 CEST",
    ]
    assert [b - a for a, b in itertools.pairwise(spring)] == [23 * H, 24 * H, 24 * H]
    autumn = CAL.daily(oslo(2026, 10, 24, 0), oslo(2026, 10, 26, 12), time(8))
    assert [local(t) for t in autumn] == ["10-24 08:00 CEST", "10-25 08:00 CET", "10-26 08:00 CET"]
    assert [b - a for a, b in itertools.pairwise(autumn)] == [25 * H, 24 * H]


def test_a_missing_clock_time_moves_past_the_jump_and_a_doubled_one_takes_the_first() -> None:
    gap = CAL.at(date(2026, 3, 29), time(2, 30))  # does not exist
    assert local(gap) == "03-29 03:30 CEST"
    twice = CAL.at(date(2026, 10, 25), time(2, 30))  # exists twice
    assert local(twice) == "10-25 02:30 CEST"
    assert CAL.next_at(twice, time(2, 30)) == CAL.at(date(2026, 10, 26), time(2, 30))


def test_wall_clock_durations_keep_the_clock_time_across_the_switch() -> None:
    autumn = oslo(2026, 10, 24, 20, 30)
    assert local(CAL.wall_clock_add(autumn, 10.5 * H)) == "10-25 07:00 CET"
    assert CAL.wall_clock_add(autumn, 10.5 * H) - autumn == 11.5 * H
    spring = oslo(2026, 3, 28, 20, 30)
    assert local(CAL.wall_clock_add(spring, 10.5 * H)) == "03-29 07:00 CEST"
    assert CAL.wall_clock_add(spring, 10.5 * H) - spring == 9.5 * H
    ordinary = oslo(2026, 6, 1, 20, 30)
    assert CAL.wall_clock_add(ordinary, 10.5 * H) - ordinary == 10.5 * H


def test_quiet_hours_wrap_midnight_and_follow_the_local_clock() -> None:
    cal = calendar("Europe/Oslo", "22:00-08:00")
    assert cal.in_quiet(oslo(2026, 3, 28, 23))
    assert cal.in_quiet(oslo(2026, 3, 29, 7, 59))
    assert not cal.in_quiet(oslo(2026, 3, 29, 8))
    assert not cal.in_quiet(oslo(2026, 3, 29, 21, 59))
    # a reminder due in the short spring night moves to 08:00 summer time
    assert local(cal.after_quiet(oslo(2026, 3, 29, 1))) == "03-29 08:00 CEST"
    assert local(cal.after_quiet(oslo(2026, 10, 25, 1))) == "10-25 08:00 CET"
    day = calendar("Europe/Oslo", "12:00-13:00")
    assert day.in_quiet(oslo(2026, 6, 1, 12, 30)) and not day.in_quiet(oslo(2026, 6, 1, 13))


def test_clock_and_quiet_parsing_refuse_nonsense() -> None:
    assert parse_clock("07:05") == time(7, 5)
    assert parse_quiet(None) is None and parse_quiet("") is None
    for bad in ("7", "24:00", "12:60", "ab:cd"):
        with pytest.raises(ValueError):
            parse_clock(bad)
    for bad in ("22:00", "08:00-08:00"):
        with pytest.raises(ValueError):
            parse_quiet(bad)


# -- campaign reminders -----------------------------------------------------------


def test_campaign_reminders_come_an_hour_before_and_in_the_morning() -> None:
    game = campaign(oslo(2026, 6, 1, 8), oslo(2026, 6, 1, 17))
    jobs = plan(game, oslo(2026, 6, 1, 8))
    assert [(j.kind, local(j.at)) for j in jobs] == [
        (DEADLINE, "06-01 17:00 CEST"),
        (REMINDER, "06-01 09:00 CEST"),
        (REMINDER, "06-01 16:00 CEST"),
    ]


def test_a_morning_reminder_each_day_across_the_spring_switch() -> None:
    start = oslo(2026, 3, 27, 17)
    game = campaign(start, CAL.wall_clock_add(start, 3 * 24 * H), campaign_morning="09:30")
    reminders = [local(j.at) for j in plan(game, start) if j.kind == REMINDER]
    assert reminders == [
        "03-28 09:30 CET",
        "03-29 09:30 CEST",
        "03-30 09:30 CEST",
        "03-30 16:00 CEST",
    ]


def test_quiet_hours_move_or_drop_campaign_reminders() -> None:
    # night 20:30 -> 07:00: the hour-before reminder (06:00) falls in 22:00-08:00
    # and the quiet hours end after the deadline, so it is dropped
    night = campaign(oslo(2026, 6, 1, 20, 30), oslo(2026, 6, 2, 7), quiet_hours="22:00-08:00")
    assert [j.kind for j in plan(night, oslo(2026, 6, 1, 20, 30))] == [DEADLINE]
    # a morning reminder at 07:00 inside 22:00-08:00 moves to 08:00
    day = campaign(oslo(2026, 6, 1, 6), oslo(2026, 6, 1, 17), quiet_hours="22:00-08:00")
    policy = Policy(morning="07:00")
    jobs = plan(day, oslo(2026, 6, 1, 6), policy)
    assert [local(j.at) for j in jobs if j.kind == REMINDER] == [
        "06-01 08:00 CEST",
        "06-01 16:00 CEST",
    ]


# -- campaign deadlines on the wall clock ------------------------------------------


@pytest.fixture
def autumn_clock() -> Iterator[time_machine.Coordinates]:
    with time_machine.travel(oslo(2026, 10, 24, 20, 30), tick=False) as traveller:
        yield traveller


def test_an_autumn_night_ends_at_seven_local_time(autumn_clock: time_machine.Coordinates) -> None:
    """The core puts the night's end at 07:00 CET (11.5 real hours on the night
    the clocks go back); the scheduler fires exactly then, reminding an hour before."""
    started = oslo(2026, 10, 24, 20, 30)
    # No quiet hours: the 06:00 reminder would fall in the default 23:00-07:00.
    night = campaign(started, oslo(2026, 10, 25, 7, 0), quiet_hours="")
    assert night.phase.deadline == started + 11.5 * H
    assert local(fire_time(night) or 0) == "10-25 07:00 CET"

    async def body(rig: Rig) -> None:
        await rig.at(oslo(2026, 10, 25, 6, 0))
        assert [local(r[3]) for r in rig.service.reminders] == ["10-25 06:00 CET"]
        assert rig.service.submissions == []
        await rig.at(oslo(2026, 10, 25, 6, 59))
        assert rig.service.submissions == []
        await rig.at(oslo(2026, 10, 25, 7, 0))
        assert [(s.code, local(s.at)) for s in rig.service.submissions] == [
            ("accepted", "10-25 07:00 CET")
        ]

    run(autumn_clock, body, night)


def test_the_zone_table_gives_the_core_the_same_clock_times_as_zoneinfo() -> None:
    start = oslo(2026, 1, 1, 0, 0)
    table = zone_table("Europe/Oslo", start)
    assert [(local(t), off / H) for t, off in table][:3] == [
        ("01-01 00:00 CET", 1.0),
        ("03-29 03:00 CEST", 2.0),
        ("10-25 02:00 CET", 1.0),
    ]
    for day in range(0, 365, 3):
        for hh, mm in ((0, 0), (2, 30), (7, 0), (8, 0), (23, 59)):
            d = date(2026, 1, 1).toordinal() + day
            expected = datetime.combine(date.fromordinal(d), time(hh, mm)).replace(tzinfo=OSLO)
            got = clock_at(table, d, hh * H + mm * 60)
            assert got == expected.timestamp(), (date.fromordinal(d), hh, mm)
            assert local_day(table, got) == expected.date().toordinal()
    with pytest.raises(ValueError, match="unknown time zone"):
        zone_table("Mars/Olympus_Mons", start)


def test_a_bad_zone_or_clock_falls_back_to_the_states_deadline() -> None:
    start = oslo(2026, 6, 1, 8)
    bad_zone = campaign(start, start + 9 * H, timezone="Mars/Olympus_Mons")
    assert fire_time(bad_zone) == start + 9 * H
    assert [j.kind for j in plan(bad_zone, start)] == [DEADLINE, REMINDER]  # live rule
    bad_morning = campaign(start, start + 9 * H, campaign_morning="25:99")
    assert [local(j.at) for j in plan(bad_morning, start)] == [
        "06-01 17:00 CEST",
        "06-01 16:00 CEST",
    ]


def test_of_two_close_reminders_the_one_nearer_the_deadline_stays() -> None:
    start = oslo(2026, 6, 1, 8)
    game = campaign(start, oslo(2026, 6, 1, 10, 20), campaign_morning="09:00")
    assert [local(j.at) for j in plan(game, start) if j.kind == REMINDER] == ["06-01 09:20 CEST"]
