"""`legal()` describes its fields fully: a field whose value is a set of players
says so (`many`), so keyboards and SMS menus offer a multi-pick without knowing
the game's field names; every other field is one choice."""

from __future__ import annotations

import pytest

from gameflow.core import actions as A
from gameflow.core.engine import apply, legal
from gameflow.core.legal import ActionSpec
from gameflow.core.result import Accepted
from gameflow.replay import setup_game

pytestmark = pytest.mark.core


def specs_of(script: dict[str, object], who: str) -> tuple[ActionSpec, ...]:
    game, _ = setup_game(script)
    return legal(game, who)


def many(specs: tuple[ActionSpec, ...]) -> dict[str, bool]:
    return {f"{s.kind}.{f.name}": f.many for s in specs for f in s.fields}


def test_a_resistance_team_is_a_multi_pick() -> None:
    players = ["a", "b", "c", "d", "e"]
    game, _ = setup_game({"game": "resistance", "players": players, "seed": 1, "options": {}})
    leader = next(p for p in players if any(s.kind == "propose" for s in legal(game, p)))
    assert many(legal(game, leader))["propose.team"] is True


def test_traitors_access_and_death_list_are_multi_picks_and_votes_are_not() -> None:
    base = {
        "game": "traitors",
        "players": ["ana", "bo", "cy", "dag", "eli", "fia"],
        "seed": 1,
        "options": {"pacing": "fast", "missions": "host", "death_list": True},
        "setup": {"roles": {"ana": "traitor", "bo": "traitor"}},
    }
    host = many(specs_of(base, "host"))
    assert host["score.access"] is True
    game, _ = setup_game(base)
    while game.phase.name != "night":
        if game.phase.name in ("roundtable", "revote"):
            assert many(legal(game, "cy"))["vote.for"] is False
        result = apply(game, A.Deadline(None, game.phase.seq), game.phase.deadline or 0.0)
        assert isinstance(result, Accepted)
        game = result.state
    traitor = many(legal(game, "ana"))
    assert traitor["death_list.names"] is True
    assert traitor["murder.target"] is False
