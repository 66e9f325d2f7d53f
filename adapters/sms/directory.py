"""What the SMS adapter itself must remember: numbers, opt-outs, messages.

The game store knows phone -> (game, player) (its identity directory). The SMS
side also needs the way back, player -> phone, to send a text (and it must
outlive the game's bindings, which the store drops when a game ends, because the
final result still goes out); the numbers that said STOP; every inbound message
(stored before the webhook answers, keyed by Twilio's `MessageSid`, which is
also how a redelivery is recognised); and every outbound one with its delivery
status, so a failed private text can be reported to the host.

When an ended game's contacts are forgotten (`forget_game`, from the store's
retention pass) its players' numbers go with every text to and from them,
unless a number is in a later game; the STOPs stay.

`Directory` is that port; two implementations keep it:

- `SqliteDirectory` (here): one small SQLite file (or ":memory:"), for the
  embedded store's single process. The calls are single-row statements on
  indexed keys, quick enough to run on the event loop.
- `RedisDirectory` (`adapters.sms.redis_directory`): every worker sharing a
  Redis shares the records, so a text may reach any worker, its redelivery
  another, and the status callback a third.

Player ids for phones are opaque (`player_id`): a keyed hash, so the same phone
always gets the same id (a redelivered JOIN is the same player) while the id,
which public views do show, reveals nothing about the number.
"""

from __future__ import annotations

import hashlib
import hmac
import sqlite3
import threading
from collections.abc import Sequence
from typing import NamedTuple, Protocol

