"""Telegram adapter benchmark (prints figures; not a test).

Everything goes through a real uvicorn (httptools, uvloop when installed, as
`muldvarp serve` picks them; the access log off, a long keep-alive) on a loopback socket, posted
to by a minimal HTTP/1.1 client on one keep-alive connection, each request's
bytes prepared before the clock starts. One server serves three endpoints:

1. Webhook: a `/join CODE` update POSTed to our route as Telegram calls it
   (secret header, JSON body): secret check, dedupe window, PTB
   process_update, our handler (code lookup, GameService.submit on Redis:
   apply, atomic commit, directory upkeep; the notifier queues the replies)
   until the 200: updates/s, p50/p99/max.
2. Floor, PTB: a route doing Update.de_json + process_update with a do-nothing
   handler + one Redis round trip, the least any durable PTB bot pays.
3. Floor, trivial: a route answering 200 at once: the socket, uvicorn and
   Starlette alone.
(1)-(3) take turns game by game (15 updates each, the order rotating), so the
machine's load falls on all alike. The ratios are subject / floor.
4. Button presses in the mission phase of the 15-player games from (1), round
   robin like a table playing: draft steps (the draft read and swapped in the
   store) and «Send choice» (submit, commit, and the last one's phase change).
5. One phase's prompts to 15 players through the real notifier and outbound
   queue (each prompt recorded in the store once delivered) against the fake
   Bot API on loopback, real clock, Telegram's 30 messages/s: time until the
   last is delivered, next to the 467 ms those 30/s impose on 15 messages.

The garbage collector's pauses (gc.callbacks) are counted per path while it is
measured: a p99 or a max is often one of them.

During (1)-(4) replies are only queued (the outbound queue is delivered in
between), so the fake Bot API (tests/fake_telegram.py, also on loopback, in
this process) stays out of the figures. Run: .venv/bin/python bench/telegram.py
[--redis URL] [--games 20] [--rounds 4] (without --redis it starts a throw-away
redis-server on loopback).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import socket
import sys
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

# Run as a script, this file's folder would come first on the path and this
# file would shadow the `telegram` package: put the project root there instead.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

import redis.asyncio as aioredis  # noqa: E402
import uvicorn  # noqa: E402
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
from bench.common import Pauses, machine, pct, ratio, redis_url, stats  # noqa: E402
from gameflow.core import actions as A  # noqa: E402
from gameflow.core.engine import legal  # noqa: E402
from gameflow.core.events import prompt  # noqa: E402
from service.games import GameService  # noqa: E402
from tests.fake_telegram import SECRET, FakeBotApi, Users, serving  # noqa: E402
from tests.store_helpers import drop_prefix  # noqa: E402

PLAYERS = 15
HEADERS = {"X-Telegram-Bot-Api-Secret-Token": SECRET}
Post = Callable[[dict[str, Any]], Awaitable[None]]


class Conn:
    """One keep-alive HTTP/1.1 connection to the server on loopback: the least
    a client can add (no HTTP library), the same for every path measured."""

    def __init__(self, port: int) -> None:
        self.port = port

    async def open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        self.writer.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    @staticmethod
    def request(path: str, body: dict[str, Any], headers: dict[str, str] | None = None) -> bytes:
        data = json.dumps(body).encode()
        head = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
        return (
            f"POST {path} HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\n{head}\r\n"
        ).encode() + data

    async def send(self, raw: bytes) -> int:
        self.writer.write(raw)
        status = int((await self.reader.readline()).split()[1])
        length, chunked = 0, False
        while (row := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = row.decode("latin-1").partition(":")
            if name.lower() == "content-length":
                length = int(value)
            elif name.lower() == "transfer-encoding" and "chunked" in value:
                chunked = True
        if chunked:
            while size := int((await self.reader.readline()).strip(), 16):
                await self.reader.readexactly(size + 2)
            await self.reader.readline()
        elif length:
            await self.reader.readexactly(length)
        return status

    async def close(self) -> None:
        self.writer.close()


async def timed(conn: Conn, raws: list[bytes], lat: list[float], pauses: Pauses) -> float:
    pauses.on = True
    t0 = time.perf_counter()
    for raw in raws:
        t = time.perf_counter()
        status = await conn.send(raw)
        lat.append(time.perf_counter() - t)
        assert status == 200, status
    wall = time.perf_counter() - t0
    pauses.on = False
    return wall


async def trivial(request: Request) -> Response:
    await request.body()
    return Response()


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

        self.route = Route("/floor", route, methods=["POST"])

    async def close(self) -> None:
        await self.application.stop()
        await self.application.shutdown()
        await self.redis.aclose()


class Subject:
    """Our adapter on Redis behind its webhook route, served by uvicorn on a
    loopback socket with the floors' routes beside it; replies only queued."""

    def __init__(self, api: FakeBotApi, url: str, floor: Floor) -> None:
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
        self.app = Starlette(
            routes=[
                *routes(self.application, self.tg, SECRET),
                floor.route,
                Route("/trivial", trivial, methods=["POST"]),
            ]
        )

    async def serve(self) -> Conn:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind(("127.0.0.1", 0))
        # one client connection for the whole run: uvicorn's 5 s keep-alive would
        # close it while the replies are delivered between the measured stretches
        config = uvicorn.Config(
            self.app,
            log_level="warning",
            lifespan="off",
            access_log=False,
            timeout_keep_alive=3600,
        )
        self.server = uvicorn.Server(config)
        self.task = asyncio.create_task(self.server.serve(sockets=[sock]))
        while not self.server.started:
            await asyncio.sleep(0.005)
        self.sock = sock
        conn = Conn(sock.getsockname()[1])
        await conn.open()
        return conn

    @staticmethod
    def webhook(update: dict[str, Any]) -> bytes:
        return Conn.request("/telegram/webhook", update, HEADERS)

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
        self.server.should_exit = True
        await self.task
        self.sock.close()
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
    parser.add_argument("--redis", default=None, help="default: start one on loopback")
    parser.add_argument("--games", type=int, default=20, help="games per round")
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()
    print(machine())
    print(f"event loop: {type(asyncio.get_running_loop()).__module__}")
    with redis_url(args.redis) as url:
        await run(url, args)


