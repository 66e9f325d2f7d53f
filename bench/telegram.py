"""Telegram adapter benchmark (prints figures; not a test).

1. Webhook path: a `/join CODE` update POSTed to our route (secret check,
   dedupe window, PTB process_update, our handler: code lookup,
   GameService.submit on Redis: apply, atomic commit, directory upkeep; the
   notifier queues the replies) until the 200: updates/s, p50/p99.
2. Floor, same process, same transport, interleaved with (1) in rounds so the
   machine's load hits both alike: a Starlette route doing Update.de_json +
   process_update with a do-nothing handler + one Redis round trip, the least
   any durable PTB bot pays. The ratio is subject / floor.
3. Button presses in the mission phase of the 15-player games from (1), round
   robin like a table playing: draft steps (the draft read and swapped in the
   store) and «Send choice» (submit, commit, and the last one's phase change).
4. One phase's prompts to 15 players through the real notifier and outbound
   queue (each prompt recorded in the store once delivered) against the fake
   Bot API on loopback, real clock, Telegram's 30 messages/s: time until the
   last is delivered, next to the 467 ms those 30/s impose on 15 messages.

During (1)-(3) replies are only queued (the outbound queue is delivered in
between), so the fake server, which runs in this same process, stays out of
the figures. Run: .venv/bin/python bench/telegram.py [--redis URL]
[--games 20] [--rounds 4]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import sys
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

# Run as a script, this file's folder would come first on the path and this
# file would shadow the `telegram` package: put the project root there instead.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

import httpx  # noqa: E402
import redis.asyncio as aioredis  # noqa: E402
from starlette.applications import Starlette  # noqa: E402
from starlette.requests import Request  # noqa: E402
from starlette.responses import Response  # noqa: E402
from starlette.routing import Route  # noqa: E402
from telegram import Update  # noqa: E402
from telegram.ext import ApplicationBuilder, CommandHandler  # noqa: E402

import adapters.telegram  # noqa: E402, F401  (PTB_TIMEDELTA)
from adapters.store.redis_store import RedisStore  # noqa: E402
from adapters.telegram.choice import Draft, next_field, pick  # noqa: E402
from adapters.telegram.keyboards import encode, encode_value, game_specs  # noqa: E402
from adapters.telegram.webhook import build, routes, stop  # noqa: E402
from gameflow.core import actions as A  # noqa: E402
from gameflow.core.engine import legal  # noqa: E402
from gameflow.core.events import prompt  # noqa: E402
from service.games import GameService  # noqa: E402
from tests.fake_telegram import SECRET, FakeBotApi, Users, serving  # noqa: E402
from tests.store_helpers import drop_prefix  # noqa: E402

PLAYERS = 15
HEADERS = {"X-Telegram-Bot-Api-Secret-Token": SECRET}
Post = Callable[[dict[str, Any]], Awaitable[None]]


class Pauses:
    """The garbage collector's pauses while measuring (they make much of p99)."""

    def __init__(self) -> None:
        self.on = False
        self.pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self._t = 0.0
        gc.callbacks.append(self.callback)

    def callback(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._t = time.perf_counter()
        elif self.on:
            self.pauses[info["generation"]].append(time.perf_counter() - self._t)

    def __str__(self) -> str:
        return ", ".join(
            f"gen{g} {len(p)}x (max {max(p) * 1000:.1f} ms)" for g, p in self.pauses.items() if p
        )


PAUSES = Pauses()


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))] * 1000


def line(name: str, lat: list[float], wall: float) -> str:
    return (
        f"{name:9s}: {len(lat):5d} updates, {len(lat) / wall:5.0f}/s, "
        f"p50 {pct(lat, 0.5):.2f} ms, p99 {pct(lat, 0.99):.2f} ms"
    )


async def timed(post: Post, updates: list[dict[str, Any]], lat: list[float]) -> float:
    PAUSES.on = True
    t0 = time.perf_counter()
    for update in updates:
        t = time.perf_counter()
        await post(update)
        lat.append(time.perf_counter() - t)
    wall = time.perf_counter() - t0
    PAUSES.on = False
    return wall


