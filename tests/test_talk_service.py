"""The talk commit itself (service/talk.py, issue #33) on both stores, with
two workers: two game services on one store relay players' lines at once,
each inbound key delivered to both (a redelivery racing its first copy).
Each line is written once per recipient, the flood counters lose no line to
the race, and the talk record holds no text."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from gameflow.core import actions as A
from gameflow.core.state import Game
from service import talk
from service.games import GameService
from service.outbox import OutboxMessage
from service.ports import GameStore
from tests.campaign_helpers import oslo
from tests.store_helpers import FakeClock, redis_url_or_fail, run, run_then_drop, unique_prefix

PLAYERS = [f"p{i}" for i in range(7)]


class Recorder(talk.Talker):
    """A channel that writes one outbox entry per recipient (the shape of
    the real talkers', adapters/*/talk.py)."""

    channel = "sms"

    def to(
        self, game: Game, player: str, text: str, key: str, private: bool
    ) -> list[OutboxMessage]:
        return [OutboxMessage("sms", key, {"player": player, "body": text})]


async def seated(service: GameService, options: dict[str, Any] | None = None) -> str:
    """A Traitors campaign of PLAYERS, started, talking through `service`
    (with a `Recorder`); its id."""
    talk.add_talker(service.talkers, Recorder())
    options = {
        "pacing": "campaign",
        "timezone": "Europe/Oslo",
        "quiet_hours": "",
        **(options or {}),
    }
    created = await service.create_game("traitors", "host", seed="talk", options=options)
    game_id = created.game.id
    for p in PLAYERS:
        assert (await service.submit(game_id, A.Join(p, None, p.upper()))).accepted
    assert (await service.submit(game_id, A.Start("host"))).accepted
    return game_id


async def scenario(store: GameStore) -> None:
    clock = FakeClock(oslo(15, 12))
    workers = [GameService(store, clock=clock) for _ in range(2)]
    talk.add_talker(workers[1].talkers, Recorder())
    one = workers[0]
    game_id = await seated(one)

    # Every player says three lines; both workers get every one of them.
    said: list[Any] = []
    for n in range(3):
        calls = [
            w.talk(game_id, p, f"{p} says {n}", key=f"sms:{p}:{n}")
            for p in PLAYERS
            for w in workers
        ]
        said += await asyncio.gather(*calls)
    statuses = Counter(s.status for s in said)
    assert statuses == {talk.SENT: 21, talk.DUPLICATE: 21}, statuses

    entries = await store.take("sms", game_id, "reader", count=1000)
    got = Counter((e.payload["player"], e.payload["body"]) for e in entries)
    want = Counter(
        (q, f"{p.upper()}: {p} says {n}")
        for n in range(3)
        for p in PLAYERS
        for q in PLAYERS
        if q != p
    )
    assert got == want

    raw = await store.get_attr(game_id, talk.ATTR)
    assert raw is not None and "says" not in raw  # keys and counts, never the text
    # The race lost no count: two more lines each are allowed, the third warns.
    for p in PLAYERS[:2]:
        for n in range(3, 5):
            assert (await one.talk(game_id, p, "more", key=f"sms:{p}:{n}")).status == talk.SENT
        warned = await workers[1].talk(game_id, p, "too much", key=f"sms:{p}:9")
        assert warned.status == talk.REFUSED and warned.reply is not None
        assert warned.reply.msgid == talk.WARNING


def test_two_workers_relay_each_line_once_sqlite(tmp_path: Path) -> None:
    from adapters.store.sqlite_store import SqliteStore

    async def main() -> None:
        store = SqliteStore(str(tmp_path / "talk.sqlite3"))
        try:
            await scenario(store)
        finally:
            await store.close()

    run(main())


@pytest.mark.store
def test_two_workers_relay_each_line_once_redis() -> None:
    from adapters.store.redis_store import RedisStore

    url, prefix = redis_url_or_fail(), unique_prefix()

    async def main() -> None:
        store = RedisStore.from_url(url, prefix=prefix)
        try:
            await scenario(store)
        finally:
            await store.close()

    run_then_drop(main(), url, prefix)
