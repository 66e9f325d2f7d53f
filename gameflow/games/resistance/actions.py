"""Resistance's own actions: plain immutable records, as in Station.

Script steps map one to one: `propose`, `vote`, `mission`, `give`, `play`, and
`pass` (a plot-card holder declines to use a mission-phase card now).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Final

from gameflow.core.actions import Action


@dataclass(frozen=True, slots=True)
class Propose(Action):
    """The leader's team, in the order given."""

    kind: ClassVar[str] = "propose"
    team: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Vote(Action):
    kind: ClassVar[str] = "vote"
    approve: bool = False


@dataclass(frozen=True, slots=True)
class Mission(Action):
    kind: ClassVar[str] = "mission"
    card: str = ""


@dataclass(frozen=True, slots=True)
class Give(Action):
    """The leader hands one drawn plot card to another player."""

    kind: ClassVar[str] = "give"
    card: str = ""
    to: str = ""


@dataclass(frozen=True, slots=True)
class Play(Action):
    """Use a plot card one holds (or resolve an immediate card one was given)."""

    kind: ClassVar[str] = "play"
    card: str = ""
    target: str | None = None
    take: str | None = None  # Take Responsibility: which of the target's cards


@dataclass(frozen=True, slots=True)
class Pass(Action):
    """Decline to use one's mission-phase plot cards this time."""

    kind: ClassVar[str] = "pass"


ACTIONS: Final = (Propose, Vote, Mission, Give, Play, Pass)
