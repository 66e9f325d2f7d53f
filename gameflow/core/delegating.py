"""The part of a game's rules every game writes the same way, written once.

Every game answers `legal` from its inputs module and `ask`, the three views
and `record` from its views module (the `Rules` protocol, gameflow/core/rules.py).
A game's `Rules` class derives from `Delegating` and is made with those two
modules, so it holds only what is its own (phases, actions, scripts).
"""

from __future__ import annotations

from typing import Any, Protocol

from gameflow.core.legal import ActionSpec
from gameflow.core.state import Game
from gameflow.core.text import Msg


class GameInputs(Protocol):
    """A game's inputs module: the legal actions of a player."""

    def legal(self, game: Game, player: str) -> tuple[ActionSpec, ...]: ...


class GameViews(Protocol):
    """A game's views module: its questions' context, its views and its record."""

    def ask(self, game: Game, player: str) -> tuple[Msg, ...]: ...

    def public_view(self, game: Game) -> dict[str, Any]: ...

    def player_view(self, game: Game, player: str) -> dict[str, Any]: ...

    def host_view(self, game: Game) -> dict[str, Any]: ...

    def record(self, game: Game) -> dict[str, Any]: ...


class Delegating:
    """`legal`, `ask`, the views and `record`, passed on to the game's modules."""

    def __init__(self, inputs: GameInputs, views: GameViews) -> None:
        self._inputs = inputs
        self._views = views

    def legal(self, game: Game, player: str) -> tuple[ActionSpec, ...]:
        return self._inputs.legal(game, player)

    def ask(self, game: Game, player: str) -> tuple[Msg, ...]:
        return self._views.ask(game, player)

    def public_view(self, game: Game) -> dict[str, Any]:
        return self._views.public_view(game)

    def player_view(self, game: Game, player: str) -> dict[str, Any]:
        return self._views.player_view(game, player)

    def host_view(self, game: Game) -> dict[str, Any]:
        return self._views.host_view(game)

    def record(self, game: Game) -> dict[str, Any]:
        return self._views.record(game)
