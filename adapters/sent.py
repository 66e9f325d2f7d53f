"""What each recipient was last delivered: one record per game, every channel.

One game attribute, `sent`, a JSON object with a part per channel
(`{"tg": ..., "sms": ...}`), changed by compare-and-set (`GameStore.swap_attr`)
so that one channel's change never loses another's, and read with the game in
one round trip (`GameStore.load_with`). A game from before the one record
(attributes `tg:open`, `sms:sheets`) has them moved into it on its first read.
"""

from __future__ import annotations

import json
from typing import Any

from service.ports import GameStore

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


async def read(store: GameStore, game_id: str) -> str | None:
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
