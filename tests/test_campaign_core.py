"""The core's calendar pacing (gameflow.core.campaign): quiet hours, reminders,
the channels' helpers, pausing over days, and the host moving a window.

zoneinfo is the oracle; the core only sees the zone table the service makes.
"""

from __future__ import annotations

import itertools
from datetime import date
from typing import Any

import pytest
from campaign_helpers import HOST, PEOPLE, in_quiet, instant, ok, started, wall
from hypothesis import given, settings
from hypothesis import strategies as hs

from bots.export import export_game
from gameflow.core import actions as A
from gameflow.core import campaign
from gameflow.core.clock import local_day
from gameflow.core.engine import apply, legal
from gameflow.core.events import Kind
from gameflow.core.result import Rejected
from gameflow.core.state import Game
from gameflow.replay import parse_step, run, step_of
from scheduler.plan import REMINDER, plan
from service.calendar import zone_table
from service.games import GameService
from tests.store_helpers import FakeClock, store_fixture
from tests.store_helpers import run as run_async

pytestmark = pytest.mark.campaign

OSLO = "Europe/Oslo"
ZONES = ("Europe/Oslo", "Asia/Kolkata", "America/St_Johns", "Australia/Sydney", "UTC")
T2027 = instant("UTC", 2027, 1, 1, 0, 0)


def at(tz: str, t: float | None) -> str:
    assert t is not None
    return wall(tz, t).strftime("%m-%d %H:%M")


def hhmm(minutes: int) -> str:
    return f"{minutes // 60:02}:{minutes % 60:02}"


_TABLES: dict[str, Any] = {}


def game_in(tz: str, quiet: str) -> Game:
    """A started Station campaign in zone `tz` whose quiet hours are `quiet`."""
    if tz not in _TABLES:
        _TABLES[tz] = started("station", tz, T2027)[0]
    game: Game = _TABLES[tz]
    opts = {**dict(game.options), "quiet_hours": quiet}
    return game._replace(options=tuple(sorted(opts.items())))


quiet_hours = hs.tuples(hs.integers(0, 1439), hs.integers(0, 1439)).filter(lambda q: q[0] != q[1])


@settings(max_examples=300, deadline=None)
@given(
    tz=hs.sampled_from(ZONES),
    quiet=quiet_hours,
    window=hs.integers(0, 1439),
    day=hs.integers(0, 364),
)
def test_no_deadline_falls_in_quiet_hours(
    tz: str, quiet: tuple[int, int], window: int, day: int
) -> None:
    q = (hhmm(quiet[0]), hhmm(quiet[1]))
    game = game_in(tz, f"{q[0]}-{q[1]}")
    d = date(2027, 1, 1).toordinal() + day
    t = campaign.close_at(game, d, window * 60.0)
    assert not in_quiet(tz, t, *q), (at(tz, t), q)
    raw = campaign.close_at(game._replace(options=(("quiet_hours", ""),)), d, window * 60.0)
    if not in_quiet(tz, raw, *q):
        assert t == raw  # outside quiet hours a window keeps its clock time
    else:
        assert wall(tz, t).strftime("%H:%M") == q[1] or t > raw  # moved to their end
    # and every phase entered at any time closes outside them too
    closes = campaign.next_close(game, "vote", raw - 7 * 3600.0)
    assert not in_quiet(tz, closes, *q)


