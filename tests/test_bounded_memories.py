"""A long-running worker's memories of what it last read or wrote are bounded
and forget the oldest first (cachetools' LRU): the SMS directory's number
guesses, the SMS sheet records, Telegram's open-prompt records and the
delivery loop's quiet-hours calendars. Each is only a first try checked
against the store, so forgetting costs a round trip, never a wrong message;
what matters is that memory stays bounded and that the games still being
played are the ones kept (the earlier clear-when-full forgot them all at once)."""

from __future__ import annotations

from typing import Any

import pytest
import redis.asyncio as aioredis

import adapters.outbox_loop as outbox_loop
import adapters.sms.redis_directory as redis_directory
import adapters.sms.sent_sheets as sent_sheets
import adapters.telegram.record as record
from adapters.outbox_loop import OutboxLoop
from adapters.sms.redis_directory import RedisDirectory
from adapters.sms.sent_sheets import SentSheets
from adapters.telegram.record import Records
from service.outbox import OutboxEntry
from tests.store_helpers import run

SIZE = 3


def kept(memory: Any, keys: list[str]) -> list[str]:
    return [k for k in keys if k in memory]


def test_the_sms_number_guesses_keep_the_latest_players(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(redis_directory, "PHONES_REMEMBERED", SIZE)
    directory = RedisDirectory(aioredis.Redis())  # never connects: only its memory is used
    players = [f"sms:{i}" for i in range(5)]
    for i, p in enumerate(players):
        directory._remember(p, f"+4790000{i:03d}")
    assert kept(directory._phones, players) == players[-SIZE:]
    directory._remember(players[-1], None)  # no number any more: forgotten at once
    assert kept(directory._phones, players) == players[-SIZE:-1]


def test_the_sms_sheet_records_keep_the_latest_games(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sent_sheets, "SEEN_CACHE", SIZE)
    sheets = SentSheets(None)
    games = [f"g{i}" for i in range(5)]
    for g in games:
        sheets._seen[g] = "{}"
    sheets._seen[games[2]] = "{}"  # written again: the most recent now
    sheets._seen["g5"] = "{}"
    assert kept(sheets._seen, [*games, "g5"]) == ["g2", "g4", "g5"]


def test_telegram_open_prompt_records_keep_the_latest_games(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(record, "RECORDS_REMEMBERED", SIZE)
    records = Records(Attrs())  # type: ignore[arg-type]
    games = [f"g{i}" for i in range(5)]

    async def main() -> None:
        for g in games:
            await records.read(g)

    run(main())
    assert kept(records._last, games) == games[-SIZE:]


class Attrs:
    """A store whose games have no open-prompt record yet."""

    async def get_attr(self, game_id: str, name: str) -> str | None:
        return None


class Games:
    """A store that knows running live games (never held) by id."""

    async def load(self, game_id: str) -> Any:
        return None


class Loop(OutboxLoop):
    channel = "sms"

    async def deliver(self, game_id: str, batch: list[OutboxEntry]) -> None:
        return None


def test_the_quiet_hours_memory_keeps_the_latest_games(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(outbox_loop, "QUIET_CACHE", SIZE)
    loop = Loop(Games())  # type: ignore[arg-type]

    async def main() -> None:
        for i in range(5):
            assert await loop._until(f"g{i}") is None

    run(main())
    assert kept(loop._quiet, [f"g{i}" for i in range(5)]) == ["g2", "g3", "g4"]
