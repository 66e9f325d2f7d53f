"""The SQLite store's transaction, shared by the store and its outbox."""

from __future__ import annotations

import sqlite3


class tx:
    """BEGIN IMMEDIATE ... COMMIT (ROLLBACK on error): takes the write lock up front,
    so two processes on one file can never both pass the version check."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        self.db.execute("COMMIT" if exc_type is None else "ROLLBACK")
