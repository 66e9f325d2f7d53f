"""Doubling waits between attempts, written once.

A Twilio send, a channel's start, the scheduler's lease and its re-submitted
deadlines all try again after a failure, first after a short wait, then after
twice the last one, up to a ceiling. This is that rule; each caller keeps its
own sleeping (asyncio, a stop event, or a table of due times).
"""

from __future__ import annotations


def doubled(wait: float | None, first: float, most: float) -> float:
    """The wait after one more failure: `first` after the first (`wait` None),
    then twice the last `wait`, never more than `most`."""
    return first if wait is None else min(most, wait * 2)


class Backoff:
    """The waits of one loop that tries again: `failed()` gives the next wait,
    `reset()` starts over after a success."""

    __slots__ = ("failures", "first", "most", "wait")

    def __init__(self, first: float, most: float) -> None:
        self.first = first
        self.most = most
        self.wait: float | None = None  # the last wait given (None: no failure since reset)
        self.failures = 0

    def failed(self) -> float:
        """One more failure: the seconds to wait before the next attempt."""
        self.wait = doubled(self.wait, self.first, self.most)
        self.failures += 1
        return self.wait

    def reset(self) -> None:
        self.wait, self.failures = None, 0
