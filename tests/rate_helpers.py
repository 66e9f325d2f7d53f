"""Measuring send rates at the fakes: arrival times per chat and per bot.

A limit of `count` per `per` seconds with `burst` back to back allows at most
`count + burst - 1` arrivals in any window of `per` seconds. Arrival times are
taken at the fake, after a loopback HTTP hop whose delay varies by a few
milliseconds: two sends reserved exactly one interval apart may arrive a
little closer. `SLACK` is that allowance, taken off the window (a window of
0.95 s must still hold no more than the limit): far below what one extra
message in a window would show (a whole interval)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import threading
from collections.abc import Iterable, Iterator, Sequence

from adapters.ratelimit import Rate, TelegramRates
from adapters.sendloop import SendLoop
from tests.fake_telegram import FakeBotApi, serving

SLACK = 0.05  # seconds of loopback jitter allowed (see above)
# The bot-wide count over 3 s spans every chat's arrivals from several worker
# processes: on two busy cores (the workers, Redis and the test, whose thread
# serves the fake) the fake stamped a burst of them up to ~0.2 s late (seen: 92
# in 2.9 s in the Telegram kill test, 91 in 3 s in the rate-limit workers test).
# Two workers not sharing the bot's bucket would show about twice the limit.
BOT_JITTER = 0.25

# Telegram's limits scaled up, so the limiter tests take seconds, not minutes;
# the group's has a burst, to test that too.
RATES = TelegramRates(bot=Rate(50.0), private=Rate(8.0), group=Rate(5.0, 1.0, burst=3))


def most_in_window(times: Iterable[float], window: float) -> int:
    """The most arrivals in any half-open window [t, t + window)."""
    ts = sorted(times)
    best, j = 0, 0
    for i, t in enumerate(ts):
        while ts[j] <= t - window:
            j += 1
        best = max(best, i - j + 1)
    return best


def over(times: Sequence[float], rate: Rate, slack: float = SLACK) -> bool:
    """Whether `times` broke `rate` in some window (shortened by `slack`)."""
    return most_in_window(times, rate.per - slack) > rate.count + rate.burst - 1


def min_gap(times: Iterable[float]) -> float:
    ts = sorted(times)
    return min((b - a for a, b in itertools.pairwise(ts)), default=float("inf"))


@contextlib.contextmanager
def fake_in_thread(api: FakeBotApi) -> Iterator[FakeBotApi]:
    """Serve `api` from an event loop in a thread of its own, so that the
    arrival times it stamps are not delayed by the test's own loop (which
    may be busy posting hundreds of webhooks at once)."""
    loop = SendLoop("fake-bot-api")
    loop.start()
    assert loop.loop is not None
    started = threading.Event()

    async def main() -> None:
        stop = asyncio.Event()
        loop_stop.append(stop)
        async with serving(api):
            started.set()
            await stop.wait()

    loop_stop: list[asyncio.Event] = []
    future = asyncio.run_coroutine_threadsafe(main(), loop.loop)
    started.wait(10)
    try:
        yield api
    finally:
        loop.loop.call_soon_threadsafe(loop_stop[0].set)
        future.result(10)
        loop.stop()
