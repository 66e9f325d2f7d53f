"""The embedded store: SQLite from the standard library, so the bot runs with
no Redis at all.

Same contract as the Redis store (tests/test_store_contract.py runs against
both). Every call runs on one dedicated thread holding the one connection, so
the event loop never blocks on disk and no two calls interleave; a commit is
one `BEGIN IMMEDIATE` transaction (version check, idempotency check, append,
save), which also keeps it correct if a second process opens the same file.
WAL mode with `synchronous=FULL` by default: an acknowledged input survives a
killed process and a power cut.

Expiry (finished games, idempotency keys) is by timestamp from the store's
clock: expired rows are invisible at once and deleted by `purge()`, which
`finish` and the service's sweeps call now and then. The outbox is a table of
its own (adapters/store/sqlite_outbox.py), written by the commit's transaction.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any, TypeVar

from adapters.store import sqlite_outbox, sqlite_upkeep
from adapters.store.sqlite_outbox import SqliteOutbox
from adapters.store.sqlite_tx import tx
from gameflow.core.codec import decode_game, encode_game
from gameflow.core.state import Game
from service.outbox import OutboxMessage
from service.ports import (
    DEFAULT_DEDUPE_TTL,
    DEFAULT_RETENTION,
    Commit,
    CommitResult,
    Due,
    Forgetting,
    GameStore,
    Status,
    Swap,
    check_id,
    due_floor,
)

T = TypeVar("T")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
  id TEXT PRIMARY KEY, base INTEGER NOT NULL, version INTEGER NOT NULL, snapshot TEXT NOT NULL,
  initial TEXT NOT NULL, active INTEGER NOT NULL DEFAULT 1, expires REAL,
  code TEXT, tv TEXT, due REAL, forget REAL
);
CREATE TABLE IF NOT EXISTS log (
  game TEXT NOT NULL, seq INTEGER NOT NULL, entry TEXT NOT NULL, PRIMARY KEY (game, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS keys (
  game TEXT NOT NULL, key TEXT NOT NULL, version INTEGER NOT NULL, expires REAL NOT NULL,
  PRIMARY KEY (game, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS claims (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires REAL NOT NULL);
CREATE TABLE IF NOT EXISTS codes (code TEXT PRIMARY KEY, game TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS who (identity TEXT PRIMARY KEY, game TEXT NOT NULL, player TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS who_game ON who (game);
CREATE TABLE IF NOT EXISTS tv (hash TEXT PRIMARY KEY, game TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS attrs (
  game TEXT NOT NULL, name TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (game, name)
);
"""