@settings(max_examples=300, deadline=None)
@given(
    tz=hs.sampled_from(ZONES),
    quiet=quiet_hours,
    start=hs.integers(0, 364 * 24 * 60),
    length=hs.integers(0, 3 * 24 * 60),
    before=hs.sampled_from([600.0, 3600.0, 7200.0]),
)
def test_no_reminder_falls_in_quiet_hours(
    tz: str, quiet: tuple[int, int], start: int, length: int, before: float
) -> None:
    q = (hhmm(quiet[0]), hhmm(quiet[1]))
    game = game_in(tz, f"{q[0]}-{q[1]}")
    opts = {**dict(game.options), "campaign_reminder_before": before}
    game = game._replace(options=tuple(sorted(opts.items())))
    started_at = T2027 + start * 60.0
    deadline = started_at + length * 60.0
    t = campaign.reminder_at(game, started_at, deadline)
    if t is None:
        return
    assert started_at < t < deadline
    assert not in_quiet(tz, t, *q), (at(tz, t), q)
    if length * 60.0 >= 2 * before:
        if not in_quiet(tz, deadline - before, *q):
            assert t == deadline - before
        else:  # moved to the end of the quiet hours: the minute before was quiet
            switched = wall(tz, t).utcoffset() != wall(tz, t - 3600).utcoffset()
            assert t > deadline - before
            assert in_quiet(tz, t - 60.0, *q) or switched


def test_quiet_ahead_and_the_other_helpers() -> None:
    game, _ = started("station", OSLO, instant(OSLO, 2027, 3, 27, 9, 0))
    inside = campaign.quiet_ahead(game, instant(OSLO, 2027, 3, 27, 23, 30))
    assert inside.inside and at(OSLO, inside.ends) == "03-28 07:00"
    # the night of the switch is an hour shorter, and still ends at 07:00
    assert inside.ends == instant(OSLO, 2027, 3, 27, 23, 30) + 6.5 * 3600
    assert campaign.quiet_ahead(game, instant(OSLO, 2027, 3, 28, 7, 0)) == (False, None)
    assert campaign.quiet_ahead(game, instant(OSLO, 2027, 3, 28, 6, 59)).inside
    assert campaign.day_of(game, instant(OSLO, 2027, 3, 28, 0, 30)) == date(2027, 3, 28)
    assert campaign.phase_window(game) == instant(OSLO, 2027, 3, 27, 18, 0)
    coming = campaign.days_ahead(game, instant(OSLO, 2027, 3, 27, 19, 0), 3)
    assert [(w.name, at(OSLO, w.closes)) for w in coming] == [
        ("discussion", "03-27 20:00"),
        ("vote", "03-27 22:00"),
        ("mission", "03-28 18:00"),
        ("discussion", "03-28 20:00"),
        ("vote", "03-28 22:00"),
        ("mission", "03-29 18:00"),
        ("discussion", "03-29 20:00"),
        ("vote", "03-29 22:00"),
    ]
    assert all(w.day == local_day(game.zone, w.closes) for w in coming)
    assert campaign.days_ahead(game, instant(OSLO, 2027, 3, 27, 19, 0), 0) == ()


def test_parsing_clock_times_and_quiet_hours() -> None:
    assert campaign.clock("18:00") == 18 * 3600 and campaign.clock("7:05") == 7 * 3600 + 300
    for bad in ("24:00", "18.00", "", "18:5", "ab:cd", "18:60", None, 18):
        with pytest.raises(ValueError):
            campaign.clock(bad)
    assert campaign.parse_quiet("") is None
    assert campaign.parse_quiet("23:00-07:00") == (23 * 3600, 7 * 3600)
    for bad in ("23:00", "07:00-07:00", "x-y"):
        with pytest.raises(ValueError):
            campaign.parse_quiet(bad)


def test_a_bad_campaign_setting_is_refused_at_the_start() -> None:
    """Refused when the game is made (gameflow.core.options); a game holding
    one anyway (stored before that check) is refused at the start."""
    for kind in ("station", "resistance"):
        for option, value in (("quiet_hours", "late"), ("campaign_mission", "25:00")):
            from gameflow.core.engine import new_game

            with pytest.raises(ValueError, match=option):
                new_game(kind, "g", HOST, 1, options={"pacing": "campaign", option: value})
            game = new_game(kind, "g", HOST, 1, options={"pacing": "campaign"})
            held = {**dict(game.options), option: value}
            game = game._replace(options=tuple(sorted(held.items())))
            for p in PEOPLE[:5]:
                game = ok(apply(game, A.Join(p, None, p), T2027))
            result = apply(game, A.Start(HOST), T2027)
            assert isinstance(result, Rejected) and result.code == "bad_setup"


