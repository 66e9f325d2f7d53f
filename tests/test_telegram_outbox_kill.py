"""Kill tests for Telegram output (issue #19 item 3, marker `outbox`): a worker
SIGKILLed while hundreds of messages are queued loses none of them.

Ten Station games of fifteen Telegram players start at once, through the real
game service with the Telegram composer: the lobby's news, every role card and
every first question those commits cause are written with them into the
store's outbox (no worker runs yet). Half the games were made in a group (its
news goes there), half in private chats (every player and the host gets it).
Then delivery workers (tests/telegram_outbox_worker.py: the adapter's outbox
delivery with the real PTB client, at Telegram's own limits) send them to the
fake Bot API on loopback. One worker is SIGKILLed a third of the way through;
another (SQLite: a restart on the same file; Redis: the second of two that
ran together from the start, sharing the games and the rate buckets) claims
what it held once `MIN_IDLE` has passed.

Measured at the fake Bot API, against what the commits intended (the outbox
messages the service returned):
- every private message (role cards) arrived, and how many arrived twice is
  counted: a kill between Telegram's accept and the ack resends that one;
- every line of news reached every chat it was meant for;
- every player ends with exactly one question up (a message with a keyboard
  of the current phase), except a prompt the kill caught between its send and
  its record (counted);
- the acks hold the message ids the fake gave;
- the rates: no private chat more than one message a second, no group more
  than 20 a minute, the bot no more than 30 a second over 3 s windows (the
  1 s peak is printed, as in tests/test_ratelimit_workers.py).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from adapters.ratelimit import TelegramRates
from adapters.telegram.notifier import GROUP_ATTR
from adapters.telegram.renderer import ALWAYS, CHANNEL, GROUP, IF_GROUP, TelegramRenderer
from gameflow.core import actions as A
from service.games import GameService
from service.ports import GameStore
from tests.fake_telegram import TOKEN, FakeBotApi
from tests.rate_helpers import BOT_JITTER, fake_in_thread, most_in_window, over
from tests.store_helpers import (
    FakeClock,
    redis_url_or_fail,
    run,
    run_then_drop,
    unique_prefix,
)
from tests.worker_process import WorkerProcess, about, wait_for

pytestmark = [pytest.mark.outbox, pytest.mark.telegram]

GAMES, PLAYERS = 10, 15
MIN_IDLE = 2.0  # seconds before a dead worker's batch is claimed
JITTER = 0.1  # seconds of arrival jitter allowed across processes
TELEGRAM = TelegramRates()
NAMES = [
    "Kari", "Ola", "Åse", "Per", "Liv", "Nils", "Mari", "Jon",
    "Eva", "Tor", "Ida", "Lars", "Sofie", "Emil", "Nora",
]  # fmt: skip


@dataclass
class Table:
    """What the commits intended."""

    says: list[tuple[str, str, int, str]] = field(default_factory=list)  # game, key, chat, text
    news: dict[int, list[str]] = field(default_factory=dict)  # chat -> lines or names
    players: dict[str, list[int]] = field(default_factory=dict)  # game -> player chats
    groups: dict[str, int] = field(default_factory=dict)

    def chats(self) -> int:
        return sum(len(p) + 1 for p in self.players.values())


def host_of(g: int) -> int:
    return 500_000 + g


def uid(g: int, i: int) -> int:
    return 100_000 + g * 100 + i


async def set_up(store: GameStore) -> Table:
    clock = FakeClock(time.time())
    service = GameService(store, composers=[TelegramRenderer()], clock=clock)
    table = Table()
    games: list[str] = []
    outcomes = []
    for g in range(GAMES):
        created = await service.create_game("station", f"tg:{host_of(g)}", lang="nb", seed=f"k{g}")
        game_id = created.game.id
        games.append(game_id)
        if g % 2 == 0:
            table.groups[game_id] = -(900_000 + g)
            await store.set_attr(game_id, GROUP_ATTR, str(table.groups[game_id]))
        table.players[game_id] = [uid(g, i) for i in range(PLAYERS)]
        for i, name in enumerate(NAMES[:PLAYERS]):
            out = await service.submit(game_id, A.Join(f"tg:{uid(g, i)}", None, name))
            assert out.accepted
            outcomes.append(out)
    outcomes += await asyncio.gather(
        *(service.submit(game_id, A.Start(f"tg:{host_of(g)}")) for g, game_id in enumerate(games))
    )
    for out in outcomes:
        game_id, group = out.game.id, table.groups.get(out.game.id)
        for m in out.messages:
            assert m.channel == CHANNEL
            p = m.payload
            if p["kind"] == "say":
                table.says.append((game_id, m.key, int(p["chat"]), str(p["text"])))
            elif p["kind"] == "news":
                chat = group if p["to"] == GROUP else int(p["to"])
                due = p["when"] == ALWAYS or (p["when"] == IF_GROUP) == (group is not None)
                if chat is not None and due:
                    lines = [x if isinstance(x, str) else str(x[1]) for x in p["parts"]]
                    table.news.setdefault(chat, []).extend(lines)
    return table


class Worker(WorkerProcess):
    def __init__(self, cfg: dict[str, Any], consumer: str) -> None:
        self.stats = Path(cfg["dir"]) / f"{consumer}.json"
        doc = {
            **cfg,
            "consumer": consumer,
            "min_idle": MIN_IDLE,
            "token": TOKEN,
            "stats": str(self.stats),
        }
        super().__init__("telegram_outbox_worker.py", doc)

    def figures(self) -> dict[str, int]:
        found: dict[str, int] = json.loads(self.stats.read_text())
        return found


async def empty(store: GameStore) -> bool:
    return not await store.outbox_ready(CHANNEL)


def open_keyboards(api: FakeBotApi, chat: int) -> list[dict[str, Any]]:
    return [m for m in api.chat(chat) if (m.get("reply_markup") or {}).get("inline_keyboard")]


async def check(api: FakeBotApi, table: Table, store: GameStore, label: str) -> dict[str, Any]:
    sends = api.sent("sendMessage")
    got = Counter((c.chat_id, str(c.params.get("text", ""))) for c in sends)
    want = Counter((chat, text) for _, _, chat, text in table.says)
    missing = want - got
    assert not missing, f"{sum(missing.values())} private messages never arrived"
    duplicated = sum(max(0, got[x] - want[x]) for x in want)
    # every line of news reached its chats (merged into fewer messages)
    for chat, lines in table.news.items():
        text = "\n".join(str(c.params.get("text", "")) for c in api.sent("sendMessage", chat))
        absent = [line for line in lines if line not in text]
        assert not absent, (chat, absent[:3])
    # every player has their question up, of the current phase
    extra_prompts = 0
    for game_id, chats in table.players.items():
        game = await store.load(game_id)
        assert game is not None
        for chat in chats:
            up = open_keyboards(api, chat)
            assert up, f"player {chat} of {game_id} has no question up"
            seq = f"|{game.phase.seq}|"
            rows = [m["reply_markup"]["inline_keyboard"][0] for m in up]
            assert all(seq in b["callback_data"] for row in rows for b in row), chat
            extra_prompts += len(up) - 1
    # the acks hold the fake's message ids
    results = [await store.delivered(CHANNEL, g, k) for g, k, _, _ in table.says]
    assert all(r is not None and isinstance(r.get("message_id"), int) for r in results), "ack"
    # the rates, at the fake
    times: dict[int, list[float]] = {}
    for c in sends:
        assert c.chat_id is not None
        times.setdefault(c.chat_id, []).append(c.at)
    every = sorted(c.at for c in api.calls if c.method.startswith(("send", "edit")))
    private = {c: ts for c, ts in times.items() if c > 0}
    groups = {c: ts for c, ts in times.items() if c < 0}
    assert most_in_window(every, 3.0 - BOT_JITTER) <= 3 * TELEGRAM.bot.count
    for chat, ts in private.items():
        assert not over(ts, TELEGRAM.private, JITTER), (chat, sorted(ts))
    for chat, ts in groups.items():
        assert not over(ts, TELEGRAM.group, JITTER), (chat, sorted(ts))
    assert not api.refused  # the fake never had to say 429
    figures = {
        "intended_private": sum(want.values()),
        "news_lines": sum(len(v) for v in table.news.values()),
        "messages_sent": len(sends),
        "duplicated": duplicated,
        "extra_prompts": extra_prompts,
        "bot_peak_in_1s": most_in_window(every, 1.0),
        "bot_peak_in_3s": most_in_window(every, 3.0),
        "private_peak_in_1s": max(most_in_window(ts, 1.0) for ts in private.values()),
        "group_peak_in_60s": max((most_in_window(ts, 60.0) for ts in groups.values()), default=0),
    }
    print(f"\n{label}: {figures}")
    return figures


def test_a_killed_worker_loses_no_telegram_message_sqlite(tmp_path: Path) -> None:
    """The embedded store: one worker, killed and started again on the same file."""
    from adapters.store.sqlite_store import SqliteStore

    path = str(tmp_path / "games.sqlite3")

    async def main() -> dict[str, Any]:
        store = SqliteStore(path)
        table = await set_up(store)
        with fake_in_thread(FakeBotApi()) as api:
            cfg = {"kind": "sqlite", "path": path, "api": api.base_url, "dir": str(tmp_path)}
            total = len(table.says) + table.chats()  # cards and prompts, at least
            first = Worker(cfg, "first")
            try:
                await wait_for(
                    lambda: len(api.sent()) >= total // 3,
                    60,
                    "a third sent",
                    about([first], store, CHANNEL),
                )
                first.kill()
                at_kill = len(api.sent())
                assert at_kill < total - 50, "the worker finished before the kill"
                second = Worker(cfg, "second")
                try:
                    await wait_for(
                        lambda: empty(store),
                        120,
                        "the outbox to empty",
                        about([first, second], store, CHANNEL),
                    )
                    await asyncio.sleep(1.5)  # the last calls in flight
                    reclaimed = second.figures()["reclaimed"]
                    assert reclaimed > 0, "the restarted worker took over nothing"
                    print(f"\nSQLite: {reclaimed} entries reclaimed from the dead worker")
                finally:
                    second.stop()
            finally:
                first.stop()
            print(f"\nSQLite: killed after {at_kill} messages")
            figures = await check(api, table, store, "SQLite, one worker killed and restarted")
        await store.close()
        return figures

    figures = run(main())
    assert figures["duplicated"] + figures["extra_prompts"] <= GAMES * 4


def test_a_killed_worker_loses_no_telegram_message_redis(tmp_path: Path) -> None:
    """Redis: two workers together (shared buckets), one killed; the other
    claims what it held."""
    from adapters.store.redis_store import RedisStore

    url, prefix = redis_url_or_fail(), unique_prefix()

    async def main() -> dict[str, Any]:
        store = RedisStore.from_url(url, prefix=prefix)
        try:
            with fake_in_thread(FakeBotApi()) as api:
                cfg = {
                    "kind": "redis",
                    "url": url,
                    "prefix": prefix,
                    "api": api.base_url,
                    "dir": str(tmp_path),
                }
                # Both workers run while the games are made: they share the games
                # (one batch of a game at a time, whoever takes it) and the buckets.
                workers = [Worker(cfg, "one"), Worker(cfg, "two")]
                try:
                    table = await set_up(store)
                    total = len(table.says) + table.chats()
                    await wait_for(
                        lambda: len(api.sent()) >= total // 3,
                        60,
                        "a third sent",
                        about(workers, store, CHANNEL),
                    )
                    before = [w.figures()["delivered"] for w in workers]
                    workers[0].kill()
                    at_kill = len(api.sent())
                    assert at_kill < total - 50, "the workers finished before the kill"
                    await wait_for(
                        lambda: empty(store),
                        120,
                        "the outbox to empty",
                        about(workers, store, CHANNEL),
                    )
                    await asyncio.sleep(1.5)
                    reclaimed = workers[1].figures()["reclaimed"]
                    print(
                        f"\nRedis: entries acked by each worker before the kill {before}, "
                        f"{reclaimed} reclaimed from the dead one"
                    )
                    assert all(before), "both workers delivered before the kill"
                    assert reclaimed > 0, "the other worker took over nothing"
                finally:
                    for w in workers:
                        w.stop()
                print(f"\nRedis: one of two workers killed after {at_kill} messages")
                return await check(api, table, store, "Redis, two workers, one killed")
        finally:
            await store.close()

    figures = run_then_drop(main(), url, prefix)
    assert figures["duplicated"] + figures["extra_prompts"] <= GAMES * 4
