"""The outbox's ready hint on a real Redis Cluster (issue #20; marker `cluster`).

On a Cluster the hint (`outbox:CH`, another slot than the game's) is bumped
outside the commit's script, before and after it (adapters/store/redis_outbox.py).
Checked here, without the backstop scan:

- a worker killed between its commit's script and the bump after it (the
  pipeline after the commit raises, as the SIGKILL would cut it) leaves the
  game flagged: a delivery consumer finds it through `outbox_ready()`, also
  when another consumer's take found the stream empty between the bump before
  and the script;
- two consumers taking the same game at once, with a commit landing between
  their drops of the hint, cannot drop the new commit's hint (with counter
  scores the second drop compared equal to the recreated hint and lost it);
- a refused commit undoes its own bump before and nothing else; a bump before
  a commit that never lands is dropped once its grace is over;
- the delivery loop scans on its first pass, and retries a failed scan soon.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import pytest

from adapters.outbox_loop import OutboxLoop
from adapters.store.redis_store import RedisStore
from gameflow.core.state import Game
from service.outbox import OutboxEntry, OutboxMessage
from service.ports import Status
from tests.store_helpers import cluster_url_or_fail, drop_prefix, lobby, run, unique_prefix

pytestmark = pytest.mark.cluster

TG = "telegram"


class Killed(Exception):
    """The worker died here (its later round trips never happen)."""


@asynccontextmanager
async def stores(n: int = 2) -> AsyncIterator[list[RedisStore]]:
    """`n` stores (workers) on the tests' Cluster under one fresh prefix."""
    url, prefix = cluster_url_or_fail(), unique_prefix()
    opened = [RedisStore.from_url(url, prefix=prefix) for _ in range(n)]
    try:
        assert all(s.cluster for s in opened)
        yield opened
    finally:
        for s in opened:
            await s.close()
        await drop_prefix(url, prefix)


def msg(key: str) -> OutboxMessage:
    return OutboxMessage(TG, key, {"to": "p1", "text": f"text of {key}"})


async def commit(store: RedisStore, game: Game, outbox: Sequence[OutboxMessage]) -> Game:
    new = game._replace(version=game.version + 1)
    res = await store.commit(game.id, game.version, new, {"v": new.version}, outbox=outbox)
    assert res.status is Status.OK, res
    return new


def killed_after_the_commit(store: RedisStore) -> None:
    """The next commit's script lands, then its worker dies: the pipeline after
    it (binds, the hints after) raises instead of running."""
    real = store.flag_ready

    def flag_ready(
        pipe: Any, game_id: str, channels: Sequence[str], *, before: bool = False
    ) -> None:
        if not before:
            store.flag_ready = real  # type: ignore[method-assign]
            raise Killed
        real(pipe, game_id, channels, before=before)

    store.flag_ready = flag_ready  # type: ignore[method-assign]


async def delivered(store: RedisStore, game_id: str, consumer: str) -> list[str]:
    """What a consumer finds through the hint alone (no scan), taken and acked."""
    keys: list[str] = []
    assert await store.outbox_ready(TG) == [game_id]
    while batch := await store.take(TG, game_id, consumer):
        for e in batch:
            assert await store.ack(TG, game_id, e.key)
            keys.append(e.key)
    return keys


def test_a_worker_killed_between_its_commit_and_the_hint_leaves_the_game_flagged() -> None:
    async def go() -> None:
        async with stores() as (worker, consumer):
            game = lobby(3)
            await worker.create(game)
            killed_after_the_commit(worker)
            with pytest.raises(Killed):
                await commit(worker, game, [msg("menu:1"), msg("menu:2")])
            assert (await worker.load(game.id)) is not None
            # A commit refused then (a stale version) undoes only its own bump before.
            late = await worker.commit(game.id, game.version, game, {}, outbox=[msg("x")])
            assert late.status is Status.CONFLICT
            assert await delivered(consumer, game.id, "c") == ["menu:1", "menu:2"]
            # The bump before is young: kept by an empty take until its grace is over.
            assert await consumer.outbox_ready(TG) == [game.id]
            consumer.hint_grace = 0.0
            assert await consumer.take(TG, game.id, "c") == []
            assert await consumer.outbox_ready(TG) == []

    run(go())


