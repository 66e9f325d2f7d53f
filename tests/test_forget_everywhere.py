"""After `CONTACTS_RETENTION_HOURS` an ended game's contacts are nowhere in
storage: every key under the Redis prefix (SCAN), every table of the SQLite
files (the games' and the SMS adapter's) is read whole, and no phone number,
Telegram chat id or player id of the ended game is left (the outbox's
entries and receipts, the SMS numbers and texts, the channels' attributes
included), only its number's STOP, which is the carrier's. A running game's
contacts are untouched, and the ended game still exports (the same script as
an export without channel ids taken before) and replays (issue #31 item 2)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from adapters.sms.directory import SqliteDirectory, player_id
from bots.export import export_game
from gameflow.core import actions as A
from gameflow.core.engine import apply, new_game
from gameflow.replay import run as replay
from service.games import GameService, log_entry
from service.outbox import OutboxMessage
from tests.store_helpers import T0, ok, one_slot, run, store_fixture

pytestmark = pytest.mark.store

make_store = store_fixture(("sqlite", "redis", "redis-cluster", "cluster"))
KEY = "sms-id-key"


def people(n: int) -> dict[str, str]:
    """Player id -> the contact it stands for (a chat id, a phone number)."""
    phones = [f"+47987{n}{i:04d}" for i in range(3)]
    out = {f"tg:{n}7301{i}": f"{n}7301{i}" for i in range(3)}
    out.update({player_id(p, KEY): p for p in phones})
    return out


ENDED, RUNNING = people(5), people(6)
GROUP = {"g1": "-1005550001", "g2": "-1006660001"}


async def play(store: Any, directory: Any, gid: str, who: dict[str, str], *, end: bool) -> None:
    host = next(iter(who))
    game = new_game("station", gid, host, "seed7", lang="en")
    assert await store.create(game)
    steps: list[A.Action] = [A.Join(p, None, f"N{i}") for i, p in enumerate(who)]
    steps.append(A.Start(host))
    if end:
        steps.append(A.End(host))
    for i, action in enumerate(steps):
        new = ok(apply(game, action, T0 + i))
        out = [
            OutboxMessage("telegram", f"{i}:{p}", {"chat_id": int(c), "text": "hi"})
            for p, c in who.items()
            if p.startswith("tg:")
        ] + [
            OutboxMessage("sms", f"{i}:{p}", {"to": p, "phone": c})
            for p, c in who.items()
            if p.startswith("sms:")
        ]
        binds = ((action.by, action.by),) if isinstance(action, A.Join) and action.by else ()
        if end and action == steps[-1]:
            # a receipt for each channel before the end, the rest left undelivered
            for channel in ("telegram", "sms"):
                for entry in await store.take(channel, gid, "w1", count=2):
                    await store.ack(channel, gid, entry.key, {"message_id": 9, **entry.payload})
        entry = log_entry(game, action, T0 + i, f"tg:{gid}{i}")
        done = await store.commit(
            gid, game.version, new, entry, f"tg:{gid}{i}", binds=binds, outbox=out
        )
        assert done.status.value == "ok"
        game = new
    await store.set_attr(gid, "tg:group", GROUP[gid])
    for n, (p, phone) in enumerate((p, c) for p, c in who.items() if p.startswith("sms:")):
        await directory.set_phone(p, phone, gid)
        await directory.store_inbound(f"SM{gid}in{n}", phone, f"JOIN {gid}", T0)
        await directory.record_sent(f"SM{gid}out{n}", phone, p, gid, True, "sent", T0)


async def redis_text(url: str, prefix: str) -> tuple[str, dict[str, str]]:
    """Every key under `prefix`, with all it holds, as one text; and the STOPs."""
    from adapters.redis_url import async_client

    client = async_client(url)
    parts, stops = [], {}
    try:
        async for raw in client.scan_iter(match=prefix + "*", count=500):
            key = raw.decode() if isinstance(raw, bytes) else str(raw)
            kind = await client.type(key)
            kind = kind.decode() if isinstance(kind, bytes) else str(kind)
            read: dict[str, Any] = {
                "string": client.get,
                "hash": client.hgetall,
                "list": lambda k: client.lrange(k, 0, -1),
                "set": client.smembers,
                "zset": lambda k: client.zrange(k, 0, -1, withscores=True),
                "stream": client.xrange,
            }
            held = repr(await read[kind](key))
            if key.startswith(prefix + "sms:stop:"):
                stops[key] = held
            else:
                parts.append(f"{key} {held}")
    finally:
        await client.aclose()
    return "\n".join(parts), stops


def sqlite_text(*paths: Path) -> tuple[str, dict[str, str]]:
    """Every row of every table of the files, as one text; and the STOPs."""
    parts, stops = [], {}
    for path in paths:
        db = sqlite3.connect(path)
        try:
            tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
            for table in tables:
                for row in db.execute(f"SELECT * FROM {table}"):
                    if table == "optout":
                        stops[str(row[0])] = repr(row)
                    else:
                        parts.append(f"{table} {row!r}")
        finally:
            db.close()
    return "\n".join(parts), stops


def found(text: str, who: dict[str, str], group: str) -> list[str]:
    return [c for c in (*who, *who.values(), group) if c in text]


def test_no_contact_of_an_ended_game_is_left_anywhere(make_store: Any, tmp_path: Path) -> None:
    from adapters.sms.redis_directory import RedisDirectory

    async def go() -> None:
        async with make_store() as store:
            if make_store.kind == "redis-cluster":  # the forgetting keeps to the game's slot
                store._forget = one_slot(store._forget)
            directory: Any
            if make_store.url:
                directory = RedisDirectory.from_url(make_store.url, prefix=make_store.prefix)
            else:
                directory = SqliteDirectory(str(tmp_path / "sms.sqlite3"))
            try:
                await play(store, directory, "g1", ENDED, end=True)
                await play(store, directory, "g2", RUNNING, end=False)
                stopped = next(c for c in ENDED.values() if c.startswith("+"))
                assert await directory.opt_out(stopped, T0)

                async def scan() -> tuple[str, dict[str, str]]:
                    if make_store.url:
                        return await redis_text(make_store.url, make_store.prefix)
                    return sqlite_text(tmp_path / "games.sqlite3", tmp_path / "sms.sqlite3")

                text, _ = await scan()
                assert len(found(text, ENDED, GROUP["g1"])) == 2 * len(ENDED) + 1
                stripped = await export_game(store, "g1", channel_ids=False)

                service = GameService(store)
                done = await service.forget_contacts(0.0, directory.forget_game)
                assert done == ["g1"]

                text, stops = await scan()
                assert found(text, ENDED, GROUP["g1"]) == []
                assert [s for s in stops if stopped in s] and len(stops) == 1  # the STOP stays
                assert found(text, RUNNING, GROUP["g2"]) == [
                    *RUNNING,
                    *RUNNING.values(),
                    GROUP["g2"],
                ]
                for p, phone in RUNNING.items():
                    if p.startswith("sms:"):
                        assert await directory.phone_of(p) == phone
                # the ended game still replays, and exports as it did stripped
                await service.verify("g1")
                after = await export_game(store, "g1")
                assert after == stripped == await export_game(store, "g1", channel_ids=False)
                assert json.dumps(after) == json.dumps(stripped)
                assert replay(after)[1] == replay(stripped)[1]
                assert await service.forget_contacts(0.0, directory.forget_game) == []
            finally:
                await directory.close()

    run(go())
