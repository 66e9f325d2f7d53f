"""The outbox's store side (service/outbox.py), on the embedded SQLite store, a
real Redis, and the Redis store as it runs on a Cluster (every script on one
slot): messages are written by the commit's own atomic step or not at all,
handed out once, in commit order, one batch per game and channel at a time,
claimed again from a consumer that was SIGKILLed holding them, acknowledged
with a result that outlives a restart, trimmed when acked, and gone with the
game."""

from __future__ import annotations

import asyncio
import json
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from gameflow.core import actions as A
from gameflow.core.engine import apply
from gameflow.core.state import Game
from service.outbox import OutboxMessage
from service.ports import Status
from tests.store_helpers import HOST, T0, lobby, ok, one_slot, run, store_fixture, stored

pytestmark = [pytest.mark.outbox, pytest.mark.store]

WORKER = Path(__file__).resolve().parent / "outbox_worker.py"
TG = "telegram"

make_store = store_fixture(("sqlite", "redis", "redis-cluster", "cluster"))


@asynccontextmanager
async def opened(make: Any, **kwargs: Any) -> Any:
    """The fixture's store; as on a Cluster, the outbox's scripts too must keep
    to one slot (the fixture guards the commit's)."""
    async with make(**kwargs) as store:
        if make.kind == "redis-cluster":  # (a real Cluster, "cluster", refuses by itself)
            for name in ("_append", "_take", "_renew", "_ack", "_expire_outbox", "_unflag"):
                setattr(store, name, one_slot(getattr(store, name)))
        yield store


def msg(key: str, to: str = "p1", channel: str = TG) -> OutboxMessage:
    return OutboxMessage(channel, key, {"to": to, "text": f"text of {key}", "æ": "đ"})


async def commit(
    store: Any, game: Game, outbox: Sequence[OutboxMessage], key: str | None = None
) -> Game:
    """Commit a next version of `game` with `outbox`; it must be OK."""
    new = game._replace(version=game.version + 1)
    res = await store.commit(game.id, game.version, new, {"v": new.version}, key, outbox=outbox)
    assert res.status is Status.OK, res
    return new


async def drain(store: Any, game_id: str, consumer: str, channel: str = TG) -> list[str]:
    """Take and ack everything there is, batch by batch: the keys in hand-out order."""
    keys: list[str] = []
    while batch := await store.take(channel, game_id, consumer):
        for e in batch:
            assert await store.ack(channel, game_id, e.key, {"id": e.key})
            keys.append(e.key)
    return keys


def test_messages_are_written_only_by_an_ok_commit(make_store: Any) -> None:
    async def go() -> None:
        async with opened(make_store) as store:
            game = await stored(store, 3)
            await store.create(game._replace(id="g2"))
            g1 = await commit(store, game, [msg("a"), msg("s1", channel="sms")], key="in:1")
            # Refused commits write nothing: a stale version, a duplicate input
            # (even at the right version), an unknown game.
            stale = await store.commit("g1", game.version, g1, {}, "in:2", outbox=[msg("x")])
            assert stale.status is Status.CONFLICT
            dup = await store.commit(
                "g1", g1.version, g1._replace(version=g1.version + 1), {}, "in:1",
                outbox=[msg("y")],
            )  # fmt: skip
            assert dup.status is Status.DUPLICATE
            missing = await store.commit("nope", 0, g1, {}, outbox=[msg("z")])
            assert missing.status is Status.MISSING
            g2 = game._replace(id="g2")
            other = await store.commit("g2", g2.version + 5, g2, {}, outbox=[msg("w")])
            assert other.status is Status.CONFLICT
            assert await store.outbox_ready(TG) == ["g1"]
            assert await store.outbox_ready(TG, scan=True) == ["g1"]
            assert await store.outbox_ready("sms") == ["g1"]
            assert await store.take(TG, "g2", "c1") == []
            assert await store.take(TG, "nope", "c1") == []
            taken = await store.take(TG, "g1", "c1")
            assert [(e.key, e.payload, e.attempts) for e in taken] == [("a", msg("a").payload, 1)]
            assert [e.key for e in await store.take("sms", "g1", "c1")] == ["s1"]
            for key in ("x", "y", "z"):
                assert await store.ack(TG, "g1", key) is False  # never written
            assert await store.append_outbox("nope", [msg("q")]) == 0
            assert await store.take(TG, "nope", "c1") == []
            with pytest.raises(ValueError):
                await store.commit("g1", g1.version, g1, {}, outbox=[msg("b", channel="Bad ch")])

    run(go())