class Floor:
    """The floor's own PTB application and route."""

    def __init__(self, api: FakeBotApi, url: str) -> None:
        self.redis = aioredis.Redis.from_url(url, decode_responses=True)
        builder = ApplicationBuilder().token(api.token).base_url(api.base_url)
        self.application = builder.updater(None).build()

        async def nothing(update: Any, context: Any) -> None:
            return None

        self.application.add_handler(CommandHandler("join", nothing))

        async def route(request: Request) -> Response:
            data = await request.json()
            await self.application.process_update(Update.de_json(data, self.application.bot))
            await self.redis.set(f"bench:floor:{data['update_id']}", "1", ex=60)
            return Response()

        app = Starlette(routes=[Route("/w", route, methods=["POST"])])
        self.http = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://b")

    async def post(self, update: dict[str, Any]) -> None:
        assert (await self.http.post("/w", json=update)).status_code == 200

    async def close(self) -> None:
        await self.http.aclose()
        await self.application.stop()
        await self.application.shutdown()
        await self.redis.aclose()


class Subject:
    """Our adapter on Redis behind its webhook route; replies only queued."""

    def __init__(self, api: FakeBotApi, url: str) -> None:
        self.url, self.prefix = url, f"bench:{uuid.uuid4().hex[:8]}:"
        self.store = RedisStore.from_url(url, prefix=self.prefix)
        self.service = GameService(self.store)
        self.application, self.tg = build(
            api.token,
            self.service,
            base_url=api.base_url,
            # delivered between the measured stretches only, quickly but not
            # all at once (hundreds of parallel calls choke the HTTP pool)
            outbound_options={"per_second": 2000, "private_interval": 0, "group_interval": 0},
        )
        app = Starlette(routes=routes(self.application, self.tg, SECRET))
        self.http = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://b")

    async def post(self, update: dict[str, Any]) -> None:
        r = await self.http.post("/telegram/webhook", json=update, headers=HEADERS)
        assert r.status_code == 200

    async def deliver(self, api: FakeBotApi) -> None:
        """Send what was queued, between the measured stretches. The fake
        server's own records go (it shares this process, and its heap would
        slow this process's garbage collection); the chats stay."""
        await self.tg.outbound.start()
        await self.tg.outbound.join()
        await self.tg.outbound.stop()
        api.calls.clear()
        api.answers.clear()

    async def close(self) -> None:
        await self.http.aclose()
        await stop(self.application, self.tg)
        await self.store.close()
        await drop_prefix(self.url, self.prefix)


async def presses(api: FakeBotApi, sub: Subject, users: Users, games: list[str]) -> list[list[Any]]:
    """Per game, per player: the mission presses a player makes (each step's
    first option, then «Send choice»), as (op, update)."""
    plan: list[list[Any]] = []
    for game_id in games:
        game = await sub.service.load(game_id)
        for seat, player in enumerate(game.players):
            uid = int(player.removeprefix("tg:"))
            (spec,) = game_specs(legal(game, player))
            message = api.last_with_buttons(uid)
            assert message is not None
            draft, seq, mine = Draft(game.id, spec.phase, seat, spec.kind), spec.phase, []
            while (step := next_field(spec, draft)) is not None:
                index, f = step
                value = f.options[0]
                pick(draft, f, value)
                data = encode("d", game.id, seq, seat, spec.kind, index, encode_value(game, value))
                mine.append(("step", users.press(uid, "P", message, data)))
            data = encode("s", game.id, seq, seat, spec.kind)
            mine.append(("send", users.press(uid, "P", message, data)))
            plan.append(mine)
    return plan


