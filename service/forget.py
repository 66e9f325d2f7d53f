"""Forgetting the players' contacts in an ended game (issue #31 item 2).

A player's id is their channel identity: `tg:201` is a Telegram user (their
private chat's id), `sms:...` stands for a phone number. An ended game is kept
for `RETENTION_DAYS` (audits, `muldvarp export`), but the contacts in it need
not be: after `CONTACTS_RETENTION_HOURS` the stores rewrite the game's
snapshot, its initial state and its log with every id replaced by a neutral
one (`anon:1`, `anon:2`, ... numbered in the old ids' order, so whatever the
rules order by id replays the same: `GameService.verify` still holds), and
drop the channels' attributes (a Telegram group's chat id, the SMS sheets).

Pure functions on the stored JSON texts (the codec writes plain JSON), for
both stores: no decoding of a state, nothing but the ids changes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

ANON = "anon:"
CHANNELS = ("tg:", "sms:")  # the channel adapters' identity prefixes


def _ids(state: Any, into: set[str]) -> None:
    """The host's and the players' ids of a snapshot's JSON."""
    if not isinstance(state, dict):
        return
    host = state.get("host")
    if isinstance(host, str):
        into.add(host)
    into.update(p for p in state.get("players") or () if isinstance(p, str))


def neutral(snapshot: Any, initial: Any, entries: Sequence[Any]) -> dict[str, str]:
    """Old id -> neutral id for a game, or {} when no id is a channel's (a
    demo's names) or the ids are neutral already (a game forgotten before).
    The one numbering: the stores' forgetting and `muldvarp export` without
    channel ids both take it, so an export after the forgetting is the same
    as one stripped before it (bots/export.py)."""
    ids: set[str] = set()
    _ids(snapshot, ids)
    _ids(initial, ids)
    for entry in entries:
        if isinstance(entry, dict) and isinstance(entry.get("as"), str):
            ids.add(entry["as"])
    return numbering(ids)


def numbering(ids: Iterable[str]) -> dict[str, str]:
    """`anon:1`, `anon:2`, ... for `ids` in their sorted order (so whatever
    the rules order by id plays out the same), or {} when none is a channel's."""
    ids = set(ids)
    if not any(i.startswith(CHANNELS) for i in ids):
        return {}
    width = len(str(len(ids)))
    return {old: f"{ANON}{i:0{width}d}" for i, old in enumerate(sorted(ids), 1)}


def contacts(new: dict[str, str]) -> list[str]:
    """The channel ids among a game's old ids (`neutral`'s keys): whose
    records elsewhere (the SMS numbers) go with the game's."""
    return sorted(old for old in new if old.startswith(CHANNELS))


def swap(value: Any, new: dict[str, str]) -> Any:
    """`value` with every string (and key) that is an old id replaced; a
    game's `setup` (the fixed deal as canonical JSON text) inside too."""
    if isinstance(value, str):
        return new.get(value, value)
    if isinstance(value, (list, tuple)):
        return [swap(v, new) for v in value]
    if isinstance(value, dict):
        out = {new.get(k, k): swap(v, new) for k, v in value.items()}
        setup = value.get("setup")
        if "@" in value and isinstance(setup, str) and setup.startswith("{"):
            deal = swap(json.loads(setup), new)
            out["setup"] = json.dumps(deal, sort_keys=True, separators=(",", ":"))
        return out
    return value


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def forget_texts(
    snapshot: str, initial: str, entries: Sequence[str]
) -> tuple[str, str, list[str]] | None:
    """The game's stored texts without its contacts; None when there is
    nothing to forget."""
    snap, init = json.loads(snapshot), json.loads(initial)
    log = [json.loads(e) for e in entries]
    new = neutral(snap, init, log)
    if not new:
        return None
    return _dump(swap(snap, new)), _dump(swap(init, new)), [_dump(swap(e, new)) for e in log]


def channel_ids(snapshot: str, initial: str, entries: Sequence[str]) -> list[str]:
    """The channel ids a game's stored texts still hold ([] once forgotten)."""
    return contacts(
        neutral(json.loads(snapshot), json.loads(initial), [json.loads(e) for e in entries])
    )