def test_a_key_is_written_once(make_store: Any) -> None:
    async def go() -> None:
        async with opened(make_store) as store:
            game = await stored(store, 3)
            g1 = await commit(store, game, [msg("card:p1"), msg("card:p2"), msg("card:p1")])
            assert [e.key for e in await store.take(TG, "g1", "c1")] == ["card:p1", "card:p2"]
            assert await store.ack(TG, "g1", "card:p1", {"message_id": 7})
            # Computed again (a resumed prompt, a second scheduler): ignored,
            # delivered or not; a new key is written.
            await commit(store, g1, [msg("card:p1"), msg("card:p2")])
            assert await store.append_outbox("g1", [msg("card:p2"), msg("remind:1")]) == 1
            assert await store.ack(TG, "g1", "card:p2")
            assert [e.key for e in await store.take(TG, "g1", "c1")] == ["remind:1"]
            assert await store.delivered(TG, "g1", "card:p1") == {"message_id": 7}

    run(go())


def test_one_batch_at_a_time_in_commit_order(make_store: Any) -> None:
    async def go() -> None:
        async with opened(make_store) as store:
            game = await stored(store, 3)
            order = []
            for i in range(4):  # four commits, messages to three recipients
                batch = [msg(f"m{i}.{j}", to=f"p{j % 3}") for j in range(3)]
                game = await commit(store, game, batch)
                order += [m.key for m in batch]
            first = await store.take(TG, "g1", "A", count=5)
            assert [e.key for e in first] == order[:5]
            # While A holds any of its batch, nobody gets what follows, A neither:
            # m1.1 (for p1, after m0.1 and m1.0's) waits for A's acks.
            assert await store.take(TG, "g1", "B") == []
            assert await store.take(TG, "g1", "A") == []
            for e in first[:4]:
                assert await store.ack(TG, "g1", e.key)
            assert await store.take(TG, "g1", "B") == []
            assert await store.ack(TG, "g1", first[4].key)
            second = await store.take(TG, "g1", "B", count=5)
            assert [e.key for e in second] == order[5:10]
            for e in second:
                await store.ack(TG, "g1", e.key)
            game = await commit(store, game, [msg("late")])
            assert await drain(store, "g1", "A") == [*order[10:], "late"]
            assert await store.take(TG, "g1", "B") == []
            assert await store.outbox_ready(TG) == []

    run(go())


