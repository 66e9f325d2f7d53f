"""The game state: small immutable records, cheap to copy.

`Game` holds what every game shares (players, host, phase, version, seed); the
game module's own state lives in `Game.rules`. Both are NamedTuples: immutable,
typed, and `_replace` copies them in about a microsecond, which keeps a whole
15-player game well inside the engine's time budget.
"""

from __future__ import annotations

import hashlib
from typing import Any, Final, NamedTuple, TypeVar

T = TypeVar("T", bound=tuple[Any, ...])

LOBBY: Final = "lobby"
OVER: Final = "over"

HOST_VIEW: Final = "@host"  # the viewer id of the host's own view (player ids never start with @)


class Phase(NamedTuple):
    """The current phase. `seq` rises by one at every phase change; inputs and
    deadline jobs carry it so that stale ones can be refused.

    `deadline` is absolute (seconds since the epoch, as given by the caller's
    clock); while paused it is None and `paused_left` holds the remaining time.
    """

    name: str
    seq: int = 0
    round: int = 0
    started: float = 0.0
    deadline: float | None = None
    paused_left: float | None = None

    @property
    def paused(self) -> bool:
        return self.paused_left is not None


class Game(NamedTuple):
    """One game, whatever its kind."""

    id: str
    kind: str
    seed: str
    host: str
    lang: str = "nb"
    version: int = 0
    players: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    options: tuple[tuple[str, Any], ...] = ()
    setup: str = "{}"  # the fixed deal as canonical JSON (scripts and tests)
    phase: Phase = Phase(LOBBY)
    missed: tuple[int, ...] = ()  # consecutive missed deadlines, per seat
    rules: Any = None  # the game module's own state
    winner: str | None = None
    ended_by_host: bool = False
    # The game's time zone as UTC offsets from the start on (gameflow.core.clock),
    # given with the host's start: the core reads no time-zone database.
    zone: tuple[tuple[float, float], ...] = ()
    # Players who said they are away (gameflow.core.away): (player id, until
    # instant) pairs, sorted. Private: no view shows it (only the host is told).
    away: tuple[tuple[str, float], ...] = ()

    @property
    def over(self) -> bool:
        return self.phase.name == OVER

    @property
    def running(self) -> bool:
        return self.phase.name not in (LOBBY, OVER)

    def option(self, name: str, default: Any = None) -> Any:
        for key, value in self.options:
            if key == name:
                return value
        return default

    def seat(self, player: str) -> int:
        """Seat index of `player`, or -1 if they are not in the game (asked
        without raising: a miss is common, in every join and lobby listing)."""
        players = self.players
        return players.index(player) if player in players else -1

    def name_of(self, player: str) -> str:
        i = self.seat(player)
        return self.names[i] if i >= 0 else player


def replace_at(record: T, index: int, value: Any) -> T:
    """`record._replace(<field at index>=value)` for a NamedTuple, several times
    cheaper than `_replace` (which goes through keyword dictionaries). Used only
    on the engine's hot paths, with indices looked up once from `_fields`.
    (Copying through a list costs a third less than slicing and unpacking.)"""
    values = list(record)
    values[index] = value
    return tuple.__new__(type(record), values)


_INDEX: dict[type, dict[str, int]] = {}


def update(record: T, **changes: Any) -> T:
    """`record._replace(**changes)` several times faster for wide records (the
    30-field game states are copied on every input); `replace_at` is faster
    still for one field at a known index."""
    cls = type(record)
    index = _INDEX.get(cls)
    if index is None:
        index = _INDEX[cls] = {name: i for i, name in enumerate(cls._fields)}  # type: ignore[attr-defined]
    values = list(record)
    for name, value in changes.items():
        values[index[name]] = value
    return tuple.__new__(cls, values)


_VERSION: Final = Game._fields.index("version")
_RULES: Final = Game._fields.index("rules")


def with_version(game: Game, version: int) -> Game:
    """`game._replace(version=version)`, several times cheaper: it runs after
    every accepted action."""
    values = list(game)
    values[_VERSION] = version
    return tuple.__new__(Game, values)


def with_rules(game: Game, rules: Any) -> Game:
    """`game._replace(rules=rules)`, several times cheaper: most inputs change
    only the game module's own state."""
    values = list(game)
    values[_RULES] = rules
    return tuple.__new__(Game, values)


def input_state(game: Game, rules: Any) -> Game:
    """The Game after one of a game's own inputs that changed only the game
    module's state: `rules` in place and the version bumped, in one copy. The
    engine bumps the version of every accepted input and sees this one done, so
    the commonest inputs (a vote, a mission card) copy the Game once, not twice."""
    values = list(game)
    values[_RULES] = rules
    values[_VERSION] = game.version + 1
    made: Game = tuple.__new__(Game, values)
    return made


def seed_digest(seed: str) -> str:
    """The fair-deal commitment: SHA-256 of the seed, published from the start."""
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()
