"""The outbound queue's units (outbound.py): a `Job` is one Bot API call with
its chat, priority and what waits for it; `Failed` is what a call Telegram
refused for good settles with; `Stats` are the queue's counts. Kept apart so
the queue's module holds the scheduling, and what the outbox delivery and the
news merging handle (jobs, their settling) reads on its own."""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import timedelta
from enum import IntEnum
from typing import Any

from telegram import Bot
from telegram.error import RetryAfter
from telegram.warnings import PTBDeprecationWarning

from adapters.sendloop import Slot


class Priority(IntEnum):
    PROMPT = 0  # prompts and secrets of the current phase
    NORMAL = 1  # replies, confirmations
    CHATTER = 2  # lobby news, announcements, relayed chat


Call = Callable[[Bot], Awaitable[Any]]


@dataclass(slots=True)
class Job:
    chat_id: int
    call: Call
    priority: Priority = Priority.NORMAL
    on_done: Callable[[Any], None] | None = None
    paced: bool = True
    label: str = ""
    order: int = 0
    attempts: int = 0
    slot: Slot | None = None  # the reserved send time, when sent from a send loop
    # Resolved when the call is done for good: with its result once Telegram
    # accepted it, with a `Failed` when it never can be (the outbox delivery
    # acks its entry either way, telegram/delivery.py).
    waiter: asyncio.Future[Any] | None = None
    settled: bool = False
    outcome: Any = None
    withdrawn: bool = False  # not to be sent after all (its batch went to another worker)
    holders: int = 1  # the entries it carries (news merges more into one call)

    def wait(self) -> asyncio.Future[Any]:
        if self.waiter is None:
            self.waiter = asyncio.get_running_loop().create_future()
            if self.settled:
                self.waiter.set_result(self.outcome)
        return self.waiter

    def settle(self, result: Any) -> None:
        if self.settled:
            return
        self.settled, self.outcome = True, result
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(result)


@dataclass(frozen=True, slots=True)
class Failed:
    """A call Telegram refused for good (a blocked bot, a deleted chat)."""

    error: str


@dataclass(slots=True)
class Stats:
    sent: int = 0
    retried_429: int = 0
    retried_network: int = 0
    limiter_errors: int = 0
    failed: int = 0
    waited: float = 0.0
    log: list[tuple[int, str]] = field(default_factory=list)  # (chat, label) in dispatch order


def retry_seconds(exc: RetryAfter) -> float:
    """`retry_after` in seconds, whichever type this PTB release returns
    (PTB 22 warns when its int form is read)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PTBDeprecationWarning)
        value = exc.retry_after
    return value.total_seconds() if isinstance(value, timedelta) else float(value)
