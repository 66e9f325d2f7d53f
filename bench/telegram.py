"""Telegram adapter benchmark.

1. Webhook path: an update POSTed to our route (secret check, dedupe window,
   PTB process_update, our handler, GameService.submit on Redis: load from
   cache, apply, commit; directory upkeep; notifier queues the replies) until
   the 200, per update: updates/s, p50/p99.
2. Floor, same run, same transport: a Starlette route doing
   Update.de_json + process_update with a do-nothing handler + one Redis round trip.
3. One phase's prompts to 15 players through the outbound queue against the fake
   Bot API on loopback, real clock, Telegram's 30/s: time to the last delivery.

Run: .venv/bin/python bench/telegram.py [--redis URL] [--games 40]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
import uuid
from typing import Any

sys.path.insert(0, "/work/main")

import httpx
import redis.asyncio as aioredis
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from telegram import Bot, Update
from telegram.ext import ApplicationBuilder, CommandHandler

import adapters.telegram  # noqa: F401  (PTB_TIMEDELTA)
from adapters.store.redis_store import RedisStore
from adapters.telegram.outbound import Outbound, Priority
from adapters.telegram.webhook import build, routes, stop
from bots.service import GameService
from tests.fake_telegram import SECRET, TOKEN, FakeBotApi, Users, serving


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))] * 1000


async def webhook_path(api: FakeBotApi, url: str, games: int) -> dict[str, float]:
    store = RedisStore.from_url(url, prefix=f"bench:{uuid.uuid4().hex[:8]}:")
    service = GameService(store)
    application, tg = build(api.token, service, base_url=api.base_url)
    # replies are only queued while measuring (delivered afterwards), so the
    # fake server's work in this same process doesn't land in the figures
    await application.initialize()
    await application.start()
    app = Starlette(routes=routes(application, tg, SECRET))
    users = Users()
    lat: list[float] = []
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://b") as c:
        codes = []
        for g in range(games):
            created = await service.create_game("station", f"tg:{g + 1}", lang="en")
            codes.append(created.code)
        headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET}
        t0 = time.perf_counter()
        n = 0
        for g, code in enumerate(codes):
            for p in range(15):
                uid = 10_000 + g * 100 + p
                update = users.command(uid, f"P{p}", f"/join {code}")
                t = time.perf_counter()
                r = await c.post("/telegram/webhook", json=update, headers=headers)
                lat.append(time.perf_counter() - t)
                assert r.status_code == 200
                n += 1
        wall = time.perf_counter() - t0
    queued = tg.outbound.pending
    await tg.outbound.start()
    await tg.outbound.join()
    await stop(application, tg)
    print(f"(replies queued during the run: {queued})")
    await store.close()
    return {"n": n, "ups": n / wall, "p50": pct(lat, 0.5), "p99": pct(lat, 0.99)}


async def floor(api: FakeBotApi, url: str, n: int) -> dict[str, float]:
    client = aioredis.Redis.from_url(url, decode_responses=True)
    application = ApplicationBuilder().token(api.token).base_url(api.base_url).updater(None).build()

    async def nothing(update: Any, context: Any) -> None:
        return None

    application.add_handler(CommandHandler("join", nothing))
    await application.initialize()
    await application.start()

    async def route(request: Request) -> Response:
        data = await request.json()
        update = Update.de_json(data, application.bot)
        await application.process_update(update)
        await client.set(f"bench:floor:{data['update_id']}", "1", ex=60)
        return Response()

    app = Starlette(routes=[Route("/w", route, methods=["POST"])])
    users = Users()
    lat: list[float] = []
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://b") as c:
        t0 = time.perf_counter()
        for i in range(n):
            update = users.command(50_000 + i, "P", "/join ABCD")
            t = time.perf_counter()
            r = await c.post("/w", json=update)
            lat.append(time.perf_counter() - t)
            assert r.status_code == 200
        wall = time.perf_counter() - t0
    await application.stop()
    await application.shutdown()
    await client.aclose()
    return {"n": n, "ups": n / wall, "p50": pct(lat, 0.5), "p99": pct(lat, 0.99)}


async def fifteen_prompts(api: FakeBotApi) -> float:
    bot = Bot(TOKEN, base_url=api.base_url)
    await bot.initialize()
    out = Outbound(bot)
    await out.start()
    await bot.send_message(1, "warm-up")
    done = asyncio.Event()
    left = [15]

    def sent(_: Any) -> None:
        left[0] -= 1
        if not left[0]:
            done.set()

    t = time.perf_counter()
    for chat in range(100, 115):

        async def call(b: Bot, chat: int = chat) -> Any:
            return await b.send_message(chat, "Your turn", protect_content=True)

        out.send(chat, call, priority=Priority.PROMPT, on_done=sent)
    await done.wait()
    elapsed = time.perf_counter() - t
    await out.stop()
    await bot.shutdown()
    return elapsed


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--games", type=int, default=40)
    args = parser.parse_args()
    async with serving(FakeBotApi()) as api:
        await floor(api, args.redis, 100)  # warm-up
        f = await floor(api, args.redis, args.games * 15)
        w = await webhook_path(api, args.redis, args.games)
        p = await fifteen_prompts(api)
    print(f"floor   : {f['n']} updates, {f['ups']:.0f}/s, p50 {f['p50']:.2f} ms, p99 {f['p99']:.2f} ms")
    print(f"webhook : {w['n']} updates, {w['ups']:.0f}/s, p50 {w['p50']:.2f} ms, p99 {w['p99']:.2f} ms")
    print(f"ratio   : p50 {w['p50'] / f['p50']:.2f}x, p99 {w['p99'] / f['p99']:.2f}x")
    print(f"15 prompts through the outbound queue: {p * 1000:.0f} ms (Telegram's 30/s floor: 467 ms)")


if __name__ == "__main__":
    asyncio.run(main())
