"""Kill tests for SMS output (issue #19 item 3, marker `outbox`): a worker
SIGKILLed while hundreds of texts are queued loses none of them.

Ten Station games of seven SMS players are started at once and their first
phases run out, through the real game service with the SMS composer: every
text those commits cause is written with them into the store's outbox (no
worker is running yet). Then delivery workers (tests/sms_outbox_worker.py:
the adapter's delivery loop with the real twilio client) send them to the
fake Twilio on loopback, paced at `RATE` a second so that the kill falls in
the middle. One worker is SIGKILLed a third of the way through; another
(SQLite: a restart on the same files; Redis: the second of two that ran
together) claims what it held once `MIN_IDLE` has passed.

Measured at the fake Twilio, against what the commits intended (the outbox
messages the service returned, per phone, in order):
- every intended text arrived, in its player's order;
- none arrived more than once more (a kill between Twilio's accept and the
  ack resends that text), and the duplicates are counted and printed;
- every text's ack holds the SID the fake gave it;
- a player who texted STOP after the commit got nothing (checked at delivery);
- on Redis, the two workers together keep to the sender's one rate (its
  bucket is shared in Redis), counted at the fake.

The workers send as `muldvarp serve` does: each attempt on a send loop of
its own (adapters/sms/outbound.py), off the loop that takes the batches.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from adapters.sms.directory import Directory, SqliteDirectory, player_id
from adapters.sms.renderer import CHANNEL, SmsRenderer
from adapters.sms.settings import SmsSettings
from gameflow.core import actions as A
from service.games import GameService
from service.outbox import OutboxMessage
from service.ports import GameStore
from tests.fake_twilio import FakeTwilio
from tests.rate_helpers import most_in_window
from tests.sms_helpers import SmsOutboxWorker, worker_settings
from tests.store_helpers import (
    FakeClock,
    redis_url_or_fail,
    run,
    run_then_drop,
    unique_prefix,
)
from tests.worker_process import about, wait_for

pytestmark = [pytest.mark.outbox, pytest.mark.sms]

GAMES, PLAYERS = 10, 7
RATE = 120.0  # texts a second (per sender): a few seconds of sending, so the kill lands mid-way
JITTER = 0.1  # seconds of arrival jitter allowed across processes
MIN_IDLE = 2.0  # seconds before a dead worker's batch is claimed
ID_KEY = "kill-test-id-key"
NAMES = ["Kari", "Ola", "Åse", "Per", "Liv", "Nils", "Mari"]


@dataclass
class Table:
    """The games and what their commits intended: (game, key, phone, body)."""

    intended: list[tuple[str, str, str, str]] = field(default_factory=list)
    stopped: set[str] = field(default_factory=set)


async def set_up(store: GameStore, directory: Directory, settings: SmsSettings) -> Table:
    """Ten games started at once, their first two phases run out; the texts
    stay in the outbox (nothing delivers here)."""
    clock = FakeClock(time.time())
    service = GameService(store, composers=[SmsRenderer(settings)], clock=clock)
    table = Table()
    phones: dict[str, str] = {}
    games: list[str] = []
    for g in range(GAMES):
        created = await service.create_game("station", f"tg:host{g}", lang="nb", seed=f"kill-{g}")
        games.append(created.game.id)
        for i, name in enumerate(NAMES[:PLAYERS]):
            phone = f"+479{g:02d}100{i:02d}"
            pid = player_id(phone, ID_KEY)
            phones[pid] = phone
            await directory.set_phone(pid, phone, created.game.id)
            out = await service.submit(created.game.id, A.Join(pid, None, name))
            assert out.accepted
    outcomes = await asyncio.gather(
        *(service.submit(g, A.Start(f"tg:host{i}")) for i, g in enumerate(games))
    )
    messages: list[tuple[str, OutboxMessage]] = [
        (o.game.id, m) for o in outcomes for m in o.messages
    ]
    for _ in range(2):
        clock.tick(1000)
        for g in games:
            game = await service.load(g)
            out = await service.submit(g, A.Deadline(None, game.phase.seq))
            assert out.accepted
            messages += [(g, m) for m in out.messages]
    # One player per game says STOP after the commits: delivery must skip them.
    for g in range(GAMES):
        phone = f"+479{g:02d}10006"
        await directory.opt_out(phone, clock())
        table.stopped.add(phone)
    for game_id, m in messages:
        assert m.channel == CHANNEL
        if "body" in m.payload:
            phone = phones[m.payload["player"]]
            table.intended.append((game_id, m.key, phone, m.payload["body"]))
    return table


async def check(fake: FakeTwilio, table: Table, store: GameStore, label: str, kills: int) -> None:
    """Every intended text arrived, in order per phone, at most once more."""
    intended = [(phone, body) for _, _, phone, body in table.intended if phone not in table.stopped]
    want = Counter(intended)
    got = Counter((m["to"], m["body"]) for m in fake.messages)
    missing = want - got
    extra = got - want
    assert not missing, f"{sum(missing.values())} intended texts never arrived: {list(missing)[:3]}"
    assert set(extra) <= set(want), "a text nobody intended arrived"
    assert all(got[x] <= want[x] + 1 for x in want), "a text arrived twice more"
    assert not any(m["to"] in table.stopped for m in fake.messages), "a STOP'd player was texted"
    # Each phone's texts in the order the commits made them (a resend after
    # the kill comes later than its first copy: skip copies beyond the count).
    per: dict[str, list[str]] = {}
    for phone, body in intended:
        per.setdefault(phone, []).append(body)
    seen: Counter[tuple[str, str]] = Counter()
    arrived: dict[str, list[str]] = {}
    for m in fake.messages:
        item = (m["to"], m["body"])
        seen[item] += 1
        if seen[item] <= want[item]:
            arrived.setdefault(m["to"], []).append(m["body"])
    assert arrived == per, "a player's texts arrived out of order"
    # The acks hold the SIDs the fake gave.
    sids = {m["sid"] for m in fake.messages}
    results = await _results(store, table)
    assert all(r is not None and r.get("sid") in sids for r in results["sent"]), "ack without SID"
    assert all(r is not None and r.get("skipped") for r in results["stopped"])
    duplicated = sum(extra.values())
    print(
        f"\n{label}: {len(intended)} texts intended ({len(table.stopped)} players STOP'd, "
        f"{len(table.intended) - len(intended)} texts skipped), {sum(want.values())} delivered, "
        f"{duplicated} duplicated, {kills} worker(s) killed, {len(fake.messages)} accepted by Twilio"
    )
    # A game's batch is sent text by text: a kill can catch one text per game
    # between Twilio's accept and its ack.
    assert duplicated <= kills * GAMES


async def _results(store: GameStore, table: Table) -> dict[str, list[dict[str, Any] | None]]:
    out: dict[str, list[dict[str, Any] | None]] = {"sent": [], "stopped": []}
    for game_id, key, phone, _ in table.intended:
        r = await store.delivered(CHANNEL, game_id, key)
        out["stopped" if phone in table.stopped else "sent"].append(r)
    return out


async def empty(store: GameStore) -> bool:
    return not await store.outbox_ready(CHANNEL)


def test_a_killed_worker_loses_no_text_sqlite(tmp_path: Path, fake: FakeTwilio) -> None:
    """The embedded store: one worker, killed and started again on the same files."""
    from adapters.store.sqlite_store import SqliteStore

    path, records = str(tmp_path / "games.sqlite3"), str(tmp_path / "sms.sqlite3")
    doc = worker_settings(fake, id_key=ID_KEY, rate=RATE)

    async def main() -> None:
        store, directory = SqliteStore(path), SqliteDirectory(records)
        table = await set_up(store, directory, SmsSettings(**doc))
        await directory.close()
        total = len(table.intended)
        assert total >= 200, total
        cfg = {"kind": "sqlite", "path": path, "records": records, "settings": doc}
        first = SmsOutboxWorker(cfg, "first", min_idle=MIN_IDLE)
        try:
            await wait_for(
                lambda: len(fake.messages) >= total // 3,
                60,
                "a third of the texts",
                about([first], store, CHANNEL),
            )
            first.kill()
            at_kill = len(fake.messages)
            assert at_kill < total - 30, "the worker finished before the kill"
            second = SmsOutboxWorker(cfg, "second", min_idle=MIN_IDLE)
            try:
                await wait_for(
                    lambda: empty(store),
                    120,
                    "the outbox to empty",
                    about([first, second], store, CHANNEL),
                )
            finally:
                second.stop()
        finally:
            first.stop()
        print(f"\nSQLite: killed after {at_kill} of {total} texts")
        await check(fake, table, store, "SQLite, one worker killed and restarted", kills=1)
        await store.close()

    run(main())


def test_a_killed_worker_loses_no_text_redis(fake: FakeTwilio) -> None:
    """Redis: two workers together, one killed; the other claims what it held."""
    from adapters.sms.redis_directory import RedisDirectory
    from adapters.store.redis_store import RedisStore

    url, prefix = redis_url_or_fail(), unique_prefix()
    doc = worker_settings(fake, id_key=ID_KEY, rate=RATE)

    async def main() -> None:
        store = RedisStore.from_url(url, prefix=prefix)
        directory = RedisDirectory.from_url(url, prefix=prefix)
        try:
            table = await set_up(store, directory, SmsSettings(**doc))
            total = len(table.intended)
            cfg = {"kind": "redis", "url": url, "prefix": prefix, "settings": doc}
            workers = [
                SmsOutboxWorker(cfg, "one", min_idle=MIN_IDLE),
                SmsOutboxWorker(cfg, "two", min_idle=MIN_IDLE),
            ]
            try:
                await wait_for(
                    lambda: len(fake.messages) >= total // 3,
                    60,
                    "a third of the texts",
                    about(workers, store, CHANNEL),
                )
                workers[0].kill()
                at_kill = len(fake.messages)
                assert at_kill < total - 30, "the workers finished before the kill"
                await wait_for(
                    lambda: empty(store), 120, "the outbox to empty", about(workers, store, CHANNEL)
                )
            finally:
                for w in workers:
                    w.stop()
            print(f"\nRedis: one of two workers killed after {at_kill} of {total} texts")
            await check(fake, table, store, "Redis, two workers, one killed", kills=1)
            # The sender's rate is one bucket in Redis: both workers together
            # keep to it, measured where Twilio would count, at the fake.
            times = [m["received"] for m in fake.messages]
            peaks = {w: most_in_window(times, w) for w in (1.0, 3.0)}
            print(
                f"Redis: texts at the fake, most in 1 s {peaks[1.0]}, in 3 s {peaks[3.0]}"
                f" (the sender's rate: {RATE:.0f}/s for both workers)"
            )
            assert most_in_window(times, 1.0 - JITTER) <= RATE
        finally:
            await directory.close()
            await store.close()

    run_then_drop(main(), url, prefix)
