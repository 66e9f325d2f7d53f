"""What each recipient was last delivered: one record per game, every channel.

One game attribute, `sent`, a JSON object with a part per channel
(`{"tg": ..., "sms": ...}`), changed by compare-and-set (`GameStore.swap_attr`)
so that one channel's change never loses another's, and read with the game in
one round trip (`GameStore.load_with`). A game from before the one record
(attributes `tg:open`, `sms:sheets`) has them moved into it on its first read.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from cachetools import LRUCache

log = logging.getLogger(__name__)

ATTR = "sent"
TELEGRAM, SMS = "tg", "sms"
LEGACY = {TELEGRAM: "tg:open", SMS: "sms:sheets"}  # the attributes `sent` replaced


def _doc(raw: str | None) -> dict[str, Any]:
    try:
        doc = json.loads(raw) if raw else {}
    except ValueError:
        return {}
    return doc if isinstance(doc, dict) else {}


def part(raw: str | None, channel: str) -> str | None:
    """`channel`'s part of a record as the text it was stored as alone (None:
    none)."""
    value = _doc(raw).get(channel)
    return None if value is None else json.dumps(value, separators=(",", ":"), sort_keys=True)


def put(raw: str | None, channel: str, text: str) -> str:
    """The record `raw` with `channel`'s part replaced by `text` (JSON)."""
    doc = _doc(raw)
    doc[channel] = json.loads(text)
    return json.dumps(doc, separators=(",", ":"), sort_keys=True)


class Attrs(Protocol):
    """Where the records are: the store's game attributes (`GameStore`)."""

    async def get_attr(self, game_id: str, name: str) -> str | None: ...

    async def swap_attr(self, game_id: str, name: str, old: str | None, new: str) -> bool: ...


class Memory:
    """Records in memory (a unit test with no store)."""

    def __init__(self) -> None:
        self.attrs: dict[tuple[str, str], str] = {}

    async def get_attr(self, game_id: str, name: str) -> str | None:
        return self.attrs.get((game_id, name))

    async def swap_attr(self, game_id: str, name: str, old: str | None, new: str) -> bool:
        if self.attrs.get((game_id, name)) != old:
            return False
        self.attrs[game_id, name] = new
        return True


# A compare-and-set of a game's record: (old, new) -> whether it held.
Swap = Callable[[str | None, str], Awaitable[bool]]
# A change of a channel's part: its text (None: none) -> the new text, or
# None when nothing is to change.
Change = Callable[[str | None], str | None]


class Part:
    """One channel's part of every game's record, as each delivery reconciles
    it: read, change, compare-and-set, again on a lost race. The record this
    process last read or wrote is the first guess (one game is delivered by
    one worker at a time, so it is nearly always current, and the swap alone
    is one round trip); a guess that fails the swap, or that says nothing is
    to change, is read afresh."""

    def __init__(
        self, store: Attrs, channel: str, *, tries: int, remembered: int, gone: bool = False
    ) -> None:
        self.store = store
        self.channel = channel
        self.tries = tries
        self.gone = gone  # stop when the game has no record twice and swaps fail
        self.last: LRUCache[str, str | None] = LRUCache(maxsize=remembered)

    async def read(self, game_id: str) -> str | None:
        """The channel's part of the game's record, read now."""
        raw = await read(self.store, game_id)
        self.last[game_id] = raw
        return part(raw, self.channel)

    async def change(
        self, game_id: str, change: Change, *, fresh: bool = False, first: Swap | None = None
    ) -> bool:
        """Apply `change` until a swap holds; True if one did (False: nothing
        to change, no such game, or `tries` lost races). `first`, when given, makes the first
        compare-and-set instead of the store's own (a delivery's that acks an
        entry in the same round trip); `fresh` reads before the first try."""
        known = game_id in self.last and not fresh
        raw = self.last.get(game_id) if known else await read(self.store, game_id)
        gone = False
        for _ in range(self.tries):
            new_part = change(part(raw, self.channel))
            if new_part is None:
                if known:  # decided on our copy: decide again on the store's
                    raw, known = await read(self.store, game_id), False
                    continue
                self.last[game_id] = raw
                return False
            new = put(raw, self.channel, new_part)
            swap, first = first, None
            held = await (swap(raw, new) if swap else self.store.swap_attr(game_id, ATTR, raw, new))
            if held:
                self.last[game_id] = new
                return True
            if self.gone and raw is None and gone and not known:
                return False  # no such game (any more)
            gone = raw is None
            raw, known = await read(self.store, game_id), False
        self.last.pop(game_id, None)
        log.warning("%s: gave up changing the %s part of its record", game_id, self.channel)
        return False


async def read(store: Attrs, game_id: str) -> str | None:
    """The game's record, the old attributes moved into it first if it has
    none yet (a game in flight when the record became one)."""
    raw = await store.get_attr(game_id, ATTR)
    if raw is not None:
        return raw
    doc: dict[str, Any] = {}
    for channel, name in LEGACY.items():
        old = _doc(await store.get_attr(game_id, name))
        if old:
            doc[channel] = old
    if not doc:
        return None  # a new game (or none)
    await store.swap_attr(game_id, ATTR, None, json.dumps(doc, separators=(",", ":")))
    return await store.get_attr(game_id, ATTR)
