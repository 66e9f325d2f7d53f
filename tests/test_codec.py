"""The snapshot codec: every state reachable in play survives a round trip, and
a snapshot can only name gameflow's own NamedTuple classes."""

from __future__ import annotations

import json
from typing import NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gameflow.core import actions as A
from gameflow.core.codec import CodecError, decode_game, dumps, encode_game, loads
from gameflow.core.engine import apply, new_game
from gameflow.core.state import Game, Phase
from gameflow.games.station.state import Plan, Station
from tests.store_helpers import HOST, T0, lobby, ok, playthrough

pytestmark = [pytest.mark.store, pytest.mark.core]


def roundtrip(game: Game) -> Game:
    text = encode_game(game)
    back = decode_game(text)
    assert back == game
    assert type(back.rules) is type(game.rules)
    assert encode_game(back) == text  # stable: the same state, the same bytes
    return back


def test_fresh_and_lobby_games_roundtrip() -> None:
    roundtrip(new_game("station", "g", HOST, 3))
    roundtrip(lobby(7, options={"traps": False, "vote_seconds": 30.0}))


def test_types_are_restored_exactly() -> None:
    game = ok(apply(lobby(5), A.Start(HOST), T0))
    back = roundtrip(game)
    assert isinstance(back.phase, Phase)
    assert isinstance(back.rules, Station)
    assert isinstance(back.rules.plans, tuple) and isinstance(back.rules.plans[0], Plan)
    assert isinstance(back.options, tuple) and all(isinstance(o, tuple) for o in back.options)
    opts = dict(back.options)
    assert type(opts["mission_seconds"]) is float and type(opts["infiltrators"]) is int
    assert type(opts["traps"]) is bool


@pytest.mark.parametrize("seed", range(12))
def test_every_state_of_a_played_game_roundtrips(seed: int) -> None:
    last = None
    for before, action, now in playthrough(seed, players=5 + seed % 11):
        roundtrip(before)
        last = ok(apply(before, action, now))
    assert last is not None
    roundtrip(last)


def test_paused_and_over_states_roundtrip() -> None:
    game = ok(apply(lobby(6), A.Start(HOST), T0))
    paused = ok(apply(game, A.Pause(HOST), T0 + 5))
    assert roundtrip(paused).phase.paused_left == paused.phase.paused_left
    ended = ok(apply(paused, A.End(HOST), T0 + 6))
    assert roundtrip(ended).over


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), players=st.integers(5, 15))
def test_random_playthroughs_roundtrip(seed: int, players: int) -> None:
    for before, _action, _now in playthrough(seed, players=players, max_steps=150):
        assert decode_game(encode_game(before)) == before


def test_tags_name_only_gameflow_namedtuples() -> None:
    good = json.loads(encode_game(lobby(5)))
    for tag in (
        "os:system",
        "builtins:tuple",
        "gameflow.core.state:seed_digest",
        "gameflow.core.engine:json",
        "gameflow.nope:Game",
    ):
        bad = dict(good, **{"@": tag})
        with pytest.raises(CodecError):
            decode_game(json.dumps(bad))
    with pytest.raises(CodecError):
        decode_game(json.dumps({"id": "x"}))  # no tag at all
    with pytest.raises(CodecError):
        decode_game("[1, 2]")  # not a Game
    with pytest.raises(CodecError):
        decode_game("{")


def test_values_outside_the_state_model_are_refused() -> None:
    class Local(NamedTuple):
        x: int

    for value in ([1], {"a": 1}, Local(1), float("nan"), {1, 2}):
        with pytest.raises(TypeError):
            dumps(value)


def test_unknown_field_is_an_error_and_missing_field_takes_its_default() -> None:
    data = json.loads(encode_game(lobby(5)))
    del data["ended_by_host"]
    assert decode_game(json.dumps(data)).ended_by_host is False
    data["no_such_field"] = 1
    with pytest.raises(CodecError):
        decode_game(json.dumps(data))


def test_plain_values_and_nested_tuples() -> None:
    value = (1, 2.5, "x", None, True, ((1, 2), ()), Phase("mission", 3, 1, 2.0))
    assert loads(dumps(value)) == value
