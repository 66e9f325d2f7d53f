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

from adapters import sent
from service.ports import GameStore

log = logging.getLogger(__name__)

OPEN_ATTR = sent.ATTR  # the record; its Telegram part is this one
SWAP_TRIES = 20  # compare-and-set rounds before giving up on a record
RECORDS_REMEMBERED = 10_000  # games whose record this process keeps as its first try

Entry = list[Any]  # [phase, chat, message id (0: not yet), key, ticket, free (0/1)]
Open = dict[str, Entry]
SEQ, CHAT, MID, KEY, TICKET, FREE = range(6)


def parse_part(text: str | None) -> tuple[int, Open]:
    """(version, entries) of the record's Telegram part; anything malformed
    counts as absent (an entry of an older format reads as a question nobody
    has)."""
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


def parse_record(record: str | None) -> tuple[int, Open]:
    """(version, entries) of a game's stored record (its Telegram part)."""
    return parse_part(sent.part(record, sent.TELEGRAM))


def parse_open(text: str | None) -> Open:
    """The entries of a stored record (player -> entry)."""
    return parse_record(text)[1]


def dump_part(version: int, entries: Open) -> str:
    return json.dumps({"v": version, "p": entries}, separators=(",", ":"))


def dump_record(version: int, entries: Open, record: str | None = None) -> str:
    """The game's record `record` with this Telegram part."""
    return sent.put(record, sent.TELEGRAM, dump_part(version, entries))


Change = Callable[[int, Open], int | None]  # -> the new version, or None: no change


class Records:
    """The Telegram part of one store's records (adapters/sent.py's `Part`:
    read, change, compare-and-set, this process's last copy tried first)."""

    def __init__(self, store: GameStore) -> None:
        self.store = store
        self.part = sent.Part(store, sent.TELEGRAM, tries=SWAP_TRIES, remembered=RECORDS_REMEMBERED)
        self._last = self.part.last

    async def read(self, game_id: str) -> tuple[int, Open]:
        return parse_part(await self.part.read(game_id))

    async def change(self, game_id: str, change: Change, *, fresh: bool = False) -> bool:
        """Apply `change` until a swap holds; True if one did (False: nothing
        to change, no such game, or store trouble, which is logged)."""

        def changed(text: str | None) -> str | None:
            version, entries = parse_part(text)
            new_version = change(version, entries)
            return None if new_version is None else dump_part(new_version, entries)

        try:
            return await self.part.change(game_id, changed, fresh=fresh)
        except Exception:
            log.exception("%s: changing the open-prompt record failed", game_id)
        return False
