"""The contract every game module fulfils, and the games' rules by kind.

The engine owns what all games share (lobby, host controls, versions,
deadlines, missed-deadline reports); a game module owns its rules, phases, legal
actions, views and replay record. Nothing here knows any particular game: the
composition root registers each game's definition (gameflow.core.registry).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from gameflow.core.actions import Action
from gameflow.core.legal import ActionSpec
from gameflow.core.options import Limit
from gameflow.core.result import Accepted, Rejected
from gameflow.core.state import Game
from gameflow.core.text import Msg


class Rules(Protocol):
    kind: str
    min_players: int
    max_players: int
    # Kinds of the game's own actions the host (game master) may send; the
    # engine lets them through from the host, and they never auto-advance.
    host_kinds: tuple[str, ...]
    # The game's campaign windows (gameflow.core.campaign) as (window name,
    # phase it closes, option holding its "HH:MM") triples; () for a game
    # without calendar pacing.
    windows: tuple[tuple[str, str, str], ...]
    # Optional (read with getattr by the engine's view): `secret_inputs`, True
    # when how many inputs came is itself a secret even to the host's ordinary
    # view (a Traitors night's votes): that view then carries no `version`.

    @property
    def option_limits(self) -> Mapping[str, Limit]:
        """Each option's range or choices (gameflow.core.options); an option
        left out takes any value of its type."""
        ...

    def default_options(self) -> dict[str, Any]:
        """Options and their defaults; the host may change them in the lobby."""
        ...

    def start(self, game: Game, now: float) -> Accepted[Game] | Rejected:
        """Deal the game (roles, first phase) from the seed and `game.setup`."""
        ...

    def act(self, game: Game, action: Action, now: float) -> Accepted[Game] | Rejected:
        """Apply one of the game's own actions. The engine bumps the version,
        unless the new state was built by `state.input_state`, which did."""
        ...

    def end_phase(self, game: Game, now: float) -> Accepted[Game]:
        """End the current phase as its deadline would, and enter the next."""
        ...

    def awaiting(self, game: Game) -> tuple[int, ...]:
        """Seats that still owe an input in this phase (empty: everyone ready)."""
        ...

    def ready(self, game: Game) -> bool:
        """Whether the phase may end before its deadline: usually `not
        awaiting(game)`, which the engine asks after every input, so a game may
        answer it without listing who is awaited. Automatic advancing and the
        host's early advance both ask it; a phase that must never end early
        (a Traitors night) answers False whoever has answered."""
        ...

    def expected(self, game: Game) -> tuple[int, ...]:
        """Seats that owed an input in this phase at all (active players)."""
        ...

    def secret_awaiting(self, game: Game) -> bool:
        """Whether who is awaited is itself a secret now (Traitors' night): then
        missed deadlines go uncounted and unreported."""
        ...

    def legal(self, game: Game, player: str) -> tuple[ActionSpec, ...]:
        """What `player` may do now: the one source for validation and UIs."""
        ...

    def ask(self, game: Game, player: str) -> tuple[Msg, ...]:
        """The context lines of `player`'s open question (see
        gameflow.core.question): what a channel must say beside the answers so
        that a player without a TV knows what is asked (the team size to pick,
        the plans to choose from). Part of the question: when they change, the
        player is asked again."""
        ...

    def public_view(self, game: Game) -> dict[str, Any]: ...

    def player_view(self, game: Game, player: str) -> dict[str, Any]: ...

    def host_view(self, game: Game) -> dict[str, Any]: ...

    def record(self, game: Game) -> dict[str, Any]:
        """The game-specific part of the replay record."""
        ...

    def parse_step(self, step: Mapping[str, Any]) -> Action | None:
        """A script step for one of this game's own actions, or None."""
        ...

    def step_of(self, action: Action) -> dict[str, Any] | None:
        """The script step for one of this game's own actions, or None."""
        ...


def rules_for(kind: str) -> Rules:
    """The rules of the registered game `kind` (KeyError for an unknown one)."""
    from gameflow.core import registry  # which imports the definitions, which import Rules

    return registry.get(kind).rules


def known_games() -> tuple[str, ...]:
    from gameflow.core import registry

    return tuple(sorted(d.kind for d in registry.all_games()))
