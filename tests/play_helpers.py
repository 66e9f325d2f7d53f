"""What the random playthroughs of test_question.py, test_sms_words.py and
test_telegram_texts.py share: moving time on when nobody is asked anything (or
now and then anyway), so one loop of answers and deadlines reaches every phase."""

from __future__ import annotations

from gameflow.core import actions as A
from gameflow.core.engine import apply
from gameflow.core.result import Accepted, Rejected
from gameflow.core.state import Game


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
