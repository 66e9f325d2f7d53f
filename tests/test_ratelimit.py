"""The send-rate buckets (adapters/ratelimit.py), measured at the fake Bot API.

- GCRA's arithmetic on a virtual clock: spacing, burst, all-or-nothing
  reservations over two buckets, the blocking bucket named, a 429's hold;
- the memory limiter shared by four sending tasks, and the Redis limiter
  shared by three client processes (each its own connections), at Telegram's
  limits scaled up (tests/rate_helpers.RATES): the arrival times at the fake
  never exceed the bot's, a private chat's or a group's limit in any window;
- the outbound queue on the Redis limiter: a 429 for a chat holds that chat
  for every worker sharing the buckets, and the message arrives later, never
  dropped; prompts still overtake a backlog of news.
"""

from __future__ import annotations

import asyncio
import sys
from collections import defaultdict
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from telegram import Bot

from adapters.ratelimit import (
    Bucket,
    MemoryLimiter,
    Rate,
    RedisLimiter,
    TelegramRates,
    bot_scope,
    telegram_buckets,
)
from adapters.sendloop import SendLoop
from adapters.telegram.outbound import Outbound, Priority
from tests.fake_telegram import TOKEN, FakeBotApi, VirtualTime, serving
from tests.rate_helpers import RATES, SLACK, min_gap, most_in_window, over
from tests.store_helpers import redis_url_or_fail, run, run_then_drop, unique_prefix

pytestmark = pytest.mark.telegram
ROOT = Path(__file__).resolve().parents[1]
SCOPE = bot_scope(TOKEN)


def by_chat(api: FakeBotApi) -> dict[int, list[float]]:
    out: dict[int, list[float]] = defaultdict(list)
    for c in api.sent():
        assert c.chat_id is not None
        out[c.chat_id].append(c.at)
    return out


def check_rates(api: FakeBotApi, rates: TelegramRates) -> dict[str, float]:
    """Assert every limit held at the fake; return the peaks measured."""
    times = by_chat(api)
    every = [t for ts in times.values() for t in ts]
    assert not over(every, rates.bot), most_in_window(every, rates.bot.per)
    for chat, ts in times.items():
        rate = rates.group if chat < 0 else rates.private
        assert not over(ts, rate), (chat, most_in_window(ts, rate.per))
    private = [ts for c, ts in times.items() if c > 0]
    return {
        "bot_peak_per_s": most_in_window(every, 1.0),
        "chat_peak_per_s": max(most_in_window(ts, 1.0) for ts in private),
        "chat_min_gap_s": min(min_gap(ts) for ts in private),
    }


def test_gcra_spacing_burst_and_all_or_nothing_on_a_virtual_clock() -> None:
    async def go() -> None:
        vt = VirtualTime()
        lim = MemoryLimiter(vt.clock)
        bot = Bucket("tg:1", "bot", Rate(2.0))  # one per 0.5 s
        chat = Bucket("tg:1", "chat:5", Rate(1.0))
        group = Bucket("tg:1", "chat:-5", Rate(1.0, 1.0, burst=3))
        assert (await lim.reserve([bot, chat])).ok
        # the chat is busy for 1 s, the bot for 0.5 s: the chat is named
        g = await lim.reserve([bot, chat])
        assert not g.ok and g.blocker == 1 and g.wait == pytest.approx(1.0)
        # nothing was taken from the bot by the refused reservation
        vt.now = 0.5
        assert (await lim.reserve([bot])).ok
        g = await lim.reserve([bot, chat])
        assert not g.ok and g.blocker == 0 and g.wait == pytest.approx(0.5)
        # within: a slot 0.5 s ahead is reserved when that is close enough
        g = await lim.reserve([bot, chat], within=0.5)
        assert g.ok and g.wait == pytest.approx(0.5)
        # a burst of 3 back to back, then one a second
        assert [(await lim.reserve([group])).ok for _ in range(4)] == [True, True, True, False]
        vt.now = 1.5
        assert (await lim.reserve([group])).ok and not (await lim.reserve([group])).ok
        # a 429's hold: nothing on that bucket until it ends
        await lim.hold(chat, 7.0)
        g = await lim.reserve([chat])
        assert not g.ok and g.wait == pytest.approx(7.0)

    run(go())


async def send_directly(lim: Any, api: FakeBotApi, chats: list[int], per_chat: int) -> None:
    """One sender: a task per chat, each asking the limiter before every send."""
    async with httpx.AsyncClient() as http:

        async def one_chat(chat: int) -> None:
            for i in range(per_chat):
                while not (g := await lim.reserve(telegram_buckets(SCOPE, RATES, chat))).ok:
                    await asyncio.sleep(g.wait)
                await asyncio.sleep(g.wait)
                url = f"{api.base_url}{TOKEN}/sendMessage"
                r = await http.post(url, json={"chat_id": chat, "text": f"m{i}"})
                assert r.status_code == 200

        await asyncio.gather(*(one_chat(c) for c in chats))


CHATS = [11, 12, 13, 14, 15, 16, -21]