# -- pausing over days ------------------------------------------------------------


def test_a_pause_over_days_skips_them_and_never_ends_in_quiet_hours() -> None:
    game, _ = started("station", OSLO, instant(OSLO, 2027, 3, 26, 9, 0))
    game = ok(apply(game, A.Pause(HOST), instant(OSLO, 2027, 3, 26, 12, 0)))  # 6 h left
    resumed = ok(apply(game, A.Resume(HOST), instant(OSLO, 2027, 3, 28, 9, 0)))
    assert at(OSLO, resumed.phase.deadline) == "03-28 15:00"
    g = ok(apply(resumed, A.Deadline(None, resumed.phase.seq), resumed.phase.deadline or 0))
    assert (g.phase.name, at(OSLO, g.phase.deadline)) == ("discussion", "03-28 20:00")
    g = ok(apply(g, A.Deadline(None, g.phase.seq), g.phase.deadline or 0))
    g = ok(apply(g, A.Deadline(None, g.phase.seq), g.phase.deadline or 0))
    # round 2 is the next day's: the days lost to the pause are skipped
    assert (g.phase.round, at(OSLO, g.phase.deadline)) == (2, "03-29 18:00")
    # resumed late at night, the remaining 6 h would end at 04:30: 07:00 instead
    late = ok(apply(game, A.Resume(HOST), instant(OSLO, 2027, 3, 27, 22, 30)))
    assert at(OSLO, late.phase.deadline) == "03-28 07:00"


def test_a_resistance_day_without_an_approved_team_goes_on_next_morning() -> None:
    game, _ = started("resistance", "Asia/Kolkata", instant("Asia/Kolkata", 2027, 6, 1, 8, 0))
    seen = []
    while game.running:  # nobody acts: drawn teams, missing votes reject
        seen.append((game.phase.name, at("Asia/Kolkata", game.phase.deadline)))
        game = ok(apply(game, A.Deadline(None, game.phase.seq), game.phase.deadline or 0))
    assert [s for s in seen if s[0] == "proposal"] == [
        ("proposal", "06-01 10:00"),
        ("proposal", "06-01 13:00"),
        ("proposal", "06-01 16:00"),
        ("proposal", "06-02 10:00"),
        ("proposal", "06-02 13:00"),
    ]
    assert game.winner == "spies"


# -- the host moves a window --------------------------------------------------------


def test_the_host_moves_a_window_and_the_following_deadline_moves() -> None:
    game, _ = started("station", OSLO, instant(OSLO, 2027, 3, 26, 9, 0))
    spec = next(s for s in legal(game, HOST) if s.kind == "move_window")
    assert spec.options("window") == ("mission", "discussion", "vote")
    assert spec.field("clock") is not None and spec.field("clock").free  # type: ignore[union-attr]
    assert "move_window" not in [s.kind for s in legal(game, "ana")]
    now = instant(OSLO, 2027, 3, 26, 10, 0)
    result = apply(game, A.MoveWindow(HOST, None, "vote", "21:15"), now)
    moved = ok(result)
    assert moved.option("campaign_vote") == "21:15"
    assert moved.phase == game.phase  # the mission's deadline did not move
    assert moved.version == game.version + 1
    g = ok(apply(moved, A.Deadline(None, moved.phase.seq), moved.phase.deadline or 0))
    g = ok(apply(g, A.Deadline(None, g.phase.seq), g.phase.deadline or 0))
    assert (g.phase.name, at(OSLO, g.phase.deadline)) == ("vote", "03-26 21:15")
    # the current phase's own window: its deadline moves now, and is re-armed
    result = apply(game, A.MoveWindow(HOST, None, "mission", "16:30"), now)
    early = ok(result)
    assert at(OSLO, early.phase.deadline) == "03-26 16:30"
    assert any(e.kind == Kind.TIMER and e.at == early.phase.deadline for e in result.events)
    # never sooner than five minutes from now
    soon = ok(apply(game, A.MoveWindow(HOST, None, "mission", "10:00"), now))
    assert soon.phase.deadline == now + campaign.MIN_PHASE


