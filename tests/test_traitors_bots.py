"""The Traitors' simple bots and `muldvarp simulate traitors`: bots send only
what the engine accepts, every game ends within its days, a loyal bot decides
from public information only, and the same seed gives the same table."""

from __future__ import annotations

import io
import random
from contextlib import redirect_stdout

import pytest

from gameflow import simulate
from gameflow.core import actions as A
from gameflow.core.engine import apply, legal, new_game
from gameflow.core.result import Accepted
from gameflow.core.state import Game
from gameflow.games.traitors.actions import Vote
from gameflow.games.traitors.bots import (
    EPOCH,
    Policy,
    choose,
    play_game,
    start_game,
    traitor_win_rates,
)
from tests.store_helpers import seated

pytestmark = pytest.mark.traitors


@pytest.mark.parametrize(
    ("players", "options"),
    [
        (6, {}),
        (9, {"recruit": False}),
        (14, {"dagger": False, "missions": "relay"}),
        (24, {"missions": "chests", "final_day": 5}),
    ],
)
def test_bots_play_whole_games_the_engine_accepts(players: int, options: dict[str, object]) -> None:
    for i in range(3):
        game, refused = play_game(
            start_game(players, f"ok/{players}/{i}", options), random.Random(i)
        )
        assert refused == 0
        assert game.over and game.winner in ("traitors", "loyal")
        st = game.rules
        assert st.pot >= 0
        assert 1 <= game.phase.round <= st.final_day
        assert [r.day for r in st.history] == sorted({r.day for r in st.history})


def _table(traitors: tuple[str, ...]) -> Game:
    players = [f"p{i:02}" for i in range(8)]
    game = new_game(
        "traitors",
        "roles",
        "host",
        "same-seed",
        lang="en",
        options={"pacing": "fast", "missions": "chests"},
        setup={"roles": {p: "traitor" for p in traitors}},
    )
    game = seated(game, players, EPOCH, "host")
    while game.phase.name != "roundtable":
        result = apply(game, A.Deadline(None, game.phase.seq), game.phase.deadline or EPOCH)
        assert isinstance(result, Accepted)
        game = result.state
    return game


def _loyal_votes_ignore_hidden_roles(policy: Policy) -> None:
    """Each loyal voter's vote by `policy` is the same at three tables that
    differ only in who the traitors are."""
    for voter in ("p05", "p06", "p07"):
        targets = set()
        for traitors in (("p00", "p01"), ("p02", "p03"), ("p01", "p04")):
            game = _table(traitors)
            (spec,) = [s for s in legal(game, voter) if s.kind == Vote.kind]
            action = policy(game, voter, spec, random.Random(1))
            assert isinstance(action, Vote)
            targets.add(action.target)
        assert len(targets) == 1, (voter, targets)


def test_a_loyal_bot_votes_the_same_whoever_the_traitors_are() -> None:
    """Only the hidden roles differ between the two tables: a loyal bot's vote
    (from the public record and the table's shared talk) must not."""
    _loyal_votes_ignore_hidden_roles(choose)


def test_same_seed_same_outcomes() -> None:
    assert traitor_win_rates([6, 10], 3, "det") == traitor_win_rates([6, 10], 3, "det")
    assert traitor_win_rates([10], 4, "det") != traitor_win_rates([10], 4, "other")


def test_simulate_traitors_prints_a_table_and_refuses_bad_counts() -> None:
    out = io.StringIO()
    with redirect_stdout(out):
        assert simulate.main("traitors", "6,12", 2, "cli") == 0
    text = out.getvalue()
    assert "| 6 | " in text and "| 12 | " in text
    assert "bot actions refused: 0" in text
    with redirect_stdout(io.StringIO()):
        assert simulate.main("traitors", "5", 2, "cli") == 2
        assert simulate.main("traitors", "6-25", 2, "cli") == 2


# -- the reasoning bots ------------------------------------------------------------


def test_reasoning_bots_play_whole_games_the_engine_accepts() -> None:
    from gameflow.games.traitors.bots import reasoning_action

    for players, options in ((6, {}), (13, {"missions": "relay", "recruit": True}), (20, {})):
        game, refused = play_game(
            start_game(players, f"reason/{players}", options), random.Random(1), reasoning_action
        )
        assert refused == 0
        assert game.over and game.winner in ("traitors", "loyal")
        assert game.phase.round <= game.rules.final_day


def test_a_reasoning_loyal_decides_the_same_whoever_the_traitors_are() -> None:
    """The reasoning bot gets its player's view, nothing else: swapping the
    hidden roles of the others leaves a loyal's vote where it was."""
    from gameflow.games.traitors.bots import reasoning_action

    _loyal_votes_ignore_hidden_roles(reasoning_action)


def test_suspicion_reads_votes_and_reveals_from_a_view() -> None:
    """A vote for a player revealed loyal counts against the voter; for a
    revealed traitor, in their favour; a murdered player is known loyal."""
    from gameflow.games.traitors.suspect import suspicion

    def seat(pid: str, status: str = "active", role: str | None = None) -> dict[str, object]:
        out: dict[str, object] = {"id": pid, "status": status}
        if role:
            out["role"] = role
        return out

    votes = [
        {"voter": "a", "for": "x", "weight": 1, "reason": ""},
        {"voter": "b", "for": "x", "weight": 1, "reason": ""},
        {"voter": "c", "for": "a", "weight": 1, "reason": ""},
        {"voter": "x", "for": "c", "weight": 1, "reason": ""},
    ]
    day = {"day": 1, "murdered": "m", "banished": ["x"], "revealed": {"x": "traitor"}, "pot": 0}
    view = {
        "traitors": {
            "table": [
                seat("a"),
                seat("b"),
                seat("c"),
                seat("m", "murdered"),
                seat("x", "banished", "traitor"),
                *[seat(f"z{i}") for i in range(3)],
            ],
            "history": [{**day, "votes": [votes]}],
            "votes": [],
        }
    }
    s = suspicion(view)
    assert s.known == {"m": "loyal", "x": "traitor"}
    assert s.score["a"] < 0 and s.score["b"] < 0  # voted out the traitor
    assert s.score["c"] < 0  # the traitor voted for c
    chance = s.chance(frozenset({"a"}))
    assert "a" not in chance and max(chance, key=lambda p: chance[p]).startswith("z")
    assert 0.0 < s.none_left() < 1.0


def test_default_final_day_follows_the_table_size() -> None:
    from gameflow.games.traitors.length import SEED_DAYS, default_final_day
    from gameflow.games.traitors.options import traitor_count

    for k in {traitor_count(n) for n in range(6, 25)}:
        days = [default_final_day(n) for n in range(6, 25) if traitor_count(n) == k]
        assert days == sorted(days)  # with as many traitors, a bigger table plays longer
    assert all(default_final_day(n) == SEED_DAYS for n in (22, 23, 24))
    assert min(default_final_day(n) for n in range(6, 25)) >= 2
    game = start_game(8, "length")
    assert game.rules.final_day == default_final_day(8)
    assert start_game(8, "length", {"final_day": 5}).rules.final_day == 5
