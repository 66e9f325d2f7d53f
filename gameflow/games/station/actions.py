"""Station's own actions: plain immutable records, one per script step
(`choose`, `vote`); their handlers and legal values are in inputs.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from gameflow.core.actions import Action


@dataclass(frozen=True, slots=True)
class Choose(Action):
    """«Send valget»: plan (1–3), job, optional partner, optional secret action."""

    kind: ClassVar[str] = "choose"
    plan: int = 0
    job: str = ""
    partner: str | None = None
    sabotage: bool = False
    trap: bool = False


@dataclass(frozen=True, slots=True)
class Vote(Action):
    """«Send stemmen»: another active player, or None for «Ingen»."""

    kind: ClassVar[str] = "vote"
    target: str | None = None
