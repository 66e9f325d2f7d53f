"""An outbox consumer process for the crash tests (run as a script).

`python tests/outbox_worker.py CONFIG_JSON` opens the store the config names,
takes one batch of a game's channel as consumer `consumer`, acks its first
entry with the result {"message_id": 1} (as if the platform accepted it),
prints one JSON line with the keys it took, and then holds the rest forever,
unacked: the test SIGKILLs it there, as a worker dies mid-batch.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def open_store(cfg: dict[str, Any]) -> Any:
    if cfg["kind"].startswith("redis") or cfg["kind"] == "cluster":
        from adapters.store.redis_store import RedisStore

        return RedisStore.from_url(
            cfg["url"],
            prefix=cfg["prefix"],
            cluster=True if cfg["kind"] == "redis-cluster" else None,
        )
    from adapters.store.sqlite_store import SqliteStore

    return SqliteStore(cfg["path"])


async def main(cfg: dict[str, Any]) -> None:
    store = open_store(cfg)
    taken = await store.take(cfg["channel"], cfg["game"], cfg["consumer"], count=cfg["count"])
    if taken:
        await store.ack(cfg["channel"], cfg["game"], taken[0].key, {"message_id": 1})
    sys.stdout.write(json.dumps({"taken": [e.key for e in taken]}) + "\n")
    sys.stdout.flush()
    await asyncio.sleep(3600)  # holding the batch until killed


if __name__ == "__main__":
    from gameflow.games import register_all

    register_all()  # the composition root: the games this process plays

    asyncio.run(main(json.loads(sys.argv[1])))