async def run(url: str, args: argparse.Namespace) -> None:
    users = Users()
    names = ("trivial", "floor", "webhook")
    pauses = {name: Pauses() for name in (*names, "presses")}
    async with serving(FakeBotApi()) as api:
        floor = Floor(api, url)
        sub = Subject(api, url, floor)
        for application in (floor.application, sub.application):
            await application.initialize()
            await application.start()
        conn = await sub.serve()
        # warm-up: every path once, and a round's worth of games per round
        rounds: list[list[str]] = []
        for r in range(args.rounds + 1):
            made = [
                await sub.service.create_game("station", f"tg:{100 * r + g + 1}", lang="en")
                for g in range(args.games)
            ]
            rounds.append([c.code or "" for c in made])
        warm_floor = users.command(1, "P", "/join ABCD")
        await timed(conn, [Conn.request("/floor", warm_floor)], [], pauses["floor"])
        await timed(conn, [Conn.request("/trivial", warm_floor)], [], pauses["trivial"])
        warm = [users.command(90_000 + p, "W", f"/join {rounds[0][0]}") for p in range(PLAYERS)]
        await timed(conn, [sub.webhook(u) for u in warm], [], pauses["webhook"])
        for p in pauses.values():
            p.clear()
        lat: dict[str, list[float]] = {name: [] for name in names}
        wall = dict.fromkeys(names, 0.0)
        cpu = dict.fromkeys(names, 0.0)
        uid = iter(range(10_000, 10_000_000))
        orders = itertools.cycle(itertools.permutations(names))
        for codes in rounds[1:]:
            # the three take turns game by game (15 updates each), in every order
            for code in codes:
                joins = [users.command(next(uid), f"P{p}", f"/join {code}") for p in range(PLAYERS)]
                raws = {
                    "webhook": [sub.webhook(u) for u in joins],
                    "floor": [
                        Conn.request("/floor", users.command(next(uid), "P", "/join ABCD"))
                        for _ in joins
                    ],
                    "trivial": [Conn.request("/trivial", u) for u in joins],
                }
                for name in next(orders):
                    c0 = time.process_time()
                    wall[name] += await timed(conn, raws[name], lat[name], pauses[name])
                    cpu[name] += time.process_time() - c0
            await sub.deliver(api)
        # the mission: the hosts start their games, then everybody taps
        hosts = [
            sub.webhook(users.command(100 * r + g + 1, "H", "/startgame"))
            for r in range(1, args.rounds + 1)
            for g in range(args.games)
        ]
        await timed(conn, hosts, [], pauses["presses"])
        await sub.deliver(api)
        pauses["presses"].clear()
        game_ids = [await sub.store.game_for_code(c) for codes in rounds[1:] for c in codes]
        plan = await presses(api, sub, users, [g for g in game_ids if g is not None])
        s_lat: dict[str, list[float]] = {"step": [], "send": []}
        p_wall = 0.0
        for i in range(max(len(p) for p in plan)):
            for mine in plan:
                if i < len(mine):
                    op, update = mine[i]
                    p_wall += await timed(conn, [sub.webhook(update)], s_lat[op], pauses["presses"])
            await sub.deliver(api)  # the edits, before the next round of taps
        phases = {(await sub.service.load(g)).phase.name for g in game_ids if g is not None}
        assert phases == {"discussion"}, phases
        await conn.close()
        await floor.close()
        await sub.close()
        fifteen = await fifteen_prompts(api, url)
    print("joins over uvicorn on loopback (the three alternating game by game):")
    for name in names:
        print(stats(name, lat[name], wall[name], 12))
    for name in ("trivial", "floor"):
        print(ratio(f"webhook / {name}", lat["webhook"], wall["webhook"], lat[name], wall[name]))
    per = {name: cpu[name] / len(lat[name]) * 1000 for name in names}
    print(
        "  CPU per update (this process, not Redis): "
        + ", ".join(f"{name} {per[name]:.2f} ms" for name in names)
        + f"; webhook / floor {per['webhook'] / per['floor']:.2f}x"
    )
    for name in names:
        print(f"  GC while measuring {name}: {pauses[name]}")
    steps, sends = s_lat["step"], s_lat["send"]
    print("button presses:")
    print(stats("all", steps + sends, p_wall, 12))
    print(
        f"  steps: p50 {pct(steps, 0.5):.2f} ms, p99 {pct(steps, 0.99):.2f} ms, max {max(steps) * 1000:.2f} ms ({len(steps)})"
    )
    print(
        f"  sends: p50 {pct(sends, 0.5):.2f} ms, p99 {pct(sends, 0.99):.2f} ms, max {max(sends) * 1000:.2f} ms ({len(sends)})"
    )
    print(f"  GC while measuring presses: {pauses['presses']}")
    print(
        f"15 prompts through the notifier and outbound queue: {fifteen * 1000:.0f} ms "
        f"(floor: 467 ms at Telegram's 30/s; 500 ms at the 28/s the outbound queue keeps)"
    )


if __name__ == "__main__":
    from gameflow.games import register_all

    register_all()  # the composition root: the games this process plays

    try:
        import uvloop
    except ImportError:
        asyncio.run(main())
    else:
        uvloop.run(main())
