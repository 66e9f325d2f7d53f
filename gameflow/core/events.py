"""Events: what the world outside the core must do after an accepted transition.

An event says *who* must be told *what*; it never says *how*. Telegram, SMS and
the status page each render the same events their own way, and the scheduler
reads the timer events. Audiences are explicit so a secret can only reach the
person it was addressed to.
"""

from __future__ import annotations

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


def announce(text: Msg, phase: int) -> Event:
    return Event(Kind.ANNOUNCE, None, text, phase)


def tell(to: str, text: Msg, phase: int, *, secret: bool = False) -> Event:
    return Event(Kind.TELL, to, text, phase, secret=secret)


def prompt(to: str, phase: int, text: Msg | None = None) -> Event:
    return Event(Kind.PROMPT, to, text, phase)


def to_host(host: str, text: Msg, phase: int) -> Event:
    return Event(Kind.HOST, host, text, phase)
