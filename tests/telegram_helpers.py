"""The Telegram tests' usual bot: the real adapter (`Harness`) on a fresh SQLite
store with a fake clock, against a fake Bot API, the store closed once both have
stopped. One place for what most of those tests would otherwise set up alike."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from adapters.store.sqlite_store import SqliteStore
from tests.fake_telegram import FakeBotApi, Harness, serving
from tests.store_helpers import T0, FakeClock


def clocked_store(
    tmp_path: Path, db: str = "g.sqlite3", now: float = T0
) -> tuple[FakeClock, SqliteStore]:
    """A fresh SQLite store on `tmp_path / db` and the fake clock it runs on,
    at `now`."""
    clock = FakeClock(now)
    return clock, SqliteStore(str(tmp_path / db), clock=clock, synchronous="OFF")


@contextlib.asynccontextmanager
async def telegram_bot(
    tmp_path: Path, db: str = "g.sqlite3", now: float = T0
) -> AsyncIterator[tuple[FakeBotApi, Harness]]:
    """The fake Bot API and the `Harness` on `tmp_path / db` (h.store, h.clock
    at `now`)."""
    clock, store = clocked_store(tmp_path, db, now)
    async with serving(FakeBotApi()) as api, Harness(api, store, clock) as h:
        yield api, h
    await store.close()
