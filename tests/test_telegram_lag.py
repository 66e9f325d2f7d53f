"""How far a Telegram group lags behind the private prompts, measured.

A 10-player Station game in a group, on one virtual clock for the game, the
outbound queue and the fake Bot API (which enforces Telegram's flood control
of 20 messages a minute per group, answering 429 beyond it). People join one
a second and answer each question 3 s after it reaches them; when nobody is
asked, the phase runs to its deadline. For every announcement the time from
its commit to the group message carrying it is recorded, and the most news
messages ever waiting for the group at once.

With news merged per chat (news.py) the group is never more than one
message behind; sending each moment's announcements as their own message (as
before) is measured alongside for comparison. Run with `-s` to see the figures.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import statistics
from pathlib import Path
from typing import Any

import pytest

from adapters.store.sqlite_store import SqliteStore
from gameflow.core import actions as A
from tests.fake_telegram import FakeBotApi, Harness, serving
from tests.store_helpers import T0, FakeClock, run
from tests.test_telegram_table import HOST, Person, Table, pick

pytestmark = pytest.mark.telegram

GROUP = -999
REACT = 3.0  # seconds a person takes to answer what reached them
NAMES = ("Ana", "Bo", "Cy", "Dag", "Eli", "Fred", "Gro", "Hal", "Ida", "Jon")


class SteppedTime:
    """A clock that moves only when the test advances it: `sleep` waits for it."""

    def __init__(self) -> None:
        self.now = 0.0
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self.now + max(0.0, seconds), next(self._order), future))
        await future

    def wake_due(self, until: float) -> bool:
        """Wake the first sleeper due by `until`; False when there is none."""
        while self._sleepers and self._sleepers[0][0] <= until:
            at, _, future = heapq.heappop(self._sleepers)
            if not future.done():
                self.now = max(self.now, at)
                future.set_result(None)
                return True
        return False


def station(person: Person, message: dict[str, Any], labels: list[str] | None) -> str | None:
    assert labels is not None
    if "Send choice" in labels:
        return "Send choice"
    return pick(person, labels, "Start over")


async def measure(tmp_path: Path, merge: bool, rounds: int = 2) -> dict[str, float]:
    clock = FakeClock()
    store = SqliteStore(str(tmp_path / f"lag{merge}.sqlite3"), clock=clock, synchronous="OFF")
    time = SteppedTime()
    api = FakeBotApi(group_limit=20, clock=time.clock)
    async with serving(api):
        h = Harness(api, store, clock)
        h.time = time  # type: ignore[assignment]
        async with h:
            outbound = h.tg.outbound
            try:
                figures = await _play(h, time, clock, store, merge, rounds)
            finally:
                await outbound.stop(drain=False)  # on this clock, a drain would wait forever
        await store.close()
    return figures


async def _play(
    h: Harness, time: SteppedTime, clock: FakeClock, store: SqliteStore, merge: bool, rounds: int
) -> dict[str, float]:
    api = h.api
    if True:
        if True:
            outbound = h.tg.outbound
            h.tg.notifier.news.merge = merge

            delivery = h.tg.delivery
            assert delivery is not None

            async def settle() -> None:
                # Quiet means: the outbox delivery has handed on every batch
                # (it runs on real time, reading the store) and the queue has
                # nothing it may send before the virtual clock moves.
                calm = 0
                for _ in range(20000):
                    await asyncio.sleep(0.0005)
                    calm = calm + 1 if outbound.quiet and not delivery.handing else 0
                    if calm >= 3:
                        return
                raise AssertionError("the outbound queue never settled")

            async def advance(seconds: float) -> None:
                target = time.now + seconds
                while time.wake_due(target):
                    clock.now = T0 + time.now
                    await settle()
                time.now = target
                clock.now = T0 + time.now
                await settle()

            h.settle = settle

            async def pause() -> None:
                await advance(0.25)

            table = Table(h, {100 + i: NAMES[i] for i in range(10)}, seed=7)
            table.pause = pause
            await h.command(HOST, "Hana", "/new station", chat_id=GROUP)
            code = api.texts(GROUP)[-1].split("start=")[1].split()[0]
            table.game_id = await store.game_for_code(code) or ""
            for person in table.people.values():
                await h.command(person.uid, person.name, f"/start {code}")
                await advance(1.0)
            await h.command(HOST, "Hana", "/startgame", chat_id=GROUP)
            arrived: dict[int, tuple[int, float]] = {}  # uid -> (message id, when seen)
            while True:
                game = await table.game()
                if game.over or game.phase.round > rounds:
                    break
                acted = asked = False
                for person in table.people.values():
                    message = person.question()
                    if message is None:
                        continue
                    asked = True
                    seen = arrived.get(person.uid)
                    if seen is None or seen[0] != message["message_id"]:
                        arrived[person.uid] = seen = (message["message_id"], time.now)
                    if time.now - seen[1] >= REACT:
                        acted = await table.answer(person, station) or acted
                if not asked and not acted:
                    # nobody is asked: the phase runs to its deadline
                    deadline = game.phase.deadline or clock.now
                    await advance(max(0.0, deadline - clock.now))
                    seq = game.phase.seq
                    await h.service.submit(table.game_id, A.Deadline(None, seq), key=f"d{seq}")
                    await settle()
                else:
                    await advance(0.5)
            for _ in range(100):  # let everything out before leaving
                if not outbound.pending:
                    break
                await advance(5.0)
            assert not outbound.pending, (outbound.pending, time.now, time._sleepers[:3])
            news = h.tg.notifier.news.stats
            assert not table.stats.refused
            lags = news.lags
            figures = {
                "announcements": float(news.parts),
                "group_messages": float(news.messages),
                "max_lag_s": max(lags),
                "mean_lag_s": statistics.fmean(lags),
                "most_behind": float(news.most_queued),
                "flooded_429": float(api.flooded),
            }
    return figures


def test_the_group_is_never_more_than_one_message_behind(tmp_path: Path) -> None:
    async def go() -> None:
        merged = await measure(tmp_path, merge=True)
        each = await measure(tmp_path, merge=False)
        print(f"\ngroup lag, 10-player Station, 2 rounds: merged {merged}\n  one per moment {each}")
        assert merged["most_behind"] <= 1  # one message waiting at most, ever
        assert merged["max_lag_s"] <= 3.5  # at most one group interval (3 s) behind
        assert merged["group_messages"] < merged["announcements"]
        assert merged["flooded_429"] == 0
        assert each["max_lag_s"] > merged["max_lag_s"]

    run(go())