@pytest.mark.parametrize(
    ("by", "window", "clock", "code"),
    [
        ("ana", "vote", "21:00", "host_only"),
        (HOST, "vote", "25:00", "bad_clock"),
        (HOST, "vote", "21.00", "bad_clock"),
        (HOST, "vote", "", "bad_clock"),
        (HOST, "night", "21:00", "bad_window"),  # the Traitors' has one, Station not
        (HOST, "", "21:00", "bad_window"),
    ],
)
def test_a_bad_move_is_refused_and_changes_nothing(
    by: str, window: str, clock: str, code: str
) -> None:
    game, _ = started("station", OSLO, instant(OSLO, 2027, 3, 26, 9, 0))
    result = apply(game, A.MoveWindow(by, None, window, clock), instant(OSLO, 2027, 3, 26, 10))
    assert isinstance(result, Rejected) and result.code == code
    assert result.message is not None


def test_moving_windows_needs_a_campaign() -> None:
    from station_helpers import new

    fast = new(5)
    assert "move_window" not in [s.kind for s in legal(fast, HOST)]
    result = apply(fast, A.MoveWindow(HOST, None, "vote", "21:00"), 1.0)
    assert isinstance(result, Rejected) and result.code == "not_campaign"


def test_the_traitors_host_moves_the_round_table() -> None:
    game, _ = started("traitors", OSLO, instant(OSLO, 2027, 6, 1, 7, 30), players=6)
    assert game.phase.name == "mission"
    names = next(s for s in legal(game, HOST) if s.kind == "move_window").options("window")
    assert names == ("mission", "shield_room", "roundtable", "night")
    game = ok(apply(game, A.MoveWindow(HOST, None, "roundtable", "21:00"), game.phase.started))
    assert game.option("campaign_roundtable_end") == "21:00"
    game = ok(apply(game, A.Deadline(None, game.phase.seq), game.phase.deadline or 0))
    game = ok(apply(game, A.Deadline(None, game.phase.seq), game.phase.deadline or 0))
    assert (game.phase.name, at(OSLO, game.phase.deadline)) == ("roundtable", "06-01 21:00")


def test_a_move_is_a_script_step() -> None:
    game, _ = started("station", OSLO, instant(OSLO, 2027, 3, 26, 9, 0))
    action = A.MoveWindow(HOST, None, "vote", "21:15")
    step = step_of(game, action)
    assert step == {"as": HOST, "do": "move_window", "window": "vote", "clock": "21:15"}
    assert parse_step(game, step) == action
    with pytest.raises(ValueError):
        parse_step(game, {"as": HOST, "do": "move_window", "window": "vote"})


# -- the scheduler's reminders -----------------------------------------------------------


def test_the_scheduler_reminds_campaign_reminder_before_ahead_and_never_in_quiet_hours() -> None:
    start = instant(OSLO, 2027, 3, 26, 9, 0)
    game, _ = started("station", OSLO, start, campaign_reminder_before=7200.0)
    jobs = [at(OSLO, j.at) for j in plan(game, start) if j.kind == REMINDER]
    assert "03-26 16:00" in jobs  # two hours before the mission's 18:00
    assert "03-26 17:00" not in jobs
    # a vote moved to 07:00: its hour-before reminder would be at 06:00, in quiet hours
    late, _ = started("station", OSLO, start, campaign_vote="07:00")
    while late.phase.name != "vote":
        late = ok(apply(late, A.Deadline(None, late.phase.seq), late.phase.deadline or 0))
    assert at(OSLO, late.phase.deadline) == "03-27 07:00"
    for job in plan(late, late.phase.started):
        assert not in_quiet(OSLO, job.at) or job.kind != REMINDER
    assert zone_table(OSLO, start) == late.zone


make_sqlite = store_fixture(("sqlite",))