def test_two_consumers_get_every_message_exactly_once(make_store: Any) -> None:
    games, per_game = 6, 30

    async def go() -> None:
        async with opened(make_store) as setup:
            intended: dict[str, list[str]] = {}
            for g in range(games):
                game = lobby(3, game_id=f"g{g}")
                await setup.create(game)
                intended[game.id] = []
                for c in range(per_game // 3):  # three messages per commit
                    batch = [msg(f"{game.id}.{c}.{j}", to=f"p{j}") for j in range(3)]
                    game = await commit(setup, game, batch)
                    intended[game.id] += [m.key for m in batch]
        handed: list[tuple[str, str, str]] = []  # (consumer, game, key) as handed out
        out: dict[str, set[str]] = {g: set() for g in intended}  # taken, not yet acked
        rng = random.Random(7)

        async def consumer(name: str) -> None:
            async with opened(make_store) as store:  # a connection of its own
                idle, deadline = 0, time.monotonic() + 30
                while idle < 3:
                    assert time.monotonic() < deadline, "the games never ran dry"
                    ready = await store.outbox_ready(TG)
                    idle = 0 if ready else idle + 1
                    rng.shuffle(ready)
                    for game_id in ready:
                        batch = await store.take(TG, game_id, name, count=rng.randint(1, 7))
                        if batch:
                            assert not out[game_id], (name, game_id, out[game_id])
                            out[game_id] = {e.key for e in batch}
                        for e in batch:
                            assert e.attempts == 1
                            handed.append((name, game_id, e.key))
                            await asyncio.sleep(rng.uniform(0, 0.002))  # "sending"
                            out[game_id].discard(e.key)
                            assert await store.ack(TG, game_id, e.key, {"by": name})
                    await asyncio.sleep(0.005)

        await asyncio.gather(consumer("A"), consumer("B"))
        keys = [k for _, _, k in handed]
        assert len(keys) == len(set(keys)) == games * per_game  # each once, none lost
        for game_id, want in intended.items():
            assert [k for _, g, k in handed if g == game_id] == want  # commit order
        by = {name: sum(1 for n, _, _ in handed if n == name) for name in "AB"}
        assert min(by.values()) > 0, by  # both did deliver
        async with opened(make_store) as store:
            who = await store.delivered(TG, "g0", intended["g0"][0])
            assert who in ({"by": "A"}, {"by": "B"})
            assert await store.outbox_ready(TG, scan=True) == []

    run(go())


def spawn(make: Any, tmp_path: Path, **cfg: Any) -> subprocess.Popen[str]:
    config = {
        "kind": make.kind,
        "url": make.url,
        "prefix": make.prefix,
        "path": str(tmp_path / "games.sqlite3"),
        "game": "g1",
        "channel": TG,
        **cfg,
    }
    return subprocess.Popen(
        [sys.executable, str(WORKER), json.dumps(config)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_killed_consumers_batch_is_claimed_by_another(make_store: Any, tmp_path: Path) -> None:
    async def seed() -> list[str]:
        async with opened(make_store) as store:
            game = await stored(store, 5)
            keys = []
            for i in range(3):
                batch = [msg(f"card:{i}:p{j}", to=f"p{j}") for j in range(5)]
                game = await commit(store, game, batch)
                keys += [m.key for m in batch]
            return keys

    keys = run(seed())
    worker = spawn(make_store, tmp_path, consumer="doomed", count=8)
    try:
        assert worker.stdout is not None
        line = worker.stdout.readline()
        assert line, worker.stderr.read() if worker.stderr else ""
        assert json.loads(line)["taken"] == keys[:8]
        worker.send_signal(signal.SIGKILL)  # dies holding seven entries, unacked
        worker.communicate(timeout=10)
        killed_at = time.monotonic()
        assert worker.returncode == -signal.SIGKILL
    finally:
        if worker.poll() is None:
            worker.kill()
        worker.communicate(timeout=10)

    async def after() -> None:
        async with opened(make_store) as store:
            # Fresh: its holder may be alive (a slow send), nobody gets them yet.
            assert await store.take(TG, "g1", "heir", min_idle=1.5) == []
            await asyncio.sleep(max(0.0, killed_at + 1.6 - time.monotonic()))
            claimed = await store.take(TG, "g1", "heir", min_idle=1.5)
            assert [e.key for e in claimed] == keys[1:]  # the rest of its batch, then new ones
            assert [e.attempts for e in claimed] == [2] * 7 + [1] * 7
            assert await store.delivered(TG, "g1", keys[0]) == {"message_id": 1}
            assert await store.delivered(TG, "g1", keys[1]) is None
            assert await store.ack(TG, "g1", keys[0]) is False  # acked by the dead one
            for e in claimed:
                assert await store.ack(TG, "g1", e.key, {"message_id": 2})
            assert await store.take(TG, "g1", "heir", min_idle=0) == []

    run(after())


def test_acks_and_holdings_survive_a_restart(make_store: Any) -> None:
    async def go() -> None:
        async with opened(make_store) as store:
            game = await stored(store, 3)
            await commit(store, game, [msg("a"), msg("b"), msg("c")])
            taken = await store.take(TG, "g1", "old")
            assert await store.ack(TG, "g1", "a", {"message_id": 41, "chat": -100})
        async with opened(make_store) as store:  # the process restarted
            assert await store.delivered(TG, "g1", "a") == {"message_id": 41, "chat": -100}
            assert await store.delivered(TG, "g1", "b") is None
            assert await store.ack(TG, "g1", "a", {"message_id": 99}) is False
            assert await store.delivered(TG, "g1", "a") == {"message_id": 41, "chat": -100}
            assert await store.outbox_ready(TG) == ["g1"]
            again = await store.take(TG, "g1", "new", min_idle=0)
            assert [(e.key, e.attempts) for e in again] == [("b", 2), ("c", 2)]
            assert [e.key for e in taken] == ["a", "b", "c"]
            assert await store.ack(TG, "g1", "b")  # no result given: delivered as {}
            assert await store.delivered(TG, "g1", "b") == {}

    run(go())


def test_a_renewed_batch_is_not_claimed(make_store: Any) -> None:
    async def go() -> None:
        async with opened(make_store) as store:
            game = await stored(store, 3)
            await commit(store, game, [msg("a"), msg("b")])
            assert len(await store.take(TG, "g1", "slow", min_idle=1.0)) == 2
            await asyncio.sleep(0.6)
            assert await store.renew(TG, "g1", "slow") == 2  # waiting on a 429, alive
            assert await store.renew(TG, "g1", "other") == 0
            await asyncio.sleep(0.6)  # 1.2 s since the take, 0.6 since the renewal
            assert await store.take(TG, "g1", "eager", min_idle=1.0) == []
            await store.ack(TG, "g1", "a")
            await asyncio.sleep(0.5)
            got = await store.take(TG, "g1", "eager", min_idle=1.0)
            assert [(e.key, e.attempts) for e in got] == [("b", 2)]

    run(go())


def test_the_outbox_expires_with_its_game_and_acked_entries_are_trimmed(
    make_store: Any, tmp_path: Path
) -> None:
    async def go() -> None:
        async with opened(make_store, retention=0.6) as store:
            game = await stored(store, 3)
            await store.create(game._replace(id="g2"))
            g1 = await commit(store, game, [msg("a"), msg("b"), msg("s", channel="sms")])
            await commit(store, game._replace(id="g2"), [msg("keep")])
            await store.take(TG, "g1", "c1", count=1)
            await store.ack(TG, "g1", "a", {"message_id": 1})
            assert await undelivered_payloads(make_store, tmp_path, "g1") == 1  # "a" trimmed
            ended = ok(apply(g1, A.End(HOST), T0))
            res = await store.commit(
                "g1", g1.version, ended, {}, outbox=[msg("result", to="group")]
            )
            assert res.status is Status.OK
            # A finished game's messages are still delivered, until it expires.
            assert await store.append_outbox("g1", [msg("late"), msg("bye", channel="mail")]) == 2
            assert await store.outbox_ready(TG) == ["g1", "g2"]
            got = await store.take(TG, "g1", "c2", min_idle=0)
            assert [e.key for e in got] == ["b", "result", "late"]
            await asyncio.sleep(0.8)
            assert await store.take(TG, "g1", "c3", min_idle=0) == []
            assert await store.take("sms", "g1", "c3") == []
            assert await store.delivered(TG, "g1", "a") is None
            assert await store.outbox_ready(TG) == ["g2"]
            assert await store.append_outbox("g1", [msg("after")]) == 0
            if hasattr(store, "purge"):
                await store.purge()
            assert await undelivered_payloads(make_store, tmp_path, "g1") == 0
            assert await stored_outbox_keys(make_store, tmp_path, "g1") == 0
            assert await stored_outbox_keys(make_store, tmp_path, "g2") > 0
            assert [e.key for e in await store.take(TG, "g2", "c1")] == ["keep"]

    run(go())


async def undelivered_payloads(make: Any, tmp_path: Path, game_id: str) -> int:
    """Payloads the store still holds for a game's telegram outbox (raw)."""
    if make.kind == "sqlite":
        with sqlite3.connect(tmp_path / "games.sqlite3") as db:
            row = db.execute(
                "SELECT COUNT(*) FROM outbox WHERE game = ? AND channel = ? AND payload IS NOT NULL",
                (game_id, TG),
            ).fetchone()
        return int(row[0])
    from adapters.redis_url import async_client

    client = async_client(make.url)  # one Redis, or a RedisCluster
    try:
        return int(await client.xlen(f"{make.prefix}{{g:{game_id}}}:out:{TG}"))
    finally:
        await client.aclose()


async def stored_outbox_keys(make: Any, tmp_path: Path, game_id: str) -> int:
    """Rows (SQLite) or keys (Redis) of a game's outbox left in the store (raw)."""
    if make.kind == "sqlite":
        with sqlite3.connect(tmp_path / "games.sqlite3") as db:
            row = db.execute("SELECT COUNT(*) FROM outbox WHERE game = ?", (game_id,)).fetchone()
        return int(row[0])
    from adapters.redis_url import async_client

    client = async_client(make.url)  # one Redis, or a RedisCluster
    try:
        found = [k async for k in client.scan_iter(match=f"{make.prefix}{{g:{game_id}}}:out*")]
        return len(found)
    finally:
        await client.aclose()


def test_a_lost_ready_hint_is_repaired(make_store: Any) -> None:
    """On a Cluster the hint goes after the commit's script: a crash between
    them loses it. The periodic scan, and finishing the game, flag it again."""

    async def go() -> None:
        async with opened(make_store) as store:
            game = await stored(store, 3)
            await store.create(game._replace(id="g2"))
            g1 = await commit(store, game, [msg("a")])
            await commit(store, game._replace(id="g2"), [msg("b")])
            assert await store.outbox_ready(TG) == ["g1", "g2"]
            if make_store.kind == "sqlite":
                return  # exact by a query: nothing to lose
            from adapters.redis_url import async_client

            client = async_client(make_store.url)
            try:
                await client.delete(f"{make_store.prefix}outbox:{TG}")  # the crash
                assert await store.outbox_ready(TG) == []
                assert await store.outbox_ready(TG, scan=True) == ["g1", "g2"]
                await client.delete(f"{make_store.prefix}outbox:{TG}")
                ended = ok(apply(g1, A.End(HOST), T0))  # g1 ends: leaves the active set
                res = await store.commit("g1", g1.version, ended, {})
                assert res.status is Status.OK
                assert await store.active_games() == ["g2"]
                assert await store.outbox_ready(TG) == ["g1"]  # flagged by finish
            finally:
                await client.aclose()
            # A take that finds nothing drops the hint.
            assert [e.key for e in await store.take(TG, "g1", "c")] == ["a"]
            await store.ack(TG, "g1", "a")
            assert await store.take(TG, "g1", "c") == []
            assert await store.outbox_ready(TG) == []
            assert await store.outbox_ready(TG, scan=True) == ["g2"]  # lost with the second crash

    run(go())


def test_the_ack_that_empties_the_outbox_drops_its_ready_hint(make_store: Any) -> None:
    """Issue #20: on one Redis (and SQLite, exact by a query) a game whose last
    entry is acked is no longer ready, so the delivery spends no take to learn
    it is empty; an ack that leaves entries keeps it ready, and the next commit
    flags it again. On a Cluster the hint is in another slot: it stays until a
    take finds the stream empty."""

    async def go() -> None:
        async with opened(make_store) as store:
            game = await stored(store, 3)
            game = await commit(store, game, [msg("a"), msg("b")])
            assert [e.key for e in await store.take(TG, game.id, "c")] == ["a", "b"]
            assert await store.ack(TG, game.id, "a")
            assert await store.outbox_ready(TG) == [game.id]  # "b" is still out
            assert await store.ack(TG, game.id, "b")
            if store_is_cluster(store):
                assert await store.outbox_ready(TG) == [game.id]
                assert await store.take(TG, game.id, "c") == []
            assert await store.outbox_ready(TG) == []
            await commit(store, game, [msg("c")])
            assert await store.outbox_ready(TG) == [game.id]
            assert await drain(store, game.id, "c") == ["c"]
            assert await store.outbox_ready(TG) == []

    run(go())


def store_is_cluster(store: Any) -> bool:
    return bool(getattr(store, "cluster", False))
