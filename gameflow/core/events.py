"""Events: what the world outside the core must do after an accepted transition.

An event says *who* must be told *what*; it never says *how*. Telegram, SMS and
the status page each render the same events their own way, and the scheduler
reads the timer events. Audiences are explicit so a secret can only reach the
person it was addressed to.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import NamedTuple

from gameflow.core.text import Msg


class Kind(StrEnum):
    """What an event asks of the adapters."""

    ANNOUNCE = "announce"  # public: TV page and group chats
    TELL = "tell"  # private message to one player
    PROMPT = "prompt"  # a player must act now: render their legal actions
    HOST = "host"  # private message to the host
    TIMER = "timer"  # the current phase ends at `at` (scheduler arms it)
    REMINDER = "reminder"  # remind `to` at `at` unless they have acted
    CHANGED = "changed"  # the public view changed: refresh screens
    OVER = "over"  # the game has ended


class Event(NamedTuple):
    """One thing to tell someone.

    `to` is a player id for TELL/PROMPT/REMINDER, the host id for HOST, and None
    for public events. `secret` marks private text that must never be forwarded
    (Telegram sends it with protect_content). `phase` is the phase sequence
    number it belongs to, so late deliveries can be recognised as stale.
    (A NamedTuple for cheap construction: several are made per action.)
    """

    kind: Kind
    to: str | None = None
    text: Msg | None = None
    phase: int = 0
    at: float | None = None
    secret: bool = False


# The constructors below build the tuple directly (`tuple.__new__`), skipping the
# NamedTuple's Python-level `__new__` and its keyword handling: the engine makes
# several events per input, and this halves their cost. Same values, same type.
_new = tuple.__new__
_ANNOUNCE, _TELL, _PROMPT, _HOST = Kind.ANNOUNCE, Kind.TELL, Kind.PROMPT, Kind.HOST
_TIMER, _REMINDER, _CHANGED = Kind.TIMER, Kind.REMINDER, Kind.CHANGED


def announce(text: Msg, phase: int) -> Event:
    return _new(Event, (_ANNOUNCE, None, text, phase, None, False))


def tell(to: str, text: Msg, phase: int, *, secret: bool = False) -> Event:
    return _new(Event, (_TELL, to, text, phase, None, secret))


def prompt(to: str, phase: int, text: Msg | None = None) -> Event:
    return _new(Event, (_PROMPT, to, text, phase, None, False))


def prompts(to: Iterable[str], phase: int) -> list[Event]:
    """`prompt(p, phase)` for each of `to`, in order (a whole table at once)."""
    return [_new(Event, (_PROMPT, p, None, phase, None, False)) for p in to]


def to_host(host: str, text: Msg, phase: int) -> Event:
    return _new(Event, (_HOST, host, text, phase, None, False))


def changed(phase: int = 0) -> Event:
    """The public view changed (refresh screens); `Event(Kind.CHANGED, phase=phase)`."""
    return _new(Event, (_CHANGED, None, None, phase, None, False))


def timer(phase: int, at: float) -> Event:
    return _new(Event, (_TIMER, None, None, phase, at, False))


def reminder(phase: int, at: float) -> Event:
    return _new(Event, (_REMINDER, None, None, phase, at, False))