def test_a_campaign_through_the_service_survives_a_restart_and_exports(make_sqlite: Any) -> None:
    """The service starts a Station campaign in its zone; the host's MoveWindow
    is logged as a script step; a new service on the same store (a restart)
    sees the same game, and the export replays to the very same calendar."""
    kolkata = "Asia/Kolkata"

    async def go() -> None:
        async with make_sqlite() as store:
            clock = FakeClock(instant(kolkata, 2027, 6, 1, 8, 0))
            service = GameService(store, [], clock=clock)
            options = {"pacing": "campaign", "timezone": kolkata}
            await service.create_game(
                "station", HOST, lang="en", seed="s", game_id="c1", options=options
            )
            for i, p in enumerate(PEOPLE[:5]):
                assert (await service.submit("c1", A.Join(p, None, p), key=f"j{i}")).accepted
            game = (await service.submit("c1", A.Start(HOST))).game
            assert at(kolkata, game.phase.deadline) == "06-01 18:00"
            moved = await service.submit("c1", A.MoveWindow(HOST, None, "mission", "17:00"))
            assert moved.accepted and at(kolkata, moved.game.phase.deadline) == "06-01 17:00"
            log = await store.log("c1")
            assert log[-1]["do"] == "move_window" and log[-1]["clock"] == "17:00"
            again = GameService(store, [], clock=clock)
            reloaded = await again.load("c1")
            assert reloaded == moved.game
            replica, _ = run(await export_game(store, "c1"))
            assert replica.phase == moved.game.phase
            assert replica.option("campaign_mission") == "17:00"

    run_async(go())


def test_a_snapshot_saved_before_the_campaign_day_field_still_loads() -> None:
    from gameflow.core.codec import decode_game, encode_game

    for kind in ("station", "resistance"):
        game, _ = started(kind, OSLO, instant(OSLO, 2027, 3, 26, 9, 0))
        assert game.rules.day == local_day(game.zone, game.phase.deadline or 0)
        old = encode_game(game._replace(rules=game.rules._replace(day=0))).replace(',"day":0', "")
        assert '"day"' not in old
        assert decode_game(old).rules.day == 0


@settings(max_examples=300, deadline=None)
@given(
    zone=hs.sampled_from(ZONES),
    start=hs.floats(min_value=T2027 - 86_400 * 200, max_value=T2027 + 86_400 * 200),
    # a start a fraction of a second past a multiple of 6 hours before a switch:
    # the bisection used to hang there (a game started at 14:00:00.16 Oslo time
    # in December, 6 h steps landing 0.16 s after the March switch)
    near=hs.booleans(),
)
def test_the_zone_table_finds_each_switch_to_the_second_from_any_start(
    zone: str, start: float, near: bool
) -> None:
    from datetime import datetime
    from zoneinfo import ZoneInfo

    def offset(t: float) -> float:
        delta = datetime.fromtimestamp(t, ZoneInfo(zone)).utcoffset()
        return delta.total_seconds() if delta is not None else 0.0

    if near:  # the March 2027 switch in Europe is at 01:00 UTC
        start = instant("UTC", 2027, 3, 28, 1, 0) - 6 * 3600 * (1 + int(start) % 400) + start % 1
    table = zone_table(zone, start, days=400)
    assert table[0] == (start, offset(start))
    for (_, before), (at, after) in itertools.pairwise(table):
        assert at == int(at) and before != after
        assert offset(at - 1) == before and offset(at) == after


def test_a_campaign_started_just_past_six_hours_before_a_switch_gets_its_table() -> None:
    import signal

    def late(*_: Any) -> None:
        raise TimeoutError("the zone table was not done in 5 s")

    start = instant("UTC", 2026, 12, 2, 13, 0) + 0.1638658  # the start that hung a test
    switch = instant("UTC", 2027, 3, 28, 1, 0)
    before = signal.signal(signal.SIGALRM, late)
    signal.setitimer(signal.ITIMER_REAL, 5.0)  # a hang fails the test, not the run
    try:
        table = zone_table(OSLO, start)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)
    assert (float(switch), 7200.0) in table
