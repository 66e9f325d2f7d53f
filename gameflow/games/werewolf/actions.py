"""Werewolf's own actions, one per script step; their handlers and legal
values are in inputs.py."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from gameflow.core.actions import Action


@dataclass(frozen=True, slots=True)
class Kill(Action):
    """A wolf's vote for the night's victim (another living non-wolf), or None."""

    kind: ClassVar[str] = "kill"
    target: str | None = None


@dataclass(frozen=True, slots=True)
class Inspect(Action):
    """The seer's look at one other living player's side."""

    kind: ClassVar[str] = "inspect"
    target: str = ""


@dataclass(frozen=True, slots=True)
class Protect(Action):
    """The doctor's protection of one living player for the night."""

    kind: ClassVar[str] = "protect"
    target: str = ""


@dataclass(frozen=True, slots=True)
class Lynch(Action):
    """A day vote: another living player (among the tied in a re-vote), or None."""

    kind: ClassVar[str] = "lynch"
    target: str | None = None


ACTIONS: tuple[type[Action], ...] = (Kill, Inspect, Protect, Lynch)
