"""Whole Station and Resistance campaigns over simulated calendar days.

Time is injected, never slept: each game is driven through the pure core phase
by phase (campaign_helpers.drive), in Europe/Oslo across the spring switch of
28 March 2027 (02:00 CET -> 03:00 CEST) and in Asia/Kolkata (UTC+05:30, no
DST). Every deadline must land on one of its phase's clock times in the zone,
never in quiet hours; every reminder must fall inside its phase and outside
quiet hours; one round (Station) or one mission (Resistance) per local day; and
re-loading the state mid-campaign through the codec must change nothing.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from campaign_helpers import drive, in_quiet, instant, reminders, started, wall

from gameflow.core.codec import decode_game, encode_game
from gameflow.core.events import Event
from gameflow.core.rules import rules_for
from gameflow.core.state import Game
from scheduler.plan import REMINDER, plan

pytestmark = pytest.mark.campaign

OSLO, KOLKATA = "Europe/Oslo", "Asia/Kolkata"

STATION_WINDOWS = {"mission": {"18:00"}, "discussion": {"20:00"}, "vote": {"22:00"}}
RESISTANCE_WINDOWS = {
    "proposal": {"10:00", "13:00", "16:00"},
    "team_vote": {"11:00", "14:00", "17:00"},
    "mission": {"21:00"},
}


class Checker:
    """Checks each phase as it is entered; remembers the deadlines."""

    def __init__(self, tz: str, windows: dict[str, set[str]]) -> None:
        self.tz, self.windows = tz, windows
        self.deadlines: list[tuple[str, int, float]] = []
        self.reminded = 0

    def __call__(self, game: Game, events: tuple[Event, ...]) -> None:
        phase = game.phase
        assert phase.deadline is not None
        local = wall(self.tz, phase.deadline)
        assert local.strftime("%H:%M") in self.windows[phase.name], (phase, local)
        assert local.second == 0
        assert not in_quiet(self.tz, phase.deadline), local
        # the scheduler sends the very reminders the core announces (to whoever
        # owes an input: in a discussion nobody does)
        sent = {j.at for j in plan(game, phase.started) if j.kind == REMINDER}
        owed = bool(rules_for(game.kind).awaiting(game))
        for at in reminders(events):
            assert at in sent or not owed
            assert phase.started < at < phase.deadline
            assert not in_quiet(self.tz, at), wall(self.tz, at)
            # an hour before (a minute in a phase under two hours), unless
            # that fell in quiet hours
            long = phase.deadline - phase.started >= 7200
            before = 3600 if long else 60
            assert at == phase.deadline - before or in_quiet(self.tz, phase.deadline - before)
            self.reminded += 1
        self.deadlines.append((phase.name, phase.round, phase.deadline))

    def dates(self, name: str) -> list[tuple[int, Any]]:
        return [(r, wall(self.tz, t).date()) for n, r, t in self.deadlines if n == name]


def station_campaign(tz: str, start: float, **options: Any) -> tuple[Game, Checker, Game]:
    game, events = started("station", tz, start, players=5, **options)
    check = Checker(tz, STATION_WINDOWS)
    end, _ = drive(game, events, check)
    return game, check, end


@pytest.mark.parametrize(
    ("tz", "start"),
    [(OSLO, instant(OSLO, 2027, 3, 26, 9, 0)), (KOLKATA, instant(KOLKATA, 2027, 6, 1, 8, 30))],
)
def test_a_station_campaign_plays_one_round_a_day_on_its_clock_times(tz: str, start: float) -> None:
    _first, check, end = station_campaign(tz, start)
    assert end.over and end.winner is not None
    missions = check.dates("mission")
    assert len(missions) >= 3  # a real campaign: several days
    # one round per local day, on consecutive days from the start's own day
    days = [d for _, d in missions]
    assert days[0] == wall(tz, start).date()
    assert [(b - a).days for a, b in itertools.pairwise(days)] == [1] * (len(days) - 1)
    # each round's discussion and vote close on its mission's day
    for name in ("discussion", "vote"):
        assert [d for _, d in check.dates(name)] == days[: len(check.dates(name))]
    assert check.reminded > 0
    if tz == OSLO:  # the campaign crossed the switch and kept the clock times
        offsets = {wall(tz, t).utcoffset() for _, _, t in check.deadlines}
        assert len(offsets) == 2


def test_a_station_campaign_started_late_begins_tomorrow() -> None:
    start = instant(OSLO, 2027, 3, 26, 17, 30)  # under an hour before the mission closes
    game, _ = started("station", OSLO, start)
    assert wall(OSLO, game.phase.deadline or 0).strftime("%m-%d %H:%M") == "03-27 18:00"


@pytest.mark.parametrize(
    ("tz", "start"),
    [(KOLKATA, instant(KOLKATA, 2027, 6, 1, 7, 30)), (OSLO, instant(OSLO, 2027, 3, 25, 8, 0))],
)
def test_a_resistance_campaign_plays_one_mission_a_day(tz: str, start: float) -> None:
    game, events = started("resistance", tz, start, players=5)
    check = Checker(tz, RESISTANCE_WINDOWS)
    end, seen = drive(game, events, check)
    assert end.over and end.winner is not None
    missions = check.dates("mission")
    assert len(missions) >= 3
    days = [d for _, d in missions]
    assert days == sorted(set(days))  # never two missions on one day
    # the proposals of a day alternate with their votes: 10-11, 13-14, 16-17
    proposals = [
        (wall(tz, t).date(), wall(tz, t).hour) for n, _, t in check.deadlines if n == "proposal"
    ]
    votes = [
        (wall(tz, t).date(), wall(tz, t).hour) for n, _, t in check.deadlines if n == "team_vote"
    ]
    assert [(d, h + 1) for d, h in proposals] == votes
    # a rejected team: the next proposal takes the day's next window, or the
    # next morning's first after the third
    rejected = [g for g in seen if g.phase.name == "proposal" and g.rules.rejections > 0]
    assert rejected, "no day with a rejection: the driver must reject some teams"
    for g in rejected:
        t = wall(tz, g.phase.deadline or 0)
        assert t.strftime("%H:%M") in RESISTANCE_WINDOWS["proposal"]


@pytest.mark.parametrize("game_kind", ["station", "resistance"])
def test_reloading_mid_campaign_changes_nothing(game_kind: str) -> None:
    start = instant(OSLO, 2027, 3, 26, 9, 0)
    windows = STATION_WINDOWS if game_kind == "station" else RESISTANCE_WINDOWS
    game, events = started(game_kind, OSLO, start)
    straight, seen = drive(game, events, Checker(OSLO, windows))
    for reload_at in (1, len(seen) // 2, len(seen) - 1):
        again, _ = drive(game, events, Checker(OSLO, windows), reload_at=reload_at)
        assert again == straight
        assert encode_game(again) == encode_game(straight)
    for g in seen:
        assert decode_game(encode_game(g)) == g


def test_a_window_in_quiet_hours_closes_when_they_end() -> None:
    """[decision] The vote set to 23:30 closes at 07:00 the next morning; the
    next round's mission is still that day's, at 18:00."""
    start = instant(OSLO, 2027, 6, 1, 9, 0)
    windows = {**STATION_WINDOWS, "vote": {"07:00"}}
    game, events = started("station", OSLO, start, campaign_vote="23:30")
    check = Checker(OSLO, windows)
    drive(game, events, check)
    votes = [wall(OSLO, t) for n, _, t in check.deadlines if n == "vote"]
    missions = [wall(OSLO, t) for n, _, t in check.deadlines if n == "mission"]
    assert votes[0].strftime("%m-%d %H:%M") == "06-02 07:00"
    assert missions[1].strftime("%m-%d %H:%M") == "06-02 18:00"


def test_fast_pacing_is_the_default_and_has_no_calendar() -> None:
    from gameflow.core.engine import new_game
    from gameflow.core.rules import rules_for

    for kind in ("station", "resistance"):
        options = rules_for(kind).default_options()
        assert options["pacing"] == "fast"
        assert options["timezone"] == "Europe/Oslo"
        assert options["quiet_hours"] == "23:00-07:00"
        game = new_game(kind, "g", "host", 1)
        assert game.option("campaign_mission") in ("18:00", "21:00")
