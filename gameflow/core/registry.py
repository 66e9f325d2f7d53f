"""The games this process knows: filled at the composition root, read by all.

The core knows no game: an entry point (`bots/`, `python -m gameflow`, the
benchmarks, the tests) registers each game's definition once, normally with
`gameflow.games.register_all()`, and everything else asks this registry by kind.
A text that lists the games ("/new station, resistance or traitors") is built
from it (`one_of`), so a game registered later appears there with no edit.
"""

from __future__ import annotations

from collections.abc import Sequence

from gameflow.core.definition import GameDefinition
from gameflow.core.text import N_, Msg, Param, msg

# TRANSLATORS: the last of a list of choices; {items} are the others, joined by ", ".
OR_LIST = N_("{items} or {last}")

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


def first() -> GameDefinition:
    """The first registered game: the one `/new` makes when none is named."""
    for definition in _GAMES.values():
        return definition
    raise KeyError("no game is registered: call gameflow.games.register_all()")


def kinds() -> tuple[str, ...]:
    """Every registered game's kind, in order: what `/new` takes."""
    return tuple(_GAMES)


def one_of(items: Sequence[Msg | str | int]) -> Param:
    """`items` as a list of choices, "A, B or C", in the reader's language."""
    if len(items) < 2:
        return items[0] if items else ""
    return msg(OR_LIST, items=tuple(items[:-1]), last=items[-1])
