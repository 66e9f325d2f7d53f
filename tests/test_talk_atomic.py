"""A talk line's record and its messages land together (issue #33): a
worker that dies at any of the store writes `say` makes (service/talk.py,
GameStore.swap_attr_and_append) leaves the game's talk record and the
line's outbox messages both written or neither, on SQLite, one Redis and a
Redis Cluster, and the platform's redelivery then completes the line
exactly once per recipient."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from service import talk
from service.games import GameService
from tests.campaign_helpers import oslo
from tests.store_helpers import FakeClock, run, store_fixture
from tests.test_talk_service import PLAYERS, seated

WRITES = ("swap_attr", "append_outbox", "swap_attr_and_append")

make_store = store_fixture(("sqlite", "redis", "redis-cluster", "cluster"))


class Died(Exception):
    """The worker is gone (SIGKILL), as seen from its own coroutine."""


class Dying:
    """The store as a worker that dies right before (`before`) or right
    after its first write lands sees it: every later call never happens."""

    def __init__(self, store: Any, *, before: bool) -> None:
        self.store, self.before, self.dead = store, before, False

    def __getattr__(self, name: str) -> Any:
        real = getattr(self.store, name)
        if name not in WRITES:
            return real

        async def write(*args: Any, **kwargs: Any) -> Any:
            if self.dead or self.before:
                self.dead = True
                raise Died(name)
            await real(*args, **kwargs)
            self.dead = True
            raise Died(name)

        return write


async def recipients(store: Any, game_id: str) -> Counter[str]:
    entries = await store.take("sms", game_id, "reader", count=1000, min_idle=0)
    return Counter(e.payload["player"] for e in entries)


@pytest.mark.store
@pytest.mark.parametrize("before", [False, True], ids=["after-write", "before-write"])
def test_a_worker_dying_mid_line_leaves_both_or_neither(make_store: Any, before: bool) -> None:
    async def go() -> None:
        async with make_store() as store:
            service = GameService(store, clock=FakeClock(oslo(15, 12)))
            game_id = await seated(service)
            game = await service.load(game_id)

            dying = Dying(store, before=before)
            with pytest.raises(Died):
                await talk.say(
                    dying, service.talkers, game, "p0", "hello", key="sms:1", now=service.clock()
                )
            raw = await store.get_attr(game_id, talk.ATTR)
            kept = raw is not None and "sms:1" in raw
            got = await recipients(store, game_id)
            # both or neither: the record names the line iff its messages exist
            assert kept is not before
            assert got == (Counter() if before else Counter(PLAYERS[1:]))

            # the platform redelivers: each recipient gets the line once
            again = await service.talk(game_id, "p0", "hello", key="sms:1")
            assert again.status == (talk.SENT if before else talk.DUPLICATE)
            assert await recipients(store, game_id) == Counter(PLAYERS[1:])

    run(go())
