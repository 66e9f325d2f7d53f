"""The host marks a player gone for good (#32 item 1): away with no end, so
the game answers for them as for any away player; announced to the table,
host-only, refused before the start, and taken back by the host alone."""

from __future__ import annotations

import pytest
from station_helpers import HOST, Driver, new, start

from gameflow.core import actions as A
from gameflow.core.away import GONE, away_seats, gone_players, gone_specs
from gameflow.core.clock import DAY
from gameflow.core.codec import decode_game, encode_game
from gameflow.core.engine import legal
from gameflow.core.events import Kind
from gameflow.replay import parse_step, step_of

pytestmark = pytest.mark.core


def test_the_host_marks_a_player_gone_mid_game_and_the_table_is_told() -> None:
    d = start(5)
    d.deadline()  # mid-game
    events = d.ok(A.Gone(HOST, None, "ana"))
    said = [e for e in events if e.kind == Kind.ANNOUNCE]
    assert len(said) == 1 and said[0].text is not None
    assert said[0].text.msgid == "The host marked {name} as gone: the game answers for them."
    assert said[0].text.param("name") == "Ana"
    assert Kind.CHANGED in {e.kind for e in events}
    assert gone_players(d.game) == ("ana",)
    # away for good: still away a year on, and the state survives the codec
    assert away_seats(d.game, d.now + 400 * DAY) == {d.seat("ana")}
    assert decode_game(encode_game(d.game)) == d.game


def test_a_gone_players_questions_are_answered_as_for_an_away_player() -> None:
    away, gone = start(5), start(5)
    away.ok(A.Away("ana", None, away.now + 30 * DAY))
    gone.ok(A.Gone(HOST, None, "ana"))
    for d in (away, gone):
        for _ in range(4):
            d.deadline()
    # the same game as with Ana away: the defaults answered, no miss counted
    assert gone.game._replace(away=(), version=0) == away.game._replace(away=(), version=0)
    assert gone.game.missed[gone.seat("ana")] == 0


def test_only_the_host_and_only_while_the_game_runs() -> None:
    lobby = Driver(new(5))
    lobby.refused(A.Gone(HOST, None, "ana"), "not_started")
    d = start(5)
    d.refused(A.Gone("bo", None, "ana"), "host_only")
    d.refused(A.Gone(HOST, None, "zed"), "not_in_game")
    d.refused(A.NotGone(HOST, None, "ana"), "not_gone")
    d.ok(A.Gone(HOST, None, "ana"))
    d.refused(A.Gone(HOST, None, "ana"), "gone")
    d.refused(A.NotGone("ana", None, "ana"), "host_only")
    # the player cannot undo it with their own "back" or a date
    d.refused(A.Away("ana", None, None), "gone_by_host")
    d.refused(A.Away("ana", None, d.now + DAY), "gone_by_host")


def test_the_host_takes_it_back() -> None:
    d = start(5)
    d.ok(A.Away("cy", None, d.now + DAY))
    d.ok(A.Gone(HOST, None, "ana"))
    events = d.ok(A.NotGone(HOST, None, "ana"))
    said = [e for e in events if e.kind == Kind.ANNOUNCE]
    assert said and said[0].text is not None and said[0].text.param("name") == "Ana"
    assert gone_players(d.game) == ()
    assert [w for w, _ in d.game.away] == ["cy"]  # another player's own away stays
    for _ in range(4):
        d.deadline()
    assert d.game.missed[d.seat("ana")] >= 2  # counted again, as anyone who does not answer


def test_gone_and_back_are_offered_to_the_host_apart_from_legal() -> None:
    assert gone_specs(Driver(new(5)).game) == ()
    d = start(5)
    # not in legal(): nothing that walks the legal actions (menus, bots) takes them
    for who in (HOST, "bo"):
        assert not [s for s in legal(d.game, who) if s.kind in (A.Gone.kind, A.NotGone.kind)]
    kinds = {s.kind: s for s in gone_specs(d.game)}
    assert kinds[A.Gone.kind].options("target") == d.game.players
    assert A.NotGone.kind not in kinds
    d.ok(A.Gone(HOST, None, "ana"))
    kinds = {s.kind: s for s in gone_specs(d.game)}
    assert "ana" not in kinds[A.Gone.kind].options("target")
    assert kinds[A.NotGone.kind].options("target") == ("ana",)
    assert d.now + 100 * 365 * DAY < GONE


def test_script_steps_round_trip() -> None:
    d = start(5)
    for action in (A.Gone(HOST, None, "ana"), A.NotGone(HOST, None, "ana")):
        assert parse_step(d.game, step_of(d.game, action)) == action