async def fifteen_prompts(api: FakeBotApi, url: str) -> float:
    """A started 15-player game; its phase's prompts through a fresh adapter
    with Telegram's limits, until the last one is delivered."""
    prefix = f"bench:{uuid.uuid4().hex[:8]}:"
    store = RedisStore.from_url(url, prefix=prefix)
    service = GameService(store)
    created = await service.create_game("station", "tg:1", lang="en")
    game_id = created.game.id
    for p in range(PLAYERS):
        await service.submit(game_id, A.Join(f"tg:{900 + p}", None, f"P{p}"))
    game = (await service.submit(game_id, A.Start("tg:1"))).game
    application, tg = build(api.token, GameService(store), base_url=api.base_url)
    await application.initialize()
    await application.start()
    await tg.outbound.start()
    await application.bot.send_message(1, "warm-up")
    t = time.perf_counter()
    await tg.notifier.notify(game, tuple(prompt(p, game.phase.seq) for p in game.players))
    await tg.outbound.join()
    elapsed = time.perf_counter() - t
    assert tg.outbound.stats.sent == PLAYERS
    await stop(application, tg)
    await store.close()
    await drop_prefix(url, prefix)
    return elapsed


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--redis", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    parser.add_argument("--games", type=int, default=20, help="games per round")
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()
    users = Users()
    async with serving(FakeBotApi()) as api:
        floor, sub = Floor(api, args.redis), Subject(api, args.redis)
        for application in (floor.application, sub.application):
            await application.initialize()
            await application.start()
        # warm-up: both paths once, and a round's worth of games per round
        rounds: list[list[str]] = []
        for r in range(args.rounds + 1):
            made = [
                await sub.service.create_game("station", f"tg:{100 * r + g + 1}", lang="en")
                for g in range(args.games)
            ]
            rounds.append([c.code or "" for c in made])
        await floor.post(users.command(1, "P", "/join ABCD"))
        warm = [users.command(90_000 + p, "W", f"/join {rounds[0][0]}") for p in range(PLAYERS)]
        await timed(sub.post, warm, [])
        f_lat: list[float] = []
        w_lat: list[float] = []
        f_wall = w_wall = 0.0
        f_cpu = w_cpu = 0.0
        ratios: list[float] = []
        uid = iter(range(10_000, 10_000_000))
        for codes in rounds[1:]:
            fl: list[float] = []
            wl: list[float] = []
            # floor and subject take turns game by game (15 updates each), so
            # the machine's ups and downs fall on both alike
            for g, code in enumerate(codes):
                joins = [users.command(next(uid), f"P{p}", f"/join {code}") for p in range(PLAYERS)]
                floors = [users.command(next(uid), "P", "/join ABCD") for _ in joins]
                for first in (g % 2 == 0, g % 2 == 1):
                    cpu = time.process_time()
                    if first:
                        f_wall += await timed(floor.post, floors, fl)
                        f_cpu += time.process_time() - cpu
                    else:
                        w_wall += await timed(sub.post, joins, wl)
                        w_cpu += time.process_time() - cpu
            ratios.append(pct(wl, 0.5) / pct(fl, 0.5))
            f_lat += fl
            w_lat += wl
            await sub.deliver(api)
        # the mission: the hosts start their games, then everybody taps
        hosts = [
            users.command(100 * r + g + 1, "H", "/startgame")
            for r in range(1, args.rounds + 1)
            for g in range(args.games)
        ]
        await timed(sub.post, hosts, [])
        await sub.deliver(api)
        game_ids = [await sub.store.game_for_code(c) for codes in rounds[1:] for c in codes]
        plan = await presses(api, sub, users, [g for g in game_ids if g is not None])
        s_lat: dict[str, list[float]] = {"step": [], "send": []}
        p_wall = 0.0
        for i in range(max(len(p) for p in plan)):
            for mine in plan:
                if i < len(mine):
                    op, update = mine[i]
                    p_wall += await timed(sub.post, [update], s_lat[op])
            await sub.deliver(api)  # the edits, before the next round of taps
        phases = {(await sub.service.load(g)).phase.name for g in game_ids if g is not None}
        assert phases == {"discussion"}, phases
        await floor.close()
        await sub.close()
        fifteen = await fifteen_prompts(api, args.redis)
    print(line("floor", f_lat, f_wall))
    print(line("webhook", w_lat, w_wall))
    print(
        f"ratio    : p50 {pct(w_lat, 0.5) / pct(f_lat, 0.5):.2f}x, "
        f"p99 {pct(w_lat, 0.99) / pct(f_lat, 0.99):.2f}x; "
        f"p50 per round {', '.join(f'{x:.2f}x' for x in ratios)}"
    )
    f_cpu, w_cpu = f_cpu / len(f_lat) * 1000, w_cpu / len(w_lat) * 1000
    print(
        f"CPU      : floor {f_cpu:.2f} ms, webhook {w_cpu:.2f} ms per update "
        f"({w_cpu / f_cpu:.2f}x; this process only, not Redis)"
    )
    steps, sends = s_lat["step"], s_lat["send"]
    print(line("presses", steps + sends, p_wall))
    print(f"  steps  : p50 {pct(steps, 0.5):.2f} ms, p99 {pct(steps, 0.99):.2f} ms ({len(steps)})")
    print(f"  sends  : p50 {pct(sends, 0.5):.2f} ms, p99 {pct(sends, 0.99):.2f} ms ({len(sends)})")
    print(
        f"15 prompts through the notifier and outbound queue: {fifteen * 1000:.0f} ms "
        f"(Telegram's 30/s floor: 467 ms)"
    )
    print(f"GC while measuring: {PAUSES}")


if __name__ == "__main__":
    asyncio.run(main())
