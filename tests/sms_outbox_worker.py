"""An SMS delivery worker for the outbox kill tests (run as a script).

`python tests/sms_outbox_worker.py CONFIG_JSON` opens the game store and the
SMS records the config names (SQLite files, or Redis under a prefix), and runs
the SMS adapter's delivery loop (adapters/sms/delivery.py) exactly as
`muldvarp serve` does, with the real twilio client pointed at the fake Twilio:
it prints `{"ready": CONSUMER}` and delivers until it is killed. Nothing else
runs in it, so what reaches the fake Twilio is what the outbox delivered.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from adapters.sendloop import SendLoop
from adapters.sms.delivery import Delivery
from adapters.sms.directory import Directory, SqliteDirectory
from adapters.sms.outbound import TwilioSender, twilio_client
from adapters.sms.renderer import SentSheets
from adapters.sms.settings import SmsSettings
from service.ports import GameStore


def open_stores(cfg: dict[str, Any]) -> tuple[GameStore, Directory]:
    if cfg["kind"] == "redis":
        from adapters.sms.redis_directory import RedisDirectory
        from adapters.store.redis_store import RedisStore

        store = RedisStore.from_url(cfg["url"], prefix=cfg["prefix"])
        return store, RedisDirectory.from_url(cfg["url"], prefix=cfg["prefix"])
    from adapters.store.sqlite_store import SqliteStore

    return SqliteStore(cfg["path"]), SqliteDirectory(cfg["records"])


async def main(cfg: dict[str, Any]) -> None:
    store, directory = open_stores(cfg)
    settings = SmsSettings(**cfg["settings"])
    # As bots.app wires it: the Twilio calls on a send loop of their own, and
    # on Redis the sender's rate shared by every worker.
    limiter = None
    if cfg["kind"] == "redis":
        from adapters.ratelimit import RedisLimiter

        limiter = RedisLimiter.from_url(cfg["url"], prefix=cfg["prefix"])
    sender = TwilioSender(
        twilio_client(settings),
        settings,
        directory,
        limiter=limiter,
        send_loop=SendLoop("sms-send"),
    )
    delivery = Delivery(
        store,
        directory,
        sender,
        SentSheets(store),
        consumer=cfg["consumer"],
        min_idle=cfg["min_idle"],
        poll=0.05,
        scan_every=1.0,
    )
    sender.start()
    delivery.start()
    sys.stdout.write(json.dumps({"ready": cfg["consumer"]}) + "\n")
    sys.stdout.flush()
    await asyncio.sleep(3600)  # delivering until killed


if __name__ == "__main__":
    from gameflow.games import register_all

    register_all()  # the composition root: the games this process plays

    asyncio.run(main(json.loads(sys.argv[1])))
