"""The rules of a game whose flow module runs its phases, written once (issue #30).

Resistance and Station hand `start` and `end_phase` to their flow module and
`expected` to their inputs module, take no game-master actions, and never keep
who is awaited a secret. A game's `Rules` class derives from `Phased`, made
with its inputs, views and flow modules, and holds only what is its own.
Their options share the same frame too (`phased_options`, `phased_limits`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from gameflow.core import gamemaster
from gameflow.core.campaign import WindowDecl, campaign_limits
from gameflow.core.delegating import Delegating, GameInputs, GameViews
from gameflow.core.options import FLAG, Limit, seconds
from gameflow.core.result import Accepted, Rejected
from gameflow.core.state import Game


class GameFlow(Protocol):
    """A game's flow module: how it starts and how each phase ends."""

    def start(self, game: Game, now: float) -> Accepted[Game] | Rejected: ...

    def end_phase(self, game: Game, now: float) -> Accepted[Game]: ...


class PhasedInputs(GameInputs, Protocol):
    """A game's inputs module that also says whose input a phase expects."""

    def expected(self, game: Game) -> tuple[int, ...]: ...


class Phased(Delegating):
    """`Delegating`, with `start` and `end_phase` passed on to the flow module
    and `expected` to the inputs module."""

    host_kinds: tuple[str, ...] = ()  # no game-master actions

    def __init__(self, inputs: PhasedInputs, views: GameViews, flow: GameFlow) -> None:
        super().__init__(inputs, views)
        self._expects = inputs
        self._flow = flow

    def start(self, game: Game, now: float) -> Accepted[Game] | Rejected:
        return self._flow.start(game, now)

    def end_phase(self, game: Game, now: float) -> Accepted[Game]:
        return self._flow.end_phase(game, now)

    def expected(self, game: Game) -> tuple[int, ...]:
        return self._expects.expected(game)

    def secret_awaiting(self, game: Game) -> bool:
        return False  # who is awaited is never a secret here


def phased_options(
    phases: Mapping[str, float], own: Mapping[str, Any], pacing: Mapping[str, Any]
) -> dict[str, Any]:
    """A phased game's defaults, in the order the host reads them: its phases'
    seconds on fast pacing (`phases`), the reminder a minute before a deadline,
    an early end once everyone has answered, the game's `own`, no talk through
    the bot (issue #33, service/talk.py: a live game's table talks in the room,
    a campaign's through the bot anyway; the hidden side's private talk is off),
    a host who may play too, then the `pacing` options (gameflow.core.campaign)."""
    return {
        **phases,
        "reminder_before": 60.0,
        "auto_advance": True,
        **own,
        "table_talk": False,
        "team_talk": False,
        **gamemaster.option(gamemaster.PLAYS),
        **pacing,
    }


def phased_limits(own: Mapping[str, Limit], windows: tuple[WindowDecl, ...]) -> dict[str, Limit]:
    """What each option of `phased_options` takes: the game's `own` (its phases'
    seconds among them), [decision] the reminder up to a week, and the campaign's
    options with the window options of `windows`."""
    return {
        **own,
        "reminder_before": seconds(),
        "auto_advance": FLAG,
        "table_talk": FLAG,
        "team_talk": FLAG,
        gamemaster.OPTION: gamemaster.LIMIT,
        **campaign_limits(option for _, _, option in windows),
    }
