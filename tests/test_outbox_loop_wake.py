"""When the delivery loop looks again (adapters/outbox_loop.py; issue #20).

A game's batch delivered, the loop looks for ready games again at once only
when there may be more: a commit came while the batch was out (the game was
found ready while active), or the batch was full. A lone batch costs no look
that finds nothing; the next commit's wake-up (or the poll) finds the next.
Checked on SQLite and one Redis with the poll set far away (30 s), so every
look here is one the loop chose to make.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from test_outbox_store import TG, commit, msg

from adapters.outbox_loop import OutboxLoop
from service.outbox import OutboxEntry
from tests.store_helpers import lobby, run, store_fixture, stored

pytestmark = pytest.mark.outbox

make_store = store_fixture(("sqlite", "redis"))


class Gate(OutboxLoop):
    """Acks what it is handed; the first batch waits for `release`."""

    channel = TG

    def __init__(self, store: Any, **options: Any) -> None:
        super().__init__(store, poll=30.0, scan_every=3600.0, **options)
        self.got: list[str] = []
        self.release = asyncio.Event()
        self.first = asyncio.Event()
        self.looks = 0
        looked = store.outbox_ready

        async def counted(channel: str, *, scan: bool = False) -> list[str]:
            self.looks += 1
            return list(await looked(channel, scan=scan))

        store.outbox_ready = counted

    async def deliver(self, game_id: str, batch: list[OutboxEntry]) -> None:
        if not self.first.is_set():
            self.first.set()
            await self.release.wait()
        for e in batch:
            await self.store.ack(self.channel, game_id, e.key)
            self.got.append(e.key)


async def until(check: Any, seconds: float = 5.0) -> None:
    for _ in range(int(seconds / 0.02)):
        if check():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("not in time")


def test_a_commit_during_a_batch_is_delivered_right_after_it(make_store: Any) -> None:
    async def go() -> None:
        async with make_store() as store:
            game = await stored(store, 3)
            loop = Gate(store)
            game = await commit(store, game, [msg("a")])
            loop.start()
            try:
                await asyncio.wait_for(loop.first.wait(), 5)
                await commit(store, game, [msg("b")])
                loop.wake()  # as this worker's commit wakes it (notify)
                await until(lambda: loop.looks >= 2)  # it looked while "a" was out
                loop.release.set()
                await until(lambda: loop.got == ["a", "b"])  # not 30 s later
            finally:
                await loop.stop()

    run(go())


def test_a_lone_batch_costs_no_second_look(make_store: Any) -> None:
    async def go() -> None:
        async with make_store() as store:
            game = await stored(store, 3)
            loop = Gate(store)
            loop.release.set()
            game = await commit(store, game, [msg("a"), msg("b")])
            loop.start()
            try:
                await until(lambda: loop.got == ["a", "b"])
                await asyncio.sleep(0.3)
                assert loop.looks == 1  # the first pass's look, and none after the batch
                await commit(store, game, [msg("c")])
                loop.wake()
                await until(lambda: loop.got == ["a", "b", "c"])
                assert loop.looks == 2
            finally:
                await loop.stop()

    run(go())


def test_a_commit_here_is_taken_without_a_look_and_another_workers_at_the_next(
    make_store: Any,
) -> None:
    """A commit of this worker names its game (`wake(game_id)`): taken at
    once, with no look at which games are ready. Another worker's commit
    wakes nobody here: the next look, `poll` seconds after the last, finds it."""

    async def go() -> None:
        async with make_store() as store:
            mine, theirs = lobby(3), lobby(3, game_id="g2")
            await store.create(mine)
            await store.create(theirs)
            loop = Gate(store)
            loop.release.set()
            loop.start()
            try:
                await until(lambda: loop.looks == 1)  # the first pass
                for key in ("a", "b", "c"):
                    mine = await commit(store, mine, [msg(key)])
                    loop.wake(mine.id)
                    await until(lambda key=key: loop.got[-1:] == [key])
                assert loop.looks == 1  # three commits here, no look
                loop.poll = 0.2
                loop.wake()  # (a plain wake-up looks: it starts the shorter poll)
                await until(lambda: loop.looks == 2)
                await commit(store, theirs, [msg("x")])  # no wake-up here
                await until(lambda: loop.got[-1:] == ["x"], seconds=3.0)
                assert loop.looks >= 3
            finally:
                await loop.stop()

    run(go())