PREFIX = "sms:"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS numbers (player TEXT PRIMARY KEY, phone TEXT NOT NULL, game TEXT);
CREATE TABLE IF NOT EXISTS optout (phone TEXT PRIMARY KEY, at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS inbound (
  sid TEXT PRIMARY KEY, phone TEXT NOT NULL, body TEXT NOT NULL, at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS outbound (
  sid TEXT PRIMARY KEY, phone TEXT NOT NULL, player TEXT, game TEXT,
  secret INTEGER NOT NULL, status TEXT NOT NULL, error TEXT, at REAL NOT NULL
);
"""


def player_id(phone: str, key: str) -> str:
    """The opaque, stable player id of an E.164 number (keyed: not reversible by
    trying every number without the key)."""
    digest = hmac.new(key.encode(), phone.encode(), hashlib.sha256).hexdigest()
    return PREFIX + digest[:16]


def is_sms(player: str | None) -> bool:
    return player is not None and player.startswith(PREFIX)


class Received(NamedTuple):
    """An inbound text as it was first stored."""

    sid: str
    phone: str
    body: str
    at: float


class Sent(NamedTuple):
    sid: str
    phone: str
    player: str | None
    game: str | None
    secret: bool
    status: str


class Directory(Protocol):
    """The SMS adapter's own records. Every method is one atomic step against
    whatever holds them, so workers sharing the records never race on one.
    Both kinds subclass it: `record_sent`'s arguments are named here once."""

    async def store_inbound(self, sid: str, phone: str, body: str, at: float) -> bool:
        """Store an inbound message; False if this MessageSid was stored before
        (by this process or any other sharing the records)."""
        ...

    async def inbound(self, sid: str) -> Received | None:
        """The inbound message stored under `sid`, if any."""
        ...

    async def set_phone(self, player: str, phone: str, game: str | None) -> None: ...

    async def phone_of(self, player: str) -> str | None: ...

    async def opt_out(self, phone: str, at: float) -> bool:
        """Mark `phone` unreachable; False if it was already."""
        ...

    async def opt_in(self, phone: str) -> bool:
        """Make `phone` reachable again; False if it was not opted out."""
        ...

    async def opted_out(self, phone: str) -> bool: ...

    async def reachable(self, players: Sequence[str]) -> dict[str, str]:
        """The phones of those of `players` whose number is known and did not
        opt out: whom a text can go to (one round trip for a whole table)."""
        ...

    async def record_sent(
        self,
        sid: str,
        phone: str,
        player: str | None,
        game: str | None,
        secret: bool,
        status: str,
        at: float,
        error: str | None = None,
    ) -> None:
        """Keep a text sent (Twilio's `sid`): its status callbacks and the
        forgetting find it."""
        await self._keep_sent(Sent(sid, phone, player, game, secret, status), at, error)

    async def _keep_sent(self, sent: Sent, at: float, error: str | None) -> None:
        """The records' own write for `record_sent`."""
        ...

    async def update_status(
        self, sid: str, status: str, error: str | None, at: float
    ) -> Sent | None:
        """Record a status callback; the message as it was before (None if unknown)."""
        ...

    async def sent(self, sid: str) -> Sent | None: ...

    async def forget_game(self, game: str, players: Sequence[str]) -> list[str]:
        """An ended game's contacts are forgotten (CONTACTS_RETENTION_HOURS):
        the numbers of `players` still linked to `game` go, with every text
        to and from them; a number linked to a later game stays, and so does
        every STOP (the carrier's, never forgotten). Idempotent; returns the
        numbers forgotten."""
        ...

    async def close(self) -> None: ...


class SqliteDirectory(Directory):
    """The records in one SQLite file: for one process (or several on one host
    sharing the file)."""

    def __init__(self, path: str = ":memory:") -> None:
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        with self._lock:
            self._db.executescript(_SCHEMA)

    def _exec(self, sql: str, *args: object) -> sqlite3.Cursor:
        with self._lock:
            return self._db.execute(sql, args)

    # -- inbound ----------------------------------------------------------------

    async def store_inbound(self, sid: str, phone: str, body: str, at: float) -> bool:
        cur = self._exec(
            "INSERT OR IGNORE INTO inbound (sid, phone, body, at) VALUES (?, ?, ?, ?)",
            sid,
            phone,
            body,
            at,
        )
        return cur.rowcount == 1

    async def inbound(self, sid: str) -> Received | None:
        row = self._exec("SELECT sid, phone, body, at FROM inbound WHERE sid = ?", sid).fetchone()
        return None if row is None else Received(row[0], row[1], row[2], float(row[3]))

    # -- numbers ------------------------------------------------------------------

    async def set_phone(self, player: str, phone: str, game: str | None) -> None:
        self._exec(
            "INSERT OR REPLACE INTO numbers (player, phone, game) VALUES (?, ?, ?)",
            player,
            phone,
            game,
        )

    async def phone_of(self, player: str) -> str | None:
        row = self._exec("SELECT phone FROM numbers WHERE player = ?", player).fetchone()
        return None if row is None else str(row[0])

    # -- opt-out ------------------------------------------------------------------

    async def opt_out(self, phone: str, at: float) -> bool:
        cur = self._exec("INSERT OR IGNORE INTO optout (phone, at) VALUES (?, ?)", phone, at)
        return cur.rowcount == 1

    async def opt_in(self, phone: str) -> bool:
        return self._exec("DELETE FROM optout WHERE phone = ?", phone).rowcount == 1

    async def opted_out(self, phone: str) -> bool:
        return self._exec("SELECT 1 FROM optout WHERE phone = ?", phone).fetchone() is not None

    async def reachable(self, players: Sequence[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for player in players:
            row = self._exec(
                "SELECT phone FROM numbers WHERE player = ?"
                " AND phone NOT IN (SELECT phone FROM optout)",
                player,
            ).fetchone()
            if row is not None:
                out[player] = str(row[0])
        return out

    # -- outbound -----------------------------------------------------------------

    async def _keep_sent(self, sent: Sent, at: float, error: str | None) -> None:
        sid, phone, player, game, secret, status = sent
        self._exec(
            "INSERT OR REPLACE INTO outbound (sid, phone, player, game, secret, status, error, at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            sid,
            phone,
            player,
            game,
            int(secret),
            status,
            error,
            at,
        )

    async def update_status(
        self, sid: str, status: str, error: str | None, at: float
    ) -> Sent | None:
        # One UPDATE ... RETURNING would not give the old status; a transaction
        # under the lock (and SQLite's write lock across processes) keeps the
        # read and the write together.
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                row = self._db.execute(
                    "SELECT sid, phone, player, game, secret, status FROM outbound WHERE sid = ?",
                    (sid,),
                ).fetchone()
                if row is not None:
                    self._db.execute(
                        "UPDATE outbound SET status = ?, error = ?, at = ? WHERE sid = ?",
                        (status, error, at, sid),
                    )
            finally:
                self._db.execute("COMMIT")
        if row is None:
            return None
        return Sent(row[0], row[1], row[2], row[3], bool(row[4]), row[5])

    async def sent(self, sid: str) -> Sent | None:
        row = self._exec(
            "SELECT sid, phone, player, game, secret, status FROM outbound WHERE sid = ?", sid
        ).fetchone()
        return None if row is None else Sent(row[0], row[1], row[2], row[3], bool(row[4]), row[5])

    async def forget_game(self, game: str, players: Sequence[str]) -> list[str]:
        if not players:
            return []
        where = f"FROM numbers WHERE game = ? AND player IN ({', '.join('?' * len(players))})"
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                found = self._db.execute(f"SELECT phone {where}", (game, *players))
                phones = [str(r[0]) for r in found]
                self._db.execute(f"DELETE {where}", (game, *players))
                for phone in phones:
                    self._db.execute("DELETE FROM inbound WHERE phone = ?", (phone,))
                    self._db.execute("DELETE FROM outbound WHERE phone = ?", (phone,))
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        return phones

    async def close(self) -> None:
        with self._lock:
            self._db.close()
