"""What each SMS player was last texted: the SMS part of the game's record
of what was delivered (adapters/sent.py), `SentSheets`.

The gateway reads it to tell a number typed for an older menu from one typed
for the menu now open, and to answer a text that comes when nothing is asked
(their answer is in, or they were too late); the delivery writes it as it
texts. Split from renderer.py (the SMS renderer), which decides what is texted
but never reads what was.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping
from typing import Any

from adapters import sent
from service.ports import GameStore

log = logging.getLogger(__name__)

ATTR = sent.ATTR  # the record; `SentSheets` is its SMS part
TRIES = 8
SEEN_CACHE = 10_000  # games whose SMS sheet record is remembered (SentSheets)


Swap = sent.Swap  # a compare-and-set of a game's record: (old, new) -> whether it held


class SentSheets:
    """What each SMS player of a game was last texted, recorded by the delivery
    once Twilio accepted it: the sheet key (a number is read against that
    sheet), or how their question closed (ANSWERED, CLOSED) while none is open.
    The SMS part of the game's record of what each recipient was last
    delivered (adapters/sent.py; `{"k": {player: key}, "c": {player: how}}`),
    replaced by compare-and-set: one game's messages are
    delivered in commit order by one consumer at a time, but the records of
    several deliveries of one game must never lose each other's change.

    The gateway reads `closed` (the reply to an answer when nothing is
    asked: "your answer is in" or "too late") and `last`: a number typed
    while the record names another sheet than the question open now (its
    text still on the way) was typed for the older menu and is refused. The
    delivery writes the record just before it hands the text to Twilio, so a
    player never holds a menu newer than the record. Without a store (a unit
    test) the record lives in memory."""

    def __init__(self, store: GameStore | None) -> None:
        self.store = store
        where = store if store is not None else sent.Memory()
        self.part = sent.Part(where, sent.SMS, tries=TRIES, remembered=SEEN_CACHE)
        # One game's players are texted in parallel: their records take turns
        # here instead of losing compare-and-sets to each other.
        self._locks: dict[str, asyncio.Lock] = {}
        self._users: dict[str, int] = {}
        self._seen = self.part.last  # game -> its record as last written or read here

    async def _get(self, game_id: str) -> str | None:
        return await sent.read(self.part.store, game_id)

    @classmethod
    def _parse(cls, raw: str | None) -> tuple[dict[str, str], dict[str, str]]:
        return cls._doc(sent.part(raw, sent.SMS))

    @staticmethod
    def _doc(text: str | None) -> tuple[dict[str, str], dict[str, str]]:
        if not text:
            return {}, {}
        doc: dict[str, Any] = json.loads(text)
        return dict(doc.get("k", {})), dict(doc.get("c", {}))

    async def key(self, game_id: str, player: str) -> str | None:
        """The key of the sheet `player` was last texted (None: none open)."""
        return self._parse(await self._get(game_id))[0].get(player)

    async def last(self, game_id: str, player: str) -> tuple[str | None, str | None]:
        """What `player` was last texted, in one read: (the sheet's key, how
        it closed). (None, None): nothing recorded (no question texted yet)."""
        return self.last_in(await self._get(game_id), player)

    @classmethod
    def last_in(cls, raw: str | None, player: str) -> tuple[str | None, str | None]:
        """`last` from a record already read (GameStore.load_with, with the game)."""
        keys, how = cls._parse(raw)
        return keys.get(player), how.get(player)

    async def closed(self, game_id: str, player: str) -> str | None:
        """How `player`'s last texted question closed, while no other is open:
        ANSWERED (by their answer), CLOSED (its time ran out, or the host moved
        on), None (no question closed since)."""
        return self._parse(await self._get(game_id))[1].get(player)

    async def record(
        self,
        game_id: str,
        player: str,
        key: str | None = None,
        closed: str | None = None,
        *,
        first: Swap | None = None,
    ) -> bool:
        """`player` was just texted the sheet `key`, or their question closed
        (`closed`); a no-op when the record says so already. `first`, when
        given, makes the first compare-and-set instead of the store's own
        swap (the delivery's: it acks the text before in the same round
        trip). True if `first` was called."""
        lock = self._locks.setdefault(game_id, asyncio.Lock())
        self._users[game_id] = self._users.get(game_id, 0) + 1
        try:
            async with lock:
                return await self._record(game_id, player, key, closed, first)
        finally:
            self._users[game_id] -= 1
            if not self._users[game_id]:
                del self._users[game_id], self._locks[game_id]

    async def _record(
        self, game_id: str, player: str, key: str | None, closed: str | None, first: Swap | None
    ) -> bool:
        used = False

        def change(text: str | None) -> str | None:
            keys, how = self._doc(text)
            before = (dict(keys), dict(how))
            if key is not None:
                keys[player] = key
                how.pop(player, None)
            elif closed is not None:
                keys.pop(player, None)
                how[player] = closed
            if (keys, how) == before:
                return None
            doc: dict[str, Any] = {"k": keys}
            if how:
                doc["c"] = how
            return json.dumps(doc, sort_keys=True)

        async def acking(old: str | None, new: str) -> bool:
            nonlocal used
            used = True
            assert first is not None
            return await first(old, new)

        await self.part.change(game_id, change, first=acking if first is not None else None)
        return used


def record_of(payload: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """What delivering an outbox payload records: (sheet key, closed)."""
    return payload.get("sheet"), payload.get("closed")
