"""A worker that lost its hold on a batch stops sending it (issue #19).

A batch is held by the worker delivering it, and its hold is renewed while it
goes out (adapters/outbox_loop.py). When a worker cannot renew for longer
than `min_idle` (here: its store connection fails for a while), the batch is
taken over by another worker, which sends the rest. The first worker, once its
store answers again, learns that it holds nothing of the batch any more and
stops: the rest is not sent twice.

Real parts: the SMS delivery, the embedded store (both workers on one file),
the real twilio client and the fake Twilio on loopback, slowed to 0.1 s a
text so that a batch takes seconds. The fault is injected at our own store
port (a wrapper whose `renew` fails while the test says so), nothing else.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from adapters.sms.delivery import Delivery
from adapters.sms.directory import SqliteDirectory, player_id
from adapters.sms.outbound import TwilioSender, twilio_client
from adapters.sms.renderer import CHANNEL, SentSheets, SmsRenderer
from adapters.sms.settings import SmsSettings
from adapters.store.sqlite_store import SqliteStore
from gameflow.core import actions as A
from service.games import GameService
from tests.fake_twilio import ACCOUNT_SID, AUTH_TOKEN, FakeTwilio
from tests.store_helpers import FakeClock, run

pytestmark = [pytest.mark.sms, pytest.mark.outbox]

ID_KEY = "lost-hold-id-key"
NAMES = ["Kari", "Ola", "Åse", "Per", "Liv", "Nils", "Mari", "Jon"]
MIN_IDLE = 0.5


class CutOff:
    """The store as one worker sees it: `renew` fails while `cut` is set."""

    def __init__(self, store: SqliteStore) -> None:
        self._store = store
        self.cut = False

    async def renew(self, channel: str, game_id: str, consumer: str) -> int:
        if self.cut:
            raise ConnectionError("the store is away")
        return await self._store.renew(channel, game_id, consumer)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


def test_a_worker_whose_batch_was_taken_over_stops_sending_it(tmp_path: Path) -> None:
    with FakeTwilio() as fake:
        settings = SmsSettings(
            account_sid=ACCOUNT_SID,
            auth_token=AUTH_TOKEN,
            public_base_url="https://muldvarp.example.org",
            from_number="+4759440000",
            api_base_url=fake.base_url,
            id_key=ID_KEY,
            rate=0,
        )

        async def main() -> None:
            store = SqliteStore(str(tmp_path / "games.sqlite3"))
            directory = SqliteDirectory(str(tmp_path / "sms.sqlite3"))
            clock = FakeClock(time.time())
            service = GameService(store, composers=[SmsRenderer(settings)], clock=clock)
            created = await service.create_game("station", "tg:host", lang="nb", seed="hold")
            game_id = created.game.id
            outcomes = []
            for i, name in enumerate(NAMES):
                pid = player_id(f"+4791000{i:03d}", ID_KEY)
                await directory.set_phone(pid, f"+4791000{i:03d}", game_id)
                outcomes.append(await service.submit(game_id, A.Join(pid, None, name)))
            outcomes.append(await service.submit(game_id, A.Start("tg:host")))
            for _ in range(2):  # two phases run out: their results and new menus
                clock.tick(1000)
                game = await service.load(game_id)
                outcomes.append(await service.submit(game_id, A.Deadline(None, game.phase.seq)))
            assert all(o.accepted for o in outcomes)
            intended = Counter(
                str(m.payload["body"]) for o in outcomes for m in o.messages if "body" in m.payload
            )
            total = sum(intended.values())
            assert total >= 20, total
            fake.delay = 0.1

            def worker(name: str, view: Any) -> Delivery:
                sender = TwilioSender(twilio_client(settings), settings, directory)
                return Delivery(
                    view, directory, sender, SentSheets(view), consumer=name, min_idle=MIN_IDLE
                )

            flaky = CutOff(store)
            first = worker("first", flaky)
            flaky.cut = True  # from the start: its hold will lapse
            sending = asyncio.create_task(first.once())
            while len(fake.messages) < 5:
                await asyncio.sleep(0.02)
            await asyncio.sleep(MIN_IDLE)  # its hold has lapsed by now
            second = worker("second", store)
            taking = asyncio.create_task(second.once())
            while second.reclaimed == 0:
                await asyncio.sleep(0.01)
            flaky.cut = False  # the first worker's store answers again
            await asyncio.wait_for(asyncio.gather(sending, taking), 60)
            while await store.outbox_ready(CHANNEL):
                await second.once()

            got = Counter(str(m["body"]) for m in fake.messages)
            assert not intended - got, "a text never arrived"
            duplicated = sum((got - intended).values())
            print(
                f"\n{total} texts; the first worker sent {first.delivered} and stopped"
                f" (holds lost: {first.lost_holds}), the second {second.delivered};"
                f" {duplicated} duplicated"
            )
            assert first.lost_holds == 1
            # What the first worker had in flight or sent before it heard (one
            # renew interval at 0.1 s a text) may come twice; nothing more.
            assert duplicated <= 3, duplicated
            await first.sender.close()
            await second.sender.close()
            await directory.close()
            await store.close()

        run(main())
