"""A Telegram delivery worker for the outbox kill tests (run as a script).

`python tests/telegram_outbox_worker.py CONFIG_JSON` opens the game store the
config names (a SQLite file, or Redis under a prefix) and runs the Telegram
adapter's outbox delivery (adapters/telegram/delivery.py) as `muldvarp serve`
wires it: the real PTB `Bot` pointed at the fake Bot API, the outbound queue
at Telegram's own limits on a send loop of its own, the buckets in Redis when
the store is Redis (shared with the other worker) or in memory. It prints
`{"ready": CONSUMER}` and delivers until it is killed, keeping its counts
(entries reclaimed from a dead worker, entries acked) in the `stats` file. Nothing else runs in
it, so what reaches the fake Bot API is what the outbox delivered.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from telegram import Bot

from adapters.ratelimit import Limiter, MemoryLimiter, RedisLimiter, TelegramRates
from adapters.sendloop import SendLoop
from adapters.telegram.delivery import TelegramDelivery
from adapters.telegram.notifier import TelegramNotifier
from adapters.telegram.outbound import Outbound
from service.ports import GameStore


def open_store(cfg: dict[str, Any]) -> tuple[GameStore, Limiter]:
    if cfg["kind"] == "redis":
        from adapters.store.redis_store import RedisStore

        store = RedisStore.from_url(cfg["url"], prefix=cfg["prefix"])
        return store, RedisLimiter.from_url(cfg["url"], prefix=cfg["prefix"])
    from adapters.store.sqlite_store import SqliteStore

    return SqliteStore(cfg["path"]), MemoryLimiter()


async def main(cfg: dict[str, Any]) -> None:
    store, limiter = open_store(cfg)
    bot = Bot(cfg["token"], base_url=cfg["api"])
    outbound = Outbound(
        bot, rates=TelegramRates(), limiter=limiter, send_loop=SendLoop("telegram-send")
    )
    notifier = TelegramNotifier(outbound, store)
    delivery = TelegramDelivery(
        store, notifier, consumer=cfg["consumer"], min_idle=cfg["min_idle"], poll=0.05
    )
    notifier.wake = delivery.wake
    await outbound.start()
    delivery.start()
    sys.stdout.write(json.dumps({"ready": cfg["consumer"]}) + "\n")
    sys.stdout.flush()
    stats = Path(cfg["stats"])
    while True:  # delivering until killed; what it did, for the test to read
        figures = {"reclaimed": delivery.reclaimed, "delivered": delivery.delivered}
        part = stats.with_suffix(".part")
        part.write_text(json.dumps(figures))
        part.replace(stats)  # whole, never half-written, when the test reads it
        await asyncio.sleep(0.1)


if __name__ == "__main__":
    from gameflow.games import register_all

    register_all()  # the composition root: the games this process plays

    asyncio.run(main(json.loads(sys.argv[1])))
