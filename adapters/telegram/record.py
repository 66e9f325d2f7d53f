"""The open-prompt record: which question each Telegram player was last sent.

Stored as the Telegram part of the game's record of what each recipient
was last delivered (adapters/sent.py: the attribute `sent`, with the SMS
sheets), shared by every worker:

    {"v": <game version decided>, "p": {player: [phase, chat, message id,
                                                  question key, ticket, free]}}

An entry is written when a channel decides to send a question (message id 0:
not delivered yet) and gets its message id once delivered. `v` is the game
version whose questions the record holds: a notification for an older version
(a slow worker, a commit another worker has already moved past) changes
nothing, so an older commit never overwrites a newer one. The ticket names one
send: a sender whose ticket is no longer the entry's does not send (or takes
its keyboard off again if it already had). A player with no open question has
no entry. Changed by compare-and-set only (`GameStore.swap_attr`), so workers
never undo each other's changes.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from cachetools import LRUCache

from adapters import sent
from service.ports import GameStore

log = logging.getLogger(__name__)

OPEN_ATTR = sent.ATTR  # the record; its Telegram part is this one
SWAP_TRIES = 20  # compare-and-set rounds before giving up on a record
RECORDS_REMEMBERED = 10_000  # games whose record this process keeps as its first try

Entry = list[Any]  # [phase, chat, message id (0: not yet), key, ticket, free (0/1)]
Open = dict[str, Entry]
SEQ, CHAT, MID, KEY, TICKET, FREE = range(6)


def parse_record(record: str | None) -> tuple[int, Open]:
    """(version, entries) of a game's stored record (its Telegram part);
    anything malformed counts as absent (an entry of an older format reads
    as a question nobody has)."""
    text = sent.part(record, sent.TELEGRAM)
    try:
        data = json.loads(text) if text else {}
        version = int(data.get("v", 0))
        raw = data.get("p", {})
        entries: Open = {}
        for player, e in raw.items():
            entries[str(player)] = [
                int(e[0]),
                int(e[1]),
                int(e[2]),
                str(e[3]),
                str(e[4]),
                int(e[5]),
            ]
    except (ValueError, TypeError, AttributeError, KeyError, IndexError):
        return 0, {}
    return version, entries


def parse_open(text: str | None) -> Open:
    """The entries of a stored record (player -> entry)."""
    return parse_record(text)[1]


def dump_record(version: int, entries: Open, record: str | None = None) -> str:
    """The game's record `record` with this Telegram part."""
    part = json.dumps({"v": version, "p": entries}, separators=(",", ":"))
    return sent.put(record, sent.TELEGRAM, part)


Change = Callable[[int, Open], int | None]  # -> the new version, or None: no change


class Records:
    """Read-change-swap of the Telegram part of one store's records, trying
    this process's last copy first (one round trip when nobody else wrote
    since)."""

    def __init__(self, store: GameStore) -> None:
        self.store = store
        self._last: LRUCache[str, str | None] = LRUCache(maxsize=RECORDS_REMEMBERED)

    async def read(self, game_id: str) -> tuple[int, Open]:
        text = await sent.read(self.store, game_id)
        self._last[game_id] = text
        return parse_record(text)

    async def change(self, game_id: str, change: Change, *, fresh: bool = False) -> bool:
        """Apply `change` until a swap holds; True if one did (False: nothing
        to change, no such game, or store trouble, which is logged)."""
        try:
            known = game_id in self._last and not fresh
            old = self._last.get(game_id) if known else None
            if not known:
                old = await sent.read(self.store, game_id)
            gone = False
            for _ in range(SWAP_TRIES):
                version, entries = parse_record(old)
                new_version = change(version, entries)
                if new_version is None:
                    if known:  # decided on our copy: decide again on the store's
                        old, known = await sent.read(self.store, game_id), False
                        continue
                    self._last[game_id] = old
                    return False
                new = dump_record(new_version, entries, old)
                if await self.store.swap_attr(game_id, OPEN_ATTR, old, new):
                    self._last[game_id] = new
                    return True
                if old is None and gone and not known:
                    return False  # no such game (any more)
                gone = old is None
                old, known = await sent.read(self.store, game_id), False
            log.warning("%s: gave up changing the open-prompt record", game_id)
        except Exception:
            log.exception("%s: changing the open-prompt record failed", game_id)
        return False
