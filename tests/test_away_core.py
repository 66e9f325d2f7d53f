"""Away players in the core (#21 item 5): the Away action, the defaults at a
deadline, no missed-deadline counts or reports, the host told once, automatic
return after the date, and nothing of it in the public view."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from station_helpers import HOST, T0, start

from gameflow.core import actions as A
from gameflow.core.away import MAX_DAYS, away_seats, away_until, present, resolve, spec
from gameflow.core.clock import DAY
from gameflow.core.codec import decode_game, encode_game
from gameflow.core.engine import apply, view
from gameflow.core.events import Kind
from gameflow.core.result import Accepted
from gameflow.core.state import HOST_VIEW
from gameflow.replay import parse_step, step_of

pytestmark = pytest.mark.core

TOMORROW = date.fromordinal(date.fromtimestamp(T0).toordinal() + 1).isoformat()


def host_texts(events: tuple[object, ...]) -> list[str]:
    return [e.text.msgid for e in events if e.kind == Kind.HOST]  # type: ignore[attr-defined]


def test_going_away_tells_the_player_and_the_host_once() -> None:
    d = start(5)
    events = d.ok(A.Away("ana", None, TOMORROW))
    tells = [e for e in events if e.kind == Kind.TELL]
    assert [e.to for e in tells] == ["ana"]
    assert tells[0].text is not None and tells[0].text.param("date") == TOMORROW
    hosts = [e for e in events if e.kind == Kind.HOST]
    assert [e.to for e in hosts] == [HOST]
    assert hosts[0].text is not None and hosts[0].text.param("name") == "Ana"
    # away through tomorrow: back at the midnight after it (the zone is UTC here)
    back = (date.fromisoformat(TOMORROW).toordinal() + 1 - date(1970, 1, 1).toordinal()) * DAY
    assert away_until(d.game, "ana", d.now) == back
    # a new date while still away: the player is told, the host is not again
    events = d.ok(A.Away("ana", None, d.now + 3 * DAY))
    assert host_texts(events) == []
    assert away_until(d.game, "ana", d.now) == d.now + 3 * DAY
    assert {e.kind for e in events} == {Kind.TELL}


def test_away_takes_no_public_event_and_leaves_the_public_view_alone() -> None:
    d = start(5)
    public = view(d.game, None)
    events = d.ok(A.Away("bo", None, TOMORROW))
    assert not [e for e in events if e.kind in (Kind.ANNOUNCE, Kind.CHANGED)]
    after = view(d.game, None)
    public.pop("deadline"), after.pop("deadline")
    assert after == public
    assert "away" not in repr(view(d.game, HOST_VIEW))
    assert "away" not in repr(view(d.game, "cy"))


def test_a_deadline_applies_the_defaults_and_counts_no_miss_for_the_away() -> None:
    plain, gone = start(5), start(5)
    gone.ok(A.Away("ana", None, T0 + 10 * DAY))
    for d in (plain, gone):
        for _ in range(2):
            d.deadline()
            d.deadline()
    # the same game as when Ana simply did not answer, but no miss and no report
    assert gone.game._replace(away=(), missed=(), version=0) == plain.game._replace(
        missed=(), version=0
    )
    seat = gone.seat("ana")
    assert plain.game.missed[seat] >= 2 and gone.game.missed[seat] == 0
    assert gone.game.missed[gone.seat("bo")] == plain.game.missed[plain.seat("bo")]


def test_the_two_misses_report_leaves_the_away_out() -> None:
    d = start(5)
    d.ok(A.Away("ana", None, T0 + 10 * DAY))
    reported: list[str] = []
    for _ in range(4):
        for e in d.deadline():
            if e.kind == Kind.HOST and e.text is not None:
                reported.append(str(e.text.param("name")))
    assert "Ana" not in reported
    assert "Bo" in reported  # the others, who just did not answer, still are


def test_they_are_back_by_themselves_after_the_date() -> None:
    d = start(5)
    d.ok(A.Away("ana", None, d.now + 60.0))
    assert away_seats(d.game, d.now) == {d.seat("ana")}
    assert away_seats(d.game, d.now + 60.0) == frozenset()
    assert present(d.game, (0, 1, 2), d.now + 61.0) == (0, 1, 2)
    plain = start(5)
    d.now += 61.0
    plain.now = d.now
    for _ in range(3):
        d.deadline()
        plain.deadline()
    # counted again once back, as anyone who does not answer
    assert d.game.missed == plain.game.missed and d.game.missed[d.seat("ana")] >= 2


def test_back_by_hand_and_refusals() -> None:
    d = start(5)
    d.refused(A.Away("ana", None, None), "not_away")
    d.ok(A.Away("ana", None, TOMORROW))
    events = d.ok(A.Away("ana", None, None))
    assert [e.kind for e in events] == [Kind.TELL]
    assert d.game.away == ()
    d.refused(A.Away("ana", None, "2020-01-01"), "bad_until")
    d.refused(A.Away("ana", None, "next week"), "bad_until")
    d.refused(A.Away("ana", None, d.now - 1), "bad_until")
    d.refused(A.Away("ana", None, d.now + (MAX_DAYS + 1) * DAY), "bad_until")
    d.refused(A.Away("zed", None, TOMORROW), "not_in_game")
    d.refused(A.Away(HOST, None, TOMORROW), "not_in_game")


def test_not_in_the_lobby() -> None:
    from station_helpers import Driver, new

    d = Driver(new(5))
    d.refused(A.Away("ana", None, TOMORROW), "not_started")
    assert spec(d.game, "ana") is None


def test_spec_is_a_typed_free_field() -> None:
    d = start(5)
    s = spec(d.game, "ana")
    assert s is not None and s.kind == A.Away.kind and s.phase == d.game.phase.seq
    field = s.field("until")
    assert field is not None and field.free and field.optional
    assert spec(d.game, "zed") is None


def test_snapshots_and_steps_round_trip() -> None:
    d = start(5)
    d.ok(A.Away("ana", None, TOMORROW))
    assert decode_game(encode_game(d.game)) == d.game
    # a snapshot from before the field existed still loads, nobody away
    old = encode_game(d.game).replace(',"away":[["ana",' + repr(d.game.away[0][1]) + "]]", "")
    assert '"away"' not in old
    assert decode_game(old).away == ()
    for action in (
        A.Away("ana", None, TOMORROW),
        A.Away("ana", None, T0 + 5.5),
        A.Away("ana", None, None),
    ):
        step = step_of(d.game, action)
        assert parse_step(d.game, step) == action
    with pytest.raises(ValueError):
        parse_step(d.game, {"as": "ana", "do": "away", "until": True})


def test_resolve_in_a_zone() -> None:
    d = start(5)
    game = d.game._replace(zone=((0.0, 3600.0),))  # UTC+1
    t = resolve(game, TOMORROW, T0)
    assert t is not None
    # through tomorrow in UTC+1: 23:00 UTC that day
    assert (t + 3600.0) % DAY == 0


@settings(max_examples=40, deadline=None)
@given(
    away=st.lists(
        st.tuples(st.sampled_from(["ana", "bo", "cy", "dag", "eli"]), st.floats(1, 9)), max_size=5
    ),
    deadlines=st.integers(1, 6),
)
def test_public_views_never_show_anyone_away(away: list[tuple[str, float]], deadlines: int) -> None:
    plain, gone = start(5), start(5)
    for who, days in away:
        result = apply(gone.game, A.Away(who, None, gone.now + days * DAY), gone.now)
        assert isinstance(result, Accepted)
        gone.game = result.state
    for _ in range(deadlines):
        if plain.game.over:
            break
        plain.deadline()
        gone.deadline()
        assert view(gone.game, None) == view(plain.game, None)
        for p in plain.players:
            assert view(gone.game, p) == view(plain.game, p)


def test_an_away_game_exports_and_replays_to_the_same_state() -> None:
    """The service logs Away as a script step; the export replays to the very
    same state (away list, miss counts) as the live game."""
    import asyncio

    from adapters.store.sqlite_store import SqliteStore
    from bots.export import export_game
    from gameflow.replay import run
    from service.games import GameService
    from tests.store_helpers import FakeClock

    async def go() -> None:
        clock = FakeClock(T0)
        store = SqliteStore(":memory:", clock=clock)
        service = GameService(store, [], clock=clock)
        await service.create_game("station", HOST, lang="en", seed="s", game_id="a1", code=False)
        for p in ("ana", "bo", "cy", "dag", "eli"):
            assert (await service.submit("a1", A.Join(p, None, p.title()))).accepted
        await service.submit("a1", A.Start(HOST))
        assert (await service.submit("a1", A.Away("ana", None, TOMORROW))).accepted
        assert (await service.submit("a1", A.Away("bo", None, T0 + 3 * DAY))).accepted
        for _ in range(3):
            game = await service.load("a1")
            clock.now = game.phase.deadline or clock.now
            assert (await service.submit("a1", A.Deadline(None, game.phase.seq))).accepted
        live = await service.load("a1")
        replica, _ = run(await export_game(store, "a1"))
        assert replica.away == live.away and replica.missed == live.missed
        assert replica.phase == live.phase
        await store.close()

    asyncio.run(go())
