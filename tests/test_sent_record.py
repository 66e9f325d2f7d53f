"""One record of what each recipient was last delivered (adapters/sent.py):
Telegram's open prompts and the SMS sheets are parts of one game attribute,
neither channel's change loses the other's, and a game in flight that still
holds the two old attributes is read from them (moved in once)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adapters import sent
from adapters.sms.renderer import ANSWERED, SentSheets
from adapters.store.sqlite_store import SqliteStore
from adapters.telegram.record import Open, Records, parse_record
from service.games import GameService
from tests.store_helpers import FakeClock, run

pytestmark = [pytest.mark.telegram, pytest.mark.sms]


async def _game(tmp_path: Path) -> tuple[SqliteStore, str]:
    clock = FakeClock()
    store = SqliteStore(str(tmp_path / "g.sqlite3"), clock=clock, synchronous="OFF")
    made = await GameService(store, clock=clock).create_game("station", "tg:1", code=False)
    return store, made.game.id


def test_the_two_channels_share_one_record_and_keep_each_others_part(tmp_path: Path) -> None:
    async def go() -> None:
        store, game_id = await _game(tmp_path)
        sheets, records = SentSheets(store), Records(store)
        await sheets.record(game_id, "sms:1", key="k1")

        def ask(version: int, entries: Open) -> int:
            entries["tg:2"] = [3, 2, 0, "q", "t", 0]
            return 7

        assert await records.change(game_id, ask)
        await sheets.record(game_id, "sms:1", closed=ANSWERED)
        raw = await store.get_attr(game_id, sent.ATTR)
        doc = json.loads(raw or "{}")
        assert set(doc) == {"tg", "sms"}
        assert parse_record(raw) == (7, {"tg:2": [3, 2, 0, "q", "t", 0]})
        assert await SentSheets(store).last(game_id, "sms:1") == (None, ANSWERED)
        assert await store.get_attr(game_id, "tg:open") is None
        assert await store.get_attr(game_id, "sms:sheets") is None
        await store.close()

    run(go())


def test_a_game_in_flight_is_read_from_the_attributes_the_record_replaced(
    tmp_path: Path,
) -> None:
    async def go() -> None:
        store, game_id = await _game(tmp_path)
        tg = {"v": 5, "p": {"tg:2": [4, 2, 99, "q", "t", 0]}}
        await store.set_attr(game_id, "tg:open", json.dumps(tg))
        await store.set_attr(game_id, "sms:sheets", json.dumps({"k": {"sms:1": "k4"}}))
        assert await SentSheets(store).last(game_id, "sms:1") == ("k4", None)
        assert await Records(store).read(game_id) == (5, {"tg:2": [4, 2, 99, "q", "t", 0]})
        # moved in once: the record holds both parts, and changes go there
        await SentSheets(store).record(game_id, "sms:1", key="k5")
        raw = await store.get_attr(game_id, sent.ATTR)
        assert parse_record(raw)[0] == 5
        assert await SentSheets(store).key(game_id, "sms:1") == "k5"
        await store.close()

    run(go())