class SqliteStore(SqliteOutbox, GameStore):
    """The GameStore port on one SQLite file (or ":memory:")."""

    def __init__(
        self,
        path: str = "muldvarp.sqlite3",
        *,
        retention: float = DEFAULT_RETENTION,
        dedupe_ttl: float = DEFAULT_DEDUPE_TTL,
        clock: Callable[[], float] = time.time,
        synchronous: str = "FULL",
    ) -> None:
        self.path = path
        self.retention = retention
        self.dedupe_ttl = dedupe_ttl
        self.clock = clock
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sqlite-store")
        self._db: sqlite3.Connection | None = None
        self._pool.submit(self._open, synchronous).result()

    def _open(self, synchronous: str) -> None:
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=30)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(f"PRAGMA synchronous={synchronous}")
        db.execute("PRAGMA busy_timeout=30000")
        db.executescript(_SCHEMA)
        sqlite_upkeep.index_due(db)
        sqlite_upkeep.forget_column(db, self.clock())
        db.executescript(sqlite_outbox.SCHEMA)
        self._db = db

    async def _run(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        db = self._db
        if db is None:
            raise RuntimeError("the store is closed")
        return await asyncio.get_running_loop().run_in_executor(self._pool, fn, db)

    def _live(self, db: sqlite3.Connection, game_id: str) -> tuple[Any, ...] | None:
        row: tuple[Any, ...] | None = db.execute(
            "SELECT version, snapshot, initial, expires, base FROM games WHERE id = ?", (game_id,)
        ).fetchone()
        if row is None or (row[3] is not None and row[3] <= self.clock()):
            return None
        return row

    # -- games --------------------------------------------------------------------

    async def create(self, game: Game) -> bool:
        check_id(game.id)
        text = encode_game(game)

        def go(db: sqlite3.Connection) -> bool:
            with tx(db):
                if db.execute("SELECT 1 FROM games WHERE id = ?", (game.id,)).fetchone():
                    if self._live(db, game.id) is not None:
                        return False
                    _delete_game(db, game.id)  # an expired game's id may be reused
                db.execute(  # a new game is in its lobby (due NULL); a bench's may run
                    "INSERT INTO games (id, base, version, snapshot, initial, due)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    (game.id, game.version, game.version, text, text, due_floor(game)),
                )
                return True

        return await self._run(go)

    async def load(self, game_id: str) -> Game | None:
        row = await self._run(lambda db: self._live(db, game_id))
        return None if row is None else decode_game(row[1])

    async def load_with(self, game_id: str, name: str) -> tuple[Game | None, str | None]:
        def go(db: sqlite3.Connection) -> tuple[str | None, str | None]:
            row = self._live(db, game_id)
            return (None, None) if row is None else (str(row[1]), _attr(db, game_id, name))

        text, value = await self._run(go)
        return (None if text is None else decode_game(text)), value

    async def initial(self, game_id: str) -> Game | None:
        row = await self._run(lambda db: self._live(db, game_id))
        return None if row is None else decode_game(row[2])

    async def _commit_step(self, c: Commit) -> CommitResult:
        game_id, expected, game, line, key, binds, outbox, at = c
        text = encode_game(game)
        messages = sqlite_outbox.rows(outbox)

        def go(db: sqlite3.Connection) -> CommitResult:
            now = self.clock()
            with tx(db):
                row = self._live(db, game_id)
                if row is None:
                    return CommitResult(Status.MISSING, -1)
                if key is not None:
                    done = db.execute(
                        "SELECT version FROM keys WHERE game = ? AND key = ? AND expires > ?",
                        (game_id, key, now),
                    ).fetchone()
                    if done is not None:
                        return CommitResult(Status.DUPLICATE, int(done[0]))
                if row[0] != expected:
                    return CommitResult(Status.CONFLICT, int(row[0]))
                seq = expected - int(row[4])  # entry i leads from version base+i
                db.execute(
                    "INSERT INTO log (game, seq, entry) VALUES (?, ?, ?)", (game_id, seq, line)
                )
                db.execute(  # the deadline index is a column: the same transaction
                    "UPDATE games SET version = ?, snapshot = ?, due = ? WHERE id = ?",
                    (game.version, text, at, game_id),
                )
                if key is not None:
                    db.execute(
                        "INSERT OR REPLACE INTO keys (game, key, version, expires) VALUES (?, ?, ?, ?)",
                        (game_id, key, game.version, now + self.dedupe_ttl),
                    )
                db.executemany(
                    "INSERT OR REPLACE INTO who (identity, game, player) VALUES (?, ?, ?)",
                    [(identity, game_id, player) for identity, player in binds],
                )
                sqlite_outbox.write(db, game_id, messages)
                if game.over:
                    self._finish(db, game_id, now)
            return CommitResult(Status.OK, game.version)

        return await self._run(go)

    async def log(self, game_id: str, start: int = 0) -> list[dict[str, Any]]:
        def go(db: sqlite3.Connection) -> list[dict[str, Any]]:
            if self._live(db, game_id) is None:
                return []
            rows = db.execute(
                "SELECT entry FROM log WHERE game = ? AND seq >= ? ORDER BY seq", (game_id, start)
            ).fetchall()
            return [json.loads(r[0]) for r in rows]

        return await self._run(go)

    async def applied(self, game_id: str, key: str) -> int | None:
        def go(db: sqlite3.Connection) -> int | None:
            row = db.execute(
                "SELECT version FROM keys WHERE game = ? AND key = ? AND expires > ?",
                (game_id, key, self.clock()),
            ).fetchone()
            return None if row is None else int(row[0])

        return await self._run(go)

    async def expires_in(self, game_id: str) -> float | None:
        def go(db: sqlite3.Connection) -> float | None:
            row = db.execute("SELECT expires FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None or row[0] is None:
                return None
            return max(0.0, float(row[0]) - self.clock())

        return await self._run(go)

    async def claim(self, key: str, value: str) -> str:
        def go(db: sqlite3.Connection) -> str:
            now = self.clock()
            with tx(db):
                row = db.execute(
                    "SELECT value FROM claims WHERE key = ? AND expires > ?", (key, now)
                ).fetchone()
                if row is not None:
                    return str(row[0])
                db.execute(
                    "INSERT OR REPLACE INTO claims (key, value, expires) VALUES (?, ?, ?)",
                    (key, value, now + self.dedupe_ttl),
                )
                return value

        return await self._run(go)

    def _finish(self, db: sqlite3.Connection, game_id: str, now: float) -> None:
        db.execute(
            "UPDATE games SET active = 0, due = NULL, expires = COALESCE(expires, ?),"
            " forget = COALESCE(forget, ?) WHERE id = ?",
            (now + self.retention, now, game_id),
        )
        db.execute("DELETE FROM codes WHERE game = ?", (game_id,))
        db.execute("DELETE FROM who WHERE game = ?", (game_id,))

    async def finish(self, game_id: str) -> None:
        def go(db: sqlite3.Connection) -> None:
            with tx(db):
                self._finish(db, game_id, self.clock())
            self._purge(db)

        await self._run(go)

    def _purge(self, db: sqlite3.Connection) -> None:
        now = self.clock()
        with tx(db):
            for (game_id,) in db.execute(
                "SELECT id FROM games WHERE expires IS NOT NULL AND expires <= ?", (now,)
            ).fetchall():
                _delete_game(db, game_id)
            db.execute("DELETE FROM keys WHERE expires <= ?", (now,))
            db.execute("DELETE FROM claims WHERE expires <= ?", (now,))

    async def purge(self) -> None:
        """Delete expired games and keys for good."""
        await self._run(self._purge)

    # -- directories ------------------------------------------------------------------

    async def claim_code(self, code: str, game_id: str) -> bool:
        def go(db: sqlite3.Connection) -> bool:
            with tx(db):
                if db.execute("SELECT 1 FROM codes WHERE code = ?", (code,)).fetchone():
                    return False
                db.execute("INSERT INTO codes (code, game) VALUES (?, ?)", (code, game_id))
                db.execute("UPDATE games SET code = ? WHERE id = ?", (code, game_id))
                return True

        return await self._run(go)

    async def game_for_code(self, code: str) -> str | None:
        return await self._one("SELECT game FROM codes WHERE code = ?", code)

    async def game_last_with_code(self, code: str) -> str | None:
        # a game keeps its code in its row when it ends (the codes row goes);
        # the newest row is the holder, if a game holds it now
        return await self._one(
            "SELECT id FROM games WHERE code = ? ORDER BY rowid DESC LIMIT 1", code
        )

    async def code_for(self, game_id: str) -> str | None:
        return await self._one("SELECT code FROM codes WHERE game = ?", game_id)

    async def release_code(self, code: str, game_id: str) -> None:
        await self._exec("DELETE FROM codes WHERE code = ? AND game = ?", code, game_id)

    async def bind(self, identity: str, game_id: str, player: str) -> None:
        await self._put("who (identity, game, player)", identity, game_id, player)

    async def whereis(self, identity: str) -> tuple[str, str] | None:
        def go(db: sqlite3.Connection) -> tuple[str, str] | None:
            row = db.execute(
                "SELECT game, player FROM who WHERE identity = ?", (identity,)
            ).fetchone()
            return None if row is None else (str(row[0]), str(row[1]))

        return await self._run(go)

    async def unbind(self, identity: str, game_id: str) -> bool:
        return (
            await self._exec("DELETE FROM who WHERE identity = ? AND game = ?", identity, game_id)
            > 0
        )

    async def set_tv(self, token_hash: str, game_id: str) -> None:
        await self._put("tv (hash, game)", token_hash, game_id)

    async def set_attr(self, game_id: str, name: str, value: str) -> None:
        await self._put("attrs (game, name, value)", game_id, name, value)

    async def get_attr(self, game_id: str, name: str) -> str | None:
        def go(db: sqlite3.Connection) -> str | None:
            if self._live(db, game_id) is None:
                return None  # kept exactly as long as its game
            return _attr(db, game_id, name)

        return await self._run(go)

    async def _swap_step(self, swap: Swap, messages: Sequence[OutboxMessage]) -> bool:
        game_id, name, old, new = swap
        fresh = sqlite_outbox.rows(messages)

        def go(db: sqlite3.Connection) -> bool:
            with tx(db):
                if self._live(db, game_id) is None:
                    return False
                if _attr(db, game_id, name) != old:
                    return False
                db.execute(
                    "INSERT OR REPLACE INTO attrs (game, name, value) VALUES (?, ?, ?)",
                    (game_id, name, new),
                )
                sqlite_outbox.write(db, game_id, fresh)  # the same transaction
                return True

        return await self._run(go)

    async def game_for_tv(self, token_hash: str) -> str | None:
        def go(db: sqlite3.Connection) -> str | None:
            row = db.execute("SELECT game FROM tv WHERE hash = ?", (token_hash,)).fetchone()
            if row is None or self._live(db, row[0]) is None:
                return None  # the page expires with its game
            return str(row[0])

        return await self._run(go)

    async def active_games(self) -> list[str]:
        def go(db: sqlite3.Connection) -> list[str]:
            rows = db.execute("SELECT id FROM games WHERE active = 1 ORDER BY id").fetchall()
            return [str(r[0]) for r in rows]

        return await self._run(go)

    async def unsettled(self) -> list[str]:
        """The active games a sweep must look at (GameService.sweep): those
        with no instant in the deadline index. An over game is never indexed
        (`due_floor` is None, `_finish` clears it) and a commit finishes it in
        its own transaction, so an active game that is over has no instant;
        games waiting on a deadline are left out, read from a partial index."""

        def go(db: sqlite3.Connection) -> list[str]:
            rows = db.execute(
                "SELECT id FROM games WHERE active = 1 AND due IS NULL ORDER BY id"
            ).fetchall()
            return [str(r[0]) for r in rows]

        return await self._run(go)

    async def due(self, until: float) -> list[Due]:
        def go(db: sqlite3.Connection) -> list[Due]:
            rows = db.execute(
                "SELECT id, due, version FROM games WHERE due IS NOT NULL AND due <= ?"
                " AND active = 1 ORDER BY due, id",
                (until,),
            ).fetchall()
            return [Due(str(r[0]), float(r[1]), int(r[2])) for r in rows]

        return await self._run(go)

    async def forget_contacts(
        self, ended_before: float, first: Forgetting | None = None
    ) -> list[str]:
        def due(db: sqlite3.Connection) -> list[str]:
            return [
                str(r[0])
                for r in db.execute(
                    "SELECT id FROM games WHERE forget IS NOT NULL AND forget <= ?",
                    (ended_before,),
                )
            ]

        done = []
        for game_id in await self._run(due):
            if first is not None:
                await first(
                    game_id, await self._run(partial(sqlite_upkeep.contacts, game_id=game_id))
                )
            # one game at a time: the write lock is held briefly
            await self._run(partial(sqlite_upkeep.forget, game_id=game_id))
            done.append(game_id)
        return done

    async def _one(self, sql: str, *args: Any) -> str | None:
        def go(db: sqlite3.Connection) -> str | None:
            row = db.execute(sql, args).fetchone()
            return None if row is None else str(row[0])

        return await self._run(go)

    async def _put(self, into: str, *values: str) -> None:
        """Insert or replace one row: `into` names the table and its columns."""
        marks = ", ".join("?" * len(values))
        await self._exec(f"INSERT OR REPLACE INTO {into} VALUES ({marks})", *values)

    async def _exec(self, sql: str, *args: Any) -> int:
        def go(db: sqlite3.Connection) -> int:
            with tx(db):
                return db.execute(sql, args).rowcount

        return await self._run(go)

    async def close(self) -> None:
        db, self._db = self._db, None
        if db is not None:
            await asyncio.get_running_loop().run_in_executor(self._pool, db.close)
        self._pool.shutdown(wait=True)


def _delete_game(db: sqlite3.Connection, game_id: str) -> None:
    for sql in (
        "DELETE FROM games WHERE id = ?",
        "DELETE FROM log WHERE game = ?",
        "DELETE FROM keys WHERE game = ?",
        "DELETE FROM codes WHERE game = ?",
        "DELETE FROM who WHERE game = ?",
        "DELETE FROM tv WHERE game = ?",
        "DELETE FROM attrs WHERE game = ?",
        "DELETE FROM outbox WHERE game = ?",
    ):
        db.execute(sql, (game_id,))


def _attr(db: sqlite3.Connection, game_id: str, name: str) -> str | None:
    """A game's attribute as stored (the caller checked the game is live)."""
    row = db.execute(
        "SELECT value FROM attrs WHERE game = ? AND name = ?", (game_id, name)
    ).fetchone()
    return None if row is None else str(row[0])
