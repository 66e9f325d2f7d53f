"""The games this process knows: filled at the composition root, read by all.

The core knows no game: an entry point (`bots/`, `python -m gameflow`, the
benchmarks, the tests) registers each game's definition once, normally with
`gameflow.games.register_all()`, and everything else asks this registry by kind.
"""

from __future__ import annotations

from gameflow.core.definition import GameDefinition

_GAMES: dict[str, GameDefinition] = {}


def register(definition: GameDefinition) -> GameDefinition:
    """Add (or replace) the game `definition.kind`; games keep their order."""
    _GAMES[definition.kind] = definition
    return definition


def get(kind: str) -> GameDefinition:
    try:
        return _GAMES[kind]
    except KeyError:
        hint = "" if _GAMES else " (no game is registered: call gameflow.games.register_all())"
        raise KeyError(f"unknown game {kind!r}; known: {sorted(_GAMES)}{hint}") from None


def find(kind: str) -> GameDefinition | None:
    """The game `kind`, or None for one this process does not know."""
    return _GAMES.get(kind)


def all_games() -> tuple[GameDefinition, ...]:
    """Every registered game, in the order they were registered."""
    return tuple(_GAMES.values())
