"""The Traitors' inputs as plain immutable records (one class per kind).

Player inputs: mission replies, round-table votes and pleas, the traitors'
night votes and death list, the tempted/forced player's answer and the final end
vote. Game-master inputs (`HOST_KINDS`) come from the host, who plays no role.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from gameflow.core.actions import Action


@dataclass(frozen=True, slots=True)
class Score(Action):
    """The game master records a host-scored mission: silver won and access."""

    kind: ClassVar[str] = "score"
    silver: int = 0
    access: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Reply(Action):
    """A reply in a built-in chat mission (relay: `to` and `drop`; chests: `chest`)."""

    kind: ClassVar[str] = "mission"
    to: str | None = None
    drop: bool = False
    chest: int = 0


@dataclass(frozen=True, slots=True)
class Vote(Action):
    """A round-table vote, optionally laying the dagger down, with a one-line reason."""

    kind: ClassVar[str] = "vote"
    target: str = ""
    dagger: bool = False
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Plea(Action):
    """A tied player's plea before the re-vote (one line, broadcast)."""

    kind: ClassVar[str] = "plea"
    text: str = ""


@dataclass(frozen=True, slots=True)
class Murder(Action):
    kind: ClassVar[str] = "murder"
    target: str = ""


@dataclass(frozen=True, slots=True)
class Tempt(Action):
    kind: ClassVar[str] = "tempt"
    target: str = ""


@dataclass(frozen=True, slots=True)
class Force(Action):
    kind: ClassVar[str] = "force"
    target: str = ""


# The traitors' night votes on one target (night.night_vote takes them all).
NIGHT_VOTES: tuple[type[Murder | Tempt | Force], ...] = (Murder, Tempt, Force)
NIGHT_KINDS: tuple[str, ...] = tuple(a.kind for a in NIGHT_VOTES)


@dataclass(frozen=True, slots=True)
class DeathList(Action):
    kind: ClassVar[str] = "death_list"
    names: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Answer(Action):
    kind: ClassVar[str] = "answer"
    accept: bool = False


@dataclass(frozen=True, slots=True)
class EndVote(Action):
    kind: ClassVar[str] = "end_vote"
    end: bool = True


# -- the game master -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MurderFree(Action):
    """Tonight is murder-free."""

    kind: ClassVar[str] = "murder_free"


@dataclass(frozen=True, slots=True)
class ForbidMurder(Action):
    """No murder tonight, while the death list is in play (written or in force)."""

    kind: ClassVar[str] = "forbid_murder"


@dataclass(frozen=True, slots=True)
class Recruit(Action):
    """Allow (or stop) recruitment: tempting, and forcing by a lone traitor."""

    kind: ClassVar[str] = "recruit"
    allow: bool = True


@dataclass(frozen=True, slots=True)
class PlayDagger(Action):
    """Put the dagger in the shield room (or take it out) from the next draw."""

    kind: ClassVar[str] = "dagger"
    on: bool = True


@dataclass(frozen=True, slots=True)
class PlayDeathList(Action):
    """Put the death list in play: the traitors write it tonight."""

    kind: ClassVar[str] = "death_list_on"


@dataclass(frozen=True, slots=True)
class CallFinal(Action):
    """Call the final round table early (today, or tomorrow if it is night)."""

    kind: ClassVar[str] = "final"


HOST_ACTIONS: tuple[type[Action], ...] = (
    Score,
    MurderFree,
    ForbidMurder,
    Recruit,
    PlayDagger,
    PlayDeathList,
    CallFinal,
)
HOST_KINDS: tuple[str, ...] = tuple(a.kind for a in HOST_ACTIONS)
