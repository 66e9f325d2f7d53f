"""The built-in games. `register_all()` registers them with the core.

Each game package exports one definition, `GAME` (gameflow/core/definition.py);
an entry point calls `register_all()` once, so the core itself imports no game
(docs/adding-a-game.md).
"""

from __future__ import annotations

from gameflow.core.definition import GameDefinition
from gameflow.core.registry import register


def games() -> tuple[GameDefinition, ...]:
    """The built-in games, one line each, in the order /new and the docs list them."""
    from gameflow.games.resistance import GAME as RESISTANCE
    from gameflow.games.station import GAME as STATION
    from gameflow.games.traitors import GAME as TRAITORS
    from gameflow.games.werewolf import GAME as WEREWOLF

    return (STATION, RESISTANCE, TRAITORS, WEREWOLF)


def register_all() -> None:
    """Register every built-in game (again: harmless)."""
    for definition in games():
        register(definition)
