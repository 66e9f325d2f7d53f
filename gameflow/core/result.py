"""Transition results: a transition either accepts (new state + events) or rejects.

Rejections are ordinary values, not exceptions: a refused input is expected
traffic (a stale button, a late vote) and must change nothing. Exceptions are
reserved for programmer errors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Generic, NamedTuple, TypeVar

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

_new: Final = tuple.__new__


def accepted(state: S, events: tuple[Event, ...]) -> Accepted[S]:
    """`Accepted(state, events)`, built directly: a NamedTuple's own `__new__`
    is Python code with keyword handling, and every accepted input makes one."""
    made: Accepted[S] = _new(Accepted, (state, events))
    return made


def reject(code: str, msgid: str, **params: Param) -> Rejected:
    """A refusal with a stable `code` and a translatable explanation."""
    return Rejected(code, Msg(msgid, tuple(params.items())))
