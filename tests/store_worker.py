"""A worker process for the concurrency and crash tests (run as a script).

`python tests/store_worker.py CONFIG_JSON` opens the store the config names and
runs one of two jobs through a real `GameService`:

- "submit": wait for the start signal (a file appearing), then submit the given
  (key, step) inputs all at once, and print one JSON line per outcome;
- "play": submit a scripted game's inputs one at a time from index `start`,
  printing `{"ack": KEY, ...}` as soon as each submit has returned (the input is
  durable then). Killing it anywhere and starting it again from the first
  unacknowledged input (redelivered with the same key, as Telegram and Twilio
  do) must lose no acknowledged input and apply none twice.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gameflow.core import actions as A
from gameflow.replay import parse_step
from service.games import GameService
from service.ports import GameStore


def open_store(cfg: dict[str, Any]) -> GameStore:
    if cfg["kind"] == "redis":
        from adapters.store.redis_store import RedisStore

        return RedisStore.from_url(cfg["url"], prefix=cfg["prefix"])
    from adapters.store.sqlite_store import SqliteStore

    return SqliteStore(cfg["path"])


def emit(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


async def submit_all(service: GameService, cfg: dict[str, Any]) -> None:
    game = await service.load(cfg["game"])
    jobs = [(key, parse_step(game, step)) for key, step in cfg["jobs"]]
    signal = Path(cfg["go"])
    while not signal.exists():  # start together: the point is to collide
        await asyncio.sleep(0.002)

    async def one(key: str, action: A.Action) -> None:
        out = await service.submit(cfg["game"], action, key=key)
        emit(
            {
                "key": key,
                "accepted": out.accepted,
                "duplicate": out.duplicate,
                "attempts": out.attempts,
                "version": out.game.version,
                "code": None if out.rejected is None else out.rejected.code,
            }
        )

    await asyncio.gather(*(one(k, a) for k, a in jobs))


async def play(service: GameService, cfg: dict[str, Any]) -> None:
    for key, step in cfg["jobs"][cfg["start"] :]:
        game = await service.load(cfg["game"])
        out = await service.submit(cfg["game"], parse_step(game, step), key=key)
        emit(
            {
                "ack": key,
                "accepted": out.accepted,
                "duplicate": out.duplicate,
                "version": out.game.version,
            }
        )
    emit({"done": True})


async def main(cfg: dict[str, Any]) -> None:
    store = open_store(cfg)
    service = GameService(store, clock=time.time)
    try:
        if cfg["job"] == "submit":
            await submit_all(service, cfg)
        else:
            await play(service, cfg)
    finally:
        await store.close()


if __name__ == "__main__":
    from gameflow.games import register_all

    register_all()  # the composition root: the games this process plays

    os.environ.setdefault("PYTHONHASHSEED", "0")
    asyncio.run(main(json.loads(sys.argv[1])))
