"""Transition results: a transition either accepts (new state + events) or rejects.

Rejections are ordinary values, not exceptions: a refused input is expected
traffic (a stale button, a late vote) and must change nothing. Exceptions are
reserved for programmer errors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Generic, NamedTuple, TypeVar

from gameflow.core.text import Msg, Param

if TYPE_CHECKING:
    from gameflow.core.events import Event

S = TypeVar("S")


class Accepted(NamedTuple, Generic[S]):
    """The input was applied: `state` is the new state, `events` who to tell what."""

    state: S
    events: tuple[Event, ...]

    @property
    def ok(self) -> bool:
        return True


class Rejected(NamedTuple):
    """The input was refused: a stable reason code and a translatable message."""

    code: str
    message: Msg

    @property
    def ok(self) -> bool:
        return False


Result = Accepted[S] | Rejected


def reject(code: str, msgid: str, **params: Param) -> Rejected:
    """A refusal with a stable `code` and a translatable explanation."""
    return Rejected(code, Msg(msgid, tuple(params.items())))
