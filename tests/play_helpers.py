"""What the random playthroughs of test_question.py, test_sms_words.py and
test_telegram_texts.py share: one walk of answers to the open questions,
moving time on when nobody is asked anything (or now and then anyway), so that
one loop of answers and deadlines reaches every phase."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import NamedTuple

from gameflow.core import actions as A
from gameflow.core.engine import apply
from gameflow.core.question import Question, asked
from gameflow.core.result import Accepted, Rejected
from gameflow.core.state import Game

Answer = Callable[[Game, str, Question, random.Random], A.Action | None]


def move_on(game: Game, now: float, host: str) -> tuple[Game, float] | None:
    """`game` once its phase has timed out just after `now` (or, for a phase
    without a deadline, once the host moved it on), and the new now; None if
    neither was accepted."""
    deadline = game.phase.deadline
    now = max(now, deadline if deadline is not None else now) + 0.001
    result: Accepted[Game] | Rejected = apply(game, A.Deadline(None, game.phase.seq), now)
    if isinstance(result, Rejected):
        # A phase without a deadline waits for the host: let them move it on.
        result = apply(game, A.Advance(host, game.phase.seq), now)
    if isinstance(result, Rejected):
        return None
    return result.state, now


class Step(NamedTuple):
    """Where a walk stands at one of its steps: the game, its open questions
    (none once it is over), and, when an answer brought it here, whose and
    the game before it."""

    game: Game
    open: dict[str, Question]
    by: str | None
    before: Game | None


def random_walk(
    game: Game,
    rng: random.Random,
    answer: Answer,
    steps: int,
    *,
    host: str = "host",
    chance: float = 0.08,
) -> Iterator[Step]:
    """A random playthrough from `game`, a step at a time (`steps` at most):
    a player asked something answers it (`answer`'s action, None: nothing),
    or, when nobody is asked anything and with `chance` anyway, the phase runs
    out (`move_on`). It ends when the game is over or can go no further."""
    now = 1.0
    by: str | None = None
    before: Game | None = None
    for _ in range(steps):
        open_ = asked(game) if game.running else {}
        yield Step(game, open_, by, before)
        if not game.running:
            return
        by = before = None
        if not open_ or rng.random() < chance:
            moved = move_on(game, now, host)
            if moved is None:
                return
            game, now = moved
            continue
        player = rng.choice(sorted(open_))
        action = answer(game, player, open_[player], rng)
        if action is None:
            continue
        result = apply(game, action, now)
        if isinstance(result, Accepted):
            by, before, game = player, game, result.state
