"""The embedded store's outbox (service/outbox.py): one table beside the games.

A commit's messages are inserted by the commit's own `BEGIN IMMEDIATE`
transaction (`write`), so an acknowledged input always has its messages, and
a refused commit (CONFLICT, DUPLICATE) has none. Rows are handed out in `id`
order (the insertion order: commit order) to a consumer (`claimed_by`,
`claimed_at`, `attempts`); a batch not acked nor renewed for `min_idle`
seconds is handed out again, so a restarted process (or a second one on the
same file) picks up whatever a killed one held. An ack keeps the key and its
result (for dedupe and `delivered`) and drops the payload: acked entries are
trimmed at once. Rows go with their game (`purge` of an expired game).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from adapters.store.sqlite_tx import tx
from service.outbox import MAX_BATCH, OutboxEntry, OutboxMessage, OutboxStore, check_channel

T = TypeVar("T")

SCHEMA = """
CREATE TABLE IF NOT EXISTS outbox (
  id INTEGER PRIMARY KEY, game TEXT NOT NULL, channel TEXT NOT NULL, key TEXT NOT NULL,
  payload TEXT, claimed_by TEXT, claimed_at REAL, attempts INTEGER NOT NULL DEFAULT 0,
  acked INTEGER NOT NULL DEFAULT 0, result TEXT, UNIQUE (game, channel, key)
);
CREATE INDEX IF NOT EXISTS outbox_open ON outbox (channel, game, id) WHERE acked = 0;
"""

Row = tuple[str, str, str]  # channel, key, payload (JSON)


def rows(messages: Sequence[OutboxMessage]) -> list[Row]:
    """The messages as rows, encoded before the transaction (off its thread)."""
    return [
        (check_channel(m.channel), m.key, json.dumps(m.payload, ensure_ascii=False))
        for m in messages
    ]


def write(db: sqlite3.Connection, game_id: str, new: list[Row]) -> int:
    """Insert messages inside the caller's transaction; keys already written
    (delivered or not) are skipped. Returns how many were new."""
    before = db.total_changes
    db.executemany(
        "INSERT OR IGNORE INTO outbox (game, channel, key, payload) VALUES (?, ?, ?, ?)",
        [(game_id, channel, key, payload) for channel, key, payload in new],
    )
    return db.total_changes - before


class SqliteOutbox(OutboxStore):
    """The outbox methods of `SqliteStore` (a mixin: it runs them on its thread)."""

    if TYPE_CHECKING:
        clock: Callable[[], float]

        async def _run(self, fn: Callable[[sqlite3.Connection], T]) -> T: ...

        def _live(self, db: sqlite3.Connection, game_id: str) -> tuple[Any, ...] | None: ...

    async def append_outbox(self, game_id: str, messages: Sequence[OutboxMessage]) -> int:
        new = rows(messages)

        def go(db: sqlite3.Connection) -> int:
            with tx(db):
                if self._live(db, game_id) is None:
                    return 0
                return write(db, game_id, new)

        return await self._run(go)

    async def outbox_ready(self, channel: str, *, scan: bool = False) -> list[str]:
        check_channel(channel)

        def go(db: sqlite3.Connection) -> list[str]:
            found = db.execute(
                "SELECT DISTINCT o.game FROM outbox o JOIN games g ON g.id = o.game"
                " WHERE o.channel = ? AND o.acked = 0 AND (g.expires IS NULL OR g.expires > ?)"
                " ORDER BY o.game",
                (channel, self.clock()),
            ).fetchall()
            return [str(r[0]) for r in found]

        return await self._run(go)  # exact here: `scan` has nothing to repair

    async def _take_batch(
        self, channel: str, game_id: str, consumer: str, count: int, min_idle: float
    ) -> list[OutboxEntry]:
        def go(db: sqlite3.Connection) -> list[OutboxEntry]:
            now = self.clock()
            with tx(db):
                if self._live(db, game_id) is None:
                    return []
                open_ = db.execute(
                    "SELECT id, key, payload, claimed_by, claimed_at, attempts FROM outbox"
                    " WHERE channel = ? AND game = ? AND acked = 0 ORDER BY id LIMIT ?",
                    (channel, game_id, MAX_BATCH),
                ).fetchall()
                # Held rows are a prefix (batches are taken in order): one held
                # and fresh means its batch is still out.
                if any(r[3] is not None and now - r[4] < min_idle for r in open_):
                    return []
                batch = open_[:count]
                db.executemany(
                    "UPDATE outbox SET claimed_by = ?, claimed_at = ?, attempts = attempts + 1"
                    " WHERE id = ?",
                    [(consumer, now, r[0]) for r in batch],
                )
            return [
                OutboxEntry(game_id, channel, str(r[1]), json.loads(r[2]), int(r[5]) + 1)
                for r in batch
            ]

        return await self._run(go)

    async def renew(self, channel: str, game_id: str, consumer: str) -> int:
        def go(db: sqlite3.Connection) -> int:
            with tx(db):
                return db.execute(
                    "UPDATE outbox SET claimed_at = ? WHERE channel = ? AND game = ?"
                    " AND claimed_by = ? AND acked = 0",
                    (self.clock(), channel, game_id, consumer),
                ).rowcount

        return await self._run(go)

    async def ack(
        self, channel: str, game_id: str, key: str, result: Mapping[str, Any] | None = None
    ) -> bool:
        text = json.dumps(dict(result or {}), ensure_ascii=False)

        def go(db: sqlite3.Connection) -> bool:
            with tx(db):
                changed = db.execute(
                    "UPDATE outbox SET acked = 1, payload = NULL, result = ?"
                    " WHERE channel = ? AND game = ? AND key = ? AND acked = 0",
                    (text, channel, game_id, key),
                ).rowcount
            return changed > 0

        return await self._run(go)

    async def delivered(self, channel: str, game_id: str, key: str) -> dict[str, Any] | None:
        def go(db: sqlite3.Connection) -> dict[str, Any] | None:
            if self._live(db, game_id) is None:
                return None
            row = db.execute(
                "SELECT result FROM outbox WHERE channel = ? AND game = ? AND key = ? AND acked = 1",
                (channel, game_id, key),
            ).fetchone()
            return None if row is None else dict(json.loads(row[0]))

        return await self._run(go)
