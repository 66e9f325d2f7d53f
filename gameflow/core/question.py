"""What a player is asked now: a view of (state, player), like every other view.

A prompt is not a by-product of an event. After every commit each channel asks
`question(game, player)` for every player and compares its `key` with the key
of the question it last sent them: a new, changed, renumbered or closed
question means a new message (or an edited keyboard), and a player is never
waited for unless their latest message holds the question. Events still say
what happened; this says what is open.

The question holds the player's own game actions of the current phase (from
`legal()`, the same list that validates them) and the game's context lines for
it (`Rules.ask`: the team size a leader must pick, the plans a crew member
chooses between), so that a change of either is a change of the question.
Lobby and host controls are not questions: nobody is waited for on them.
"""

from __future__ import annotations

import hashlib
from typing import Final, NamedTuple

from gameflow.core import actions as A
from gameflow.core.legal import ActionSpec
from gameflow.core.rules import rules_for
from gameflow.core.state import Game
from gameflow.core.text import Msg

_CORE_KINDS: Final = frozenset(a.kind for a in A.CORE_ACTIONS)


class Question(NamedTuple):
    """The open question of one player: what they may answer now, and the lines
    that say what it is about. `phase` is the phase `seq` it belongs to."""

    phase: int
    specs: tuple[ActionSpec, ...]
    context: tuple[Msg, ...] = ()

    @property
    def key(self) -> str:
        """A stable digest of the whole question: equal keys, same question.
        (Specs and messages are tuples of strings, numbers, booleans and None,
        so their `repr` is the same in every process and every run.)"""
        text = repr((self.phase, self.specs, self.context))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]

    def spec(self, index: int) -> ActionSpec | None:
        """The spec at `index` (a button or menu number names one spec, even
        among several of the same kind: two plot cards to play)."""
        return self.specs[index] if 0 <= index < len(self.specs) else None


def question(game: Game, player: str) -> Question | None:
    """`player`'s open question, or None when nothing is asked of them now
    (the game is not running, they are out, or they have answered)."""
    if not game.running or game.seat(player) < 0:
        return None
    rules = rules_for(game.kind)
    seq = game.phase.seq
    host_kinds = rules.host_kinds
    specs = tuple(
        s
        for s in rules.legal(game, player)
        if s.phase == seq and s.kind not in _CORE_KINDS and s.kind not in host_kinds
    )
    if not specs:
        return None
    return Question(seq, specs, tuple(rules.ask(game, player)))


def key_of(game: Game, player: str) -> str | None:
    """The key of `player`'s open question, or None when none is open."""
    q = question(game, player)
    return None if q is None else q.key


def asked(game: Game) -> dict[str, Question]:
    """Every player's open question (those with none are left out)."""
    out: dict[str, Question] = {}
    for player in game.players:
        q = question(game, player)
        if q is not None:
            out[player] = q
    return out
