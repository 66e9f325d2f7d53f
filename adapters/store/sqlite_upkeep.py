"""The SQLite store's upkeep beside its commits (adapters/store/sqlite_store.py):
the schema's later columns, added to a file from before them, and forgetting
an ended game's contacts (service/forget.py). Kept apart so the store stays a
readable size."""

from __future__ import annotations

import sqlite3

from adapters.store.sqlite_tx import tx
from service.forget import channel_ids, forget_texts


def index_due(db: sqlite3.Connection) -> None:
    """The deadline index: the column `due` and an index on it. A file from
    before it gets the column with every active game due at once (0): each is
    loaded once by the scheduler, and its next commit writes its real instant."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(games)")}
    if "due" not in columns:
        with tx(db):
            db.execute("ALTER TABLE games ADD COLUMN due REAL")
            db.execute("UPDATE games SET due = 0 WHERE active = 1")
    db.execute("CREATE INDEX IF NOT EXISTS games_due ON games (due) WHERE due IS NOT NULL")
    # the games a start's sweep reads (SQLiteStore.unsettled): none of the idle
    # campaigns waiting on a deadline, so a start reads no row of theirs
    db.execute(
        "CREATE INDEX IF NOT EXISTS games_unsettled ON games (id) WHERE active = 1 AND due IS NULL"
    )


def forget_column(db: sqlite3.Connection, now: float) -> None:
    """The column `forget`: when an ended game's contacts start to count down
    (its end; NULL once forgotten). A file from before it counts the games
    that had ended from now on."""
    if "forget" not in {row[1] for row in db.execute("PRAGMA table_info(games)")}:
        with tx(db):
            db.execute("ALTER TABLE games ADD COLUMN forget REAL")
            db.execute("UPDATE games SET forget = ? WHERE active = 0", (now,))


def _texts(db: sqlite3.Connection, game_id: str) -> tuple[str, str, list[tuple[int, str]]] | None:
    row = db.execute("SELECT snapshot, initial FROM games WHERE id = ?", (game_id,)).fetchone()
    if row is None:
        return None
    log = db.execute("SELECT seq, entry FROM log WHERE game = ? ORDER BY seq", (game_id,))
    return str(row[0]), str(row[1]), [(int(r[0]), str(r[1])) for r in log]


def contacts(db: sqlite3.Connection, game_id: str) -> list[str]:
    """The channel ids the game still holds ([] once forgotten)."""
    texts = _texts(db, game_id)
    return [] if texts is None else channel_ids(texts[0], texts[1], [e for _, e in texts[2]])


def forget(db: sqlite3.Connection, game_id: str) -> None:
    """An ended game's contacts forgotten (service/forget.py), in one
    transaction: its ids in the snapshot, initial state and log, the channels'
    attributes, and its outbox (the payloads name chat ids and players, the
    acked keys players: nothing is sent to a game forgotten)."""
    with tx(db):
        texts = _texts(db, game_id)
        if texts is not None:
            snapshot, initial, log = texts
            new = forget_texts(snapshot, initial, [e for _, e in log])
            if new is not None:
                db.execute(
                    "UPDATE games SET snapshot = ?, initial = ? WHERE id = ?",
                    (new[0], new[1], game_id),
                )
                db.executemany(
                    "UPDATE log SET entry = ? WHERE game = ? AND seq = ?",
                    [(e, game_id, seq) for (seq, _), e in zip(log, new[2], strict=True)],
                )
        db.execute("DELETE FROM attrs WHERE game = ?", (game_id,))
        db.execute("DELETE FROM outbox WHERE game = ?", (game_id,))
        db.execute("UPDATE games SET forget = NULL WHERE id = ?", (game_id,))