def test_the_memory_limiter_holds_for_four_senders_in_one_process() -> None:
    async def go() -> dict[str, float]:
        async with serving(FakeBotApi()) as api:
            lim = MemoryLimiter()
            await asyncio.gather(*(send_directly(lim, api, CHATS, 4) for _ in range(4)))
            assert len(api.sent()) == 4 * 4 * len(CHATS)
            return check_rates(api, RATES)

    peaks = run(go())
    print("memory limiter, 4 senders:", peaks)
    assert peaks["bot_peak_per_s"] <= RATES.bot.count


def test_the_redis_limiter_holds_for_three_processes_together() -> None:
    url, prefix = redis_url_or_fail(), unique_prefix()
    per_chat = 6

    async def go() -> dict[str, float]:
        async with serving(FakeBotApi()) as api:
            procs = [
                await asyncio.create_subprocess_exec(
                    sys.executable,
                    "-m",
                    "tests.ratelimit_client",
                    url,
                    prefix,
                    api.base_url,
                    str(per_chat),
                    *map(str, CHATS),
                    cwd=ROOT,
                    stdout=asyncio.subprocess.PIPE,
                )
                for _ in range(3)
            ]
            outs = [await p.communicate() for p in procs]
            assert [p.returncode for p in procs] == [0, 0, 0], outs
            total = 3 * per_chat * len(CHATS)
            assert [o.decode().split() for o, _ in outs] == [["done", str(total // 3)]] * 3
            assert len(api.sent()) == total
            peaks = check_rates(api, RATES)
            # together they did use the limits: the bot's rate, or each chat's
            times = by_chat(api)
            assert most_in_window(times[11], 1.0) >= RATES.private.count - 1
            assert most_in_window(times[-21], 1.0) >= RATES.group.count
            return peaks

    peaks = run_then_drop(go(), url, prefix)
    print("redis limiter, 3 processes:", peaks)


def text(chat: int, body: str) -> Callable[[Bot], Awaitable[Any]]:
    async def call(bot: Bot) -> Any:
        return await bot.send_message(chat, body)

    return call


def test_a_429_holds_the_chat_for_every_worker_and_nothing_is_dropped() -> None:
    url, prefix = redis_url_or_fail(), unique_prefix()

    async def go() -> None:
        async with serving(FakeBotApi()) as api:
            bot = Bot(TOKEN, base_url=api.base_url)
            await bot.initialize()
            # two workers: buckets shared in Redis, each its connections and send loop
            outs = [
                Outbound(
                    bot,
                    rates=RATES,
                    limiter=RedisLimiter.from_url(url, prefix=prefix),
                    send_loop=SendLoop(f"send-{i}"),
                )
                for i in range(2)
            ]
            for out in outs:
                await out.start()
            api.fail("sendMessage", times=1, retry_after=1, chat_id=7)
            for i in range(3):
                for w, out in enumerate(outs):
                    for chat in (7, 8):
                        out.send(chat, text(chat, f"w{w}m{i}"), label=f"w{w}m{i}")
            await asyncio.gather(*(out.join() for out in outs))
            (refused,) = api.refused
            assert refused.chat_id == 7
            to_7 = [c for c in api.sent(chat_id=7)]
            # every message arrived once; each worker's in its own order
            for w in range(2):
                mine = [str(c.params["text"]) for c in to_7 if str(c.params["text"]) < f"w{w + 1}"]
                mine = [t for t in mine if t.startswith(f"w{w}")]
                assert mine == [f"w{w}m{i}" for i in range(3)]
            assert len(to_7) == 6 and len(api.sent(chat_id=8)) == 6
            # after the 429 neither worker sent to chat 7 until retry_after was over
            assert all(c.at >= refused.at + 1.0 - SLACK for c in to_7)
            assert sum(out.stats.retried_429 for out in outs) == 1
            check_rates(api, RATES)
            for out in outs:
                await out.stop()
            await bot.shutdown()

    run_then_drop(go(), url, prefix)


def test_prompts_overtake_a_backlog_of_news_on_the_shared_buckets() -> None:
    url, prefix = redis_url_or_fail(), unique_prefix()
    rates = TelegramRates(bot=Rate(20.0), private=Rate(1.0), group=Rate(20.0, 60.0))

    async def go() -> None:
        async with serving(FakeBotApi()) as api:
            bot = Bot(TOKEN, base_url=api.base_url)
            await bot.initialize()
            out = Outbound(bot, rates=rates, limiter=RedisLimiter.from_url(url, prefix=prefix))
            await out.start()
            for chat in range(1, 31):
                out.send(chat, text(chat, "news"), priority=Priority.CHATTER, label="news")
            while len(api.sent()) < 5:
                await asyncio.sleep(0.01)
            for chat in range(101, 106):
                out.send(chat, text(chat, "your turn"), priority=Priority.PROMPT, label="prompt")
            before = len(api.sent())
            await out.join()
            order = [str(c.params["text"]) for c in api.sent()]
            # the prompts go next (one news message may have been on its way)
            assert order[before : before + 6].count("your turn") == 5, order
            assert len(order) == 35
            assert not over([c.at for c in api.sent()], rates.bot)
            await out.stop()
            await bot.shutdown()

    run_then_drop(go(), url, prefix)
