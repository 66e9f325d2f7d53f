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
    choose,
    play_game,
    start_game,
    traitor_win_rates,
)

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
        assert 1 <= game.phase.round <= int(game.option("final_day"))
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
    for p in players:
        result = apply(game, A.Join(p, None, p), EPOCH)
        assert isinstance(result, Accepted)
        game = result.state
    result = apply(game, A.Start("host"), EPOCH)
    assert isinstance(result, Accepted)
    game = result.state
    while game.phase.name != "roundtable":
        result = apply(game, A.Deadline(None, game.phase.seq), game.phase.deadline or EPOCH)
        assert isinstance(result, Accepted)
        game = result.state
    return game


def test_a_loyal_bot_votes_the_same_whoever_the_traitors_are() -> None:
    """Only the hidden roles differ between the two tables: a loyal bot's vote
    (from the public record and the table's shared talk) must not."""
    for voter in ("p05", "p06", "p07"):
        targets = set()
        for traitors in (("p00", "p01"), ("p02", "p03"), ("p01", "p04")):
            game = _table(traitors)
            (spec,) = [s for s in legal(game, voter) if s.kind == Vote.kind]
            action = choose(game, voter, spec, random.Random(1))
            assert isinstance(action, Vote)
            targets.add(action.target)
        assert len(targets) == 1, (voter, targets)


def test_same_seed_same_outcomes() -> None:
    assert traitor_win_rates([6, 10], 3, "det") == traitor_win_rates([6, 10], 3, "det")
    assert traitor_win_rates([10], 4, "det") != traitor_win_rates([10], 4, "other")


def test_simulate_traitors_prints_a_table_and_refuses_bad_counts() -> None:
    out = io.StringIO()
    with redirect_stdout(out):
        assert simulate.main("traitors", "6,12", 2, "cli") == 0
    text = out.getvalue()
    assert "| 6 | 2 |" in text and "| 12 | 2 |" in text
    assert "bot actions refused: 0" in text
    with redirect_stdout(io.StringIO()):
        assert simulate.main("traitors", "5", 2, "cli") == 2
        assert simulate.main("traitors", "6-25", 2, "cli") == 2
