"""The scripted bots of a Station table, phase by phase.

`gameflow.games.station.balance.play` (the balance simulator and `muldvarp demo`) applies
these inputs straight to the engine; `muldvarp demo --tv` submits the very same
ones through the game service. Every choice comes from the game's seed and
state (gameflow/games/station/bots.py), so for one seed and table size both
demos deal and play the same game.
"""

from __future__ import annotations

from collections.abc import Callable

from gameflow.core import actions as A
from gameflow.core.state import Game
from gameflow.games.station import bots
from gameflow.games.station.belief import Talk
from gameflow.games.station.state import MISSION, VOTE

Listen = Callable[[Game, Talk], None]


class BotTable:
    """The scripted bots of a Station table: each phase's inputs, decided at the
    phase's start from the seed, the state and what the bots have heard and
    believe so far (it carries that from phase to phase). `play` applies them;
    `muldvarp demo --tv` submits the very same ones through the game service,
    so both demos play the same game for a seed."""

    def __init__(
        self, game: Game, policy: bots.Policy = bots.DEFAULT, listen: Listen | None = None
    ) -> None:
        self.policy = policy
        self.listen = listen
        self.talks: list[Talk] = []
        self.belief = bots.belief(game)

    def moves(self, game: Game) -> list[A.Action]:
        """The bots' inputs for `game`'s current phase (call once a phase)."""
        policy = self.policy
        if game.phase.name == MISSION:
            t = bots.talk(game, policy)
            self.talks.append(t)
            if self.listen is not None:
                self.listen(game, t)
            self.belief = bots.learn(self.belief, game, self.talks[:-1], policy)
            alloc = bots.allocate(game, t, self.belief, policy)
            return list(bots.choices(game, t, alloc, policy))
        if game.phase.name == VOTE:
            self.belief = bots.learn(self.belief, game, self.talks, policy)
            return list(bots.votes(game, bots.suspicion(self.belief, len(game.players)), policy))
        return []
