"""The outbound queue against the fake Bot API: per-chat order, the rate limits
on a virtual clock, prompts before chatter, and 429s that delay but never lose
a message."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

import pytest
from telegram import Bot

from adapters.ratelimit import Bucket, Grant, MemoryLimiter
from adapters.sendloop import LOOKAHEAD, SendLoop
from adapters.telegram.outbound import ODD_TRIES, Failed, Outbound, Priority
from tests.fake_telegram import TOKEN, FakeBotApi, VirtualTime, serving
from tests.store_helpers import run

pytestmark = pytest.mark.telegram


def text(chat: int, body: str) -> Callable[[Bot], Awaitable[Any]]:
    async def call(bot: Bot) -> Any:
        return await bot.send_message(chat, body)

    return call


@contextlib.asynccontextmanager
async def queued(**kw: Any) -> AsyncIterator[tuple[FakeBotApi, Outbound, VirtualTime]]:
    """A fresh fake Bot API and the outbound queue to it (`kw` its options) on
    a virtual clock, started; stopped and its bot shut down once the body ran."""
    async with serving(FakeBotApi()) as api:
        bot = Bot(TOKEN, base_url=api.base_url)
        await bot.initialize()
        vt = VirtualTime()
        out = Outbound(bot, clock=vt.clock, sleep=vt.sleep, keep_log=True, **kw)
        await out.start()
        yield api, out, vt
        await out.stop()
        await bot.shutdown()


def test_per_chat_order_and_429_retries_lose_nothing() -> None:
    async def go() -> None:
        async with queued() as (api, out, vt):
            api.fail("sendMessage", times=2, retry_after=7, chat_id=11)
            for i in range(6):
                for chat in (11, 12, -500):
                    out.send(chat, text(chat, f"m{i}"), label=f"m{i}")
            await out.join()
            for chat in (11, 12, -500):
                assert api.texts(chat) == [f"m{i}" for i in range(6)]
            assert len(api.refused) == 2 and out.stats.retried_429 == 2
            assert out.stats.sent == 18 and out.stats.failed == 0
            assert any(s >= 7 for s in vt.slept) or vt.now >= 14  # it waited as told
            # 1 message/s per private chat, 20/min per group
            assert vt.now >= 5 * 3.0

    run(go())


def test_rates_are_kept_on_the_virtual_clock() -> None:
    async def go() -> None:
        async with queued(per_second=30.0) as (_api, out, vt):
            sent_at: list[tuple[int, float]] = []
            for chat in range(1, 16):
                out.send(
                    chat,
                    text(chat, "prompt"),
                    on_done=lambda _, c=chat: sent_at.append((c, vt.now)),
                )
            for _ in range(3):
                out.send(99, text(99, "chatter"), on_done=lambda _: sent_at.append((99, vt.now)))
            await out.join()
            assert len(sent_at) == 18
            # 15 players' prompts go out within Telegram's 30/s: about 0.5 s
            fifteenth = sorted(t for c, t in sent_at if c != 99)[-1]
            assert 14 / 30 - 1e-9 <= fifteenth <= 0.5 + 1e-9
            mine = [t for c, t in sent_at if c == 99]
            assert mine[1] - mine[0] >= 1.0 and mine[2] - mine[1] >= 1.0

    run(go())


def test_prompts_go_before_chatter() -> None:
    async def go() -> None:
        async with queued(per_second=1.0) as (api, out, _):
            for chat in (1, 2, 3):
                out.send(chat, text(chat, "news"), priority=Priority.CHATTER, label="news")
            out.send(4, text(4, "your turn"), priority=Priority.PROMPT, label="prompt")
            out.send(1, text(1, "later news"), priority=Priority.PROMPT, label="after-news")
            await out.join()
            labels = [label for _, label in out.stats.log]
            assert labels[0] == "prompt"
            # ...but never ahead of an earlier message to the same chat
            assert labels.index("news") < labels.index("after-news")
            assert api.texts(1) == ["news", "later news"]

    run(go())


def test_gateway_errors_are_retried_and_refused_calls_dropped() -> None:
    async def go() -> None:
        async with queued() as (api, out, _):
            api.fail("sendMessage", times=2, chat_id=21, status=502)
            api.fail("sendMessage", times=1, chat_id=22, status=400)
            for i in range(3):
                for chat in (21, 22):
                    out.send(chat, text(chat, f"m{i}"), label=f"m{i}")
            await out.join()
            assert api.texts(21) == ["m0", "m1", "m2"]  # resent after the 502s, in order
            assert api.texts(22) == ["m1", "m2"]  # the refused one is dropped, the rest go on
            assert out.stats.retried_network == 2 and out.stats.failed == 1

    run(go())


class LateSlotFails(MemoryLimiter):
    """The limiter away exactly when a late send asks for a new slot (on the
    send loop, just before the request): the queue's first ask is granted,
    the send's ask after it raises. Every ask's lookahead is kept."""

    def __init__(self) -> None:
        super().__init__()
        self.failed = 0
        self.asks: list[float] = []

    async def reserve(self, buckets: Sequence[Bucket], *, within: float = 0.0) -> Grant:
        self.asks.append(within)
        if len(self.asks) == 2:
            self.failed += 1
            raise ConnectionError("limiter away")
        return await super().reserve(buckets, within=within)


def test_a_limiter_error_before_the_request_delays_the_message_never_drops_it() -> None:
    """A send whose slot was missed takes a new one on the send loop; the
    limiter failing then means nothing left: the message is sent later, not
    settled as refused (which would ack its outbox entry as failed: lost)."""

    def late(chat: int, body: str) -> Callable[[Bot], Awaitable[Any]]:
        async def call(bot: Bot) -> Any:
            await asyncio.sleep(0.1)  # the handover misses the reserved slot
            return await bot.send_message(chat, body)

        return call

    async def go() -> None:
        async with serving(FakeBotApi()) as api:
            bot = Bot(TOKEN, base_url=api.base_url)
            await bot.initialize()
            limiter = LateSlotFails()
            out = Outbound(bot, limiter=limiter, send_loop=SendLoop("late"), network_retry=0.05)
            await out.start()
            job = out.send(31, late(31, "hello"), label="hello")
            result = await asyncio.wait_for(job.wait(), 10)
            assert limiter.failed == 1
            # the queue's ask, the late send's (failed), the queue's again: a late send
            # looks ahead as the queue does (asking for a slot free this very moment,
            # it would lose every race to the queue's asks while a backlog lasts)
            assert len(limiter.asks) >= 3 and set(limiter.asks) == {LOOKAHEAD}, limiter.asks
            assert getattr(result, "message_id", None) is not None, result
            assert api.texts(31) == ["hello"]
            assert out.stats.limiter_errors == 1 and out.stats.failed == 0
            await out.stop()
            await bot.shutdown()

    run(go())


def test_an_odd_failure_is_tried_again_a_few_times_then_given_up() -> None:
    """A call failing for a reason Telegram did not give (the store away while
    a prompt checks its ticket) goes again later; one that keeps failing is
    given up after ODD_TRIES, and the chat's next call still goes."""

    def flaky(chat: int, body: str, fails: int) -> Callable[[Bot], Awaitable[Any]]:
        left = [fails]

        async def call(bot: Bot) -> Any:
            if left[0] > 0:
                left[0] -= 1
                raise OSError("store away")
            return await bot.send_message(chat, body)

        return call

    async def go() -> None:
        async with queued() as (api, out, _):
            once = out.send(41, flaky(41, "once", 1), label="once")
            never = out.send(42, flaky(42, "never", 99), label="never")
            after = out.send(42, text(42, "after"), label="after")
            await out.join()
            assert api.texts(41) == ["once"] and once.attempts == 2
            assert isinstance(never.outcome, Failed) and never.attempts == ODD_TRIES
            assert api.texts(42) == ["after"] and after.settled
            assert out.stats.failed == 1 and out.stats.retried_network == ODD_TRIES

    run(go())