def test_a_take_between_the_bump_before_and_the_commit_keeps_the_hint() -> None:
    """A consumer takes the game between the bump before the commit and its
    script (the stream still empty), then the worker dies after the script."""

    async def go() -> None:
        async with stores() as (worker, consumer):
            game = lobby(3)
            await worker.create(game)
            g1 = await commit(worker, game, [msg("mission")])
            assert await delivered(consumer, game.id, "c") == ["mission"]
            assert await consumer.outbox_ready(TG) == []
            real = worker._commit

            async def script(*, keys: list[str], args: list[Any]) -> Any:
                assert await consumer.outbox_ready(TG) == [game.id]  # the bump before
                assert await consumer.take(TG, game.id, "c") == []  # empty so far
                return await real(keys=keys, args=args)

            worker._commit = script  # type: ignore[assignment]
            killed_after_the_commit(worker)
            with pytest.raises(Killed):
                await commit(worker, g1, [msg("vote:1"), msg("vote:2")])
            assert await delivered(consumer, game.id, "c") == ["vote:1", "vote:2"]

    run(go())


def test_two_takes_at_once_cannot_drop_a_later_commits_hint() -> None:
    """Consumer A finds the stream empty; before A drops the hint, consumer B
    finds it empty too and drops it, and a commit lands and flags the game
    again. A's compare-and-delete must see a changed hint (scores never
    repeat), or the commit's messages wait for the backstop scan."""

    async def go() -> None:
        async with stores(3) as (worker, a, b):
            game = lobby(3)
            await worker.create(game)
            g1 = await commit(worker, game, [msg("mission")])
            assert await delivered(a, game.id, "A") == ["mission"]
            # A hint over the delivered game (a repair's, say): the next takes find
            # the stream empty and drop it.
            async with worker.client.pipeline(transaction=False) as pipe:
                worker.flag_ready(pipe, game.id, [TG])
                await pipe.execute()
            assert await a.outbox_ready(TG) == [game.id]
            real = a._take
            raced = False

            async def take(*, keys: list[str], args: list[Any]) -> Any:
                nonlocal raced
                reply = await real(keys=keys, args=args)
                if reply[0] == "empty" and not raced:
                    raced = True
                    assert await b.take(TG, game.id, "B") == []  # B drops the hint
                    assert await b.outbox_ready(TG) == []
                    await commit(worker, g1, [msg("vote")])  # flagged again
                return reply

            a._take = take  # type: ignore[assignment]
            assert await a.take(TG, game.id, "A") == []
            assert raced
            a._take = real
            assert await delivered(a, game.id, "A") == ["vote"]

    run(go())


def test_a_bump_before_a_commit_that_never_lands_goes_after_its_grace() -> None:
    async def go() -> None:
        async with stores(2) as (worker, consumer):
            consumer.hint_grace = 0.3
            await worker.flag_before("g1", [TG])  # then the worker died
            assert await consumer.take(TG, "g1", "c") == []
            assert await consumer.outbox_ready(TG) == ["g1"]  # young: kept
            await asyncio.sleep(0.4)
            assert await consumer.take(TG, "g1", "c") == []
            assert await consumer.outbox_ready(TG) == []

    run(go())


class Recorder(OutboxLoop):
    channel = TG

    def __init__(self, store: Any, **options: Any) -> None:
        super().__init__(store, **options)
        self.got: list[str] = []

    async def deliver(self, game_id: str, batch: list[OutboxEntry]) -> None:
        for e in batch:
            await self.store.ack(self.channel, game_id, e.key)
            self.got.append(e.key)


async def first_delivered(loop: Recorder) -> list[str]:
    """Start `loop`, wait (5 s at most) until it delivered something, stop it:
    what it delivered."""
    loop.start()
    try:
        for _ in range(100):
            if loop.got:
                break
            await asyncio.sleep(0.05)
        return list(loop.got)
    finally:
        await loop.stop()


def test_the_loop_scans_at_its_start_and_soon_after_a_failed_scan() -> None:
    """A hint lost for good (deleted): a starting worker's loop scans on its
    first pass; a scan that fails is tried again after `scan_retry` seconds,
    not after a whole `scan_every`."""

    async def go() -> None:
        async with stores(1) as (store,):
            game = lobby(3)
            await store.create(game)
            g1 = await commit(store, game, [msg("a")])
            await store.client.delete(store._ready(TG))  # the hint lost
            loop = Recorder(store, poll=0.05, scan_every=60.0)
            assert await first_delivered(loop) == ["a"]

            await commit(store, g1, [msg("b")])
            await store.client.delete(store._ready(TG))
            real = store.outbox_ready
            scans: list[bool] = []

            async def outbox_ready(channel: str, *, scan: bool = False) -> list[str]:
                if scan:
                    scans.append(scan)
                    if len(scans) == 1:
                        raise ConnectionError("the store away for a moment")
                return await real(channel, scan=scan)

            store.outbox_ready = outbox_ready  # type: ignore[method-assign]
            loop = Recorder(store, poll=0.05, scan_every=60.0)
            loop.scan_retry = 0.3
            assert await first_delivered(loop) == ["b"]
            assert len(scans) == 2

    run(go())
