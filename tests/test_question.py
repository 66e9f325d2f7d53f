"""The open question is a view: nobody is waited for without being asked.

Random whole games of all three kinds are played from `question()` alone: a
player answers only what their open question offers, with values drawn from
its fields. After every input and every deadline the test checks that every
seat the rules still await has an open question, and that an answer that was
accepted changed the player's question (answered, or asked anew), so a channel
that compares question keys always sends the next one.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from gameflow.core import actions as A
from gameflow.core.engine import apply, new_game
from gameflow.core.legal import ActionSpec
from gameflow.core.question import Question, asked, key_of, question
from gameflow.core.result import Accepted
from gameflow.core.rules import rules_for
from gameflow.core.state import Game
from gameflow.replay import parse_step
from tests.play_helpers import random_walk

pytestmark = pytest.mark.core

GAMES: list[tuple[str, int, dict[str, Any]]] = [
    ("resistance", 5, {"plot_cards": False}),
    ("resistance", 7, {"plot_cards": True}),
    ("resistance", 10, {"plot_cards": True, "plot_deck": "full"}),
    ("resistance", 6, {"plot_cards": True, "heroes": True}),
    ("station", 7, {}),
    ("station", 12, {}),
    ("traitors", 8, {"pacing": "fast", "dagger": True, "death_list": True}),
    ("traitors", 12, {"pacing": "fast"}),
]


def _started(kind: str, n: int, options: dict[str, Any], seed: int) -> Game:
    defaults = rules_for(kind).default_options()
    opts = {k: v for k, v in options.items() if k in defaults}
    game = new_game(kind, f"g{seed}", "host", seed, lang="en", options=opts)
    for i in range(n):
        result = apply(game, A.Join(f"p{i}", name=f"P{i}"), 0.0)
        assert isinstance(result, Accepted)
        game = result.state
    result = apply(game, A.Start("host"), 0.0)
    assert isinstance(result, Accepted), result
    return result.state


def _values(spec: ActionSpec, rng: random.Random) -> dict[str, Any]:
    step: dict[str, Any] = {}
    for f in spec.fields:
        if f.many:
            k = rng.randint(1, max(1, len(f.options)))
            step[f.name] = rng.sample([o for o in f.options if o is not None], k)
        elif f.options:
            step[f.name] = rng.choice(f.options)
    return step


def _answer(game: Game, player: str, q: Question, rng: random.Random) -> A.Action | None:
    spec = rng.choice(q.specs)
    step = {"as": player, "do": spec.kind, "phase": spec.phase, **_values(spec, rng)}
    step = {k: v for k, v in step.items() if v is not None or k in ("target",)}
    try:
        return parse_step(game, step)
    except ValueError:
        return None


def _check_waits(game: Game) -> None:
    rules = rules_for(game.kind)
    if not game.running:
        return
    open_ = asked(game)
    for seat in rules.awaiting(game):
        player = game.players[seat]
        assert player in open_, (
            f"{game.kind} phase {game.phase.name}: {player} is awaited but asked nothing"
        )


def _play(kind: str, n: int, options: dict[str, Any], seed: int) -> tuple[Game, int]:
    game = _started(kind, n, options, seed)
    answers = 0
    for step in random_walk(game, random.Random(seed), _answer, 4000):
        game, player, before = step.game, step.by, step.before
        if player is not None and before is not None:
            answers += 1
            assert (
                key_of(game, player) != key_of(before, player) or game.phase.seq != before.phase.seq
            ), f"{kind}: {player}'s answer was taken but their question did not change"
        if game.running:
            _check_waits(game)
    return game, answers


@pytest.mark.parametrize(("kind", "n", "options"), GAMES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_nobody_is_waited_for_without_a_question(
    kind: str, n: int, options: dict[str, Any], seed: int
) -> None:
    game, answers = _play(kind, n, options, seed)
    assert answers > 0
    assert game.version > answers  # deadlines moved it on too


def test_the_key_changes_with_the_question_and_only_then() -> None:
    game = _started("resistance", 5, {"plot_cards": False}, 7)
    keys = {p: key_of(game, p) for p in game.players}
    assert sum(k is not None for k in keys.values()) == 1  # only the leader proposes
    again = {p: key_of(game, p) for p in game.players}
    assert keys == again
    leader = next(p for p, k in keys.items() if k is not None)
    q = question(game, leader)
    assert q is not None and q.spec(0) is not None and q.spec(len(q.specs)) is None
