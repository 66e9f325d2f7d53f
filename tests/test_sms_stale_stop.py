"""A STOP texted while a batch of texts is being delivered (issue #19 review).

The delivery (adapters/sms/delivery.py) sends one game's batch in order at
the sender's pace, one text a second on a long code, so a batch to a table
takes seconds. The phone and STOP are looked up for each text as it goes, not
once for the batch: a player who texts STOP after the first texts of a batch
went out gets none of the rest, which are acked as skipped, while everybody
else's keep coming. Through the signed Twilio webhook and the fake Twilio, on
each kind of SMS records (SQLite, Redis, and a Redis Cluster with `-m cluster`).
"""

from __future__ import annotations

import asyncio

import pytest

from adapters.sms.renderer import CHANNEL
from gameflow.core import actions as A
from tests.fake_twilio import FakeTwilio
from tests.sms_helpers import HOST, Records, World, records_fixture
from tests.store_helpers import run

pytestmark = [pytest.mark.sms, pytest.mark.outbox]

PHONES = ["+4791234501", "+4791234502", "+4791234503", "+4791234504", "+4791234505"]
NAMES = ["Kristoffer", "Marija", "Ingrid", "Sigurd", "Sigrun"]

records = records_fixture()


def test_a_stop_during_a_batch_stops_the_rest_of_it(fake: FakeTwilio, records: Records) -> None:
    async def main() -> None:
        w = World(fake, directory=records(), rate=1.0)  # a long code's pace
        try:
            _code, game_id = await w.hosted(HOST, "station", PHONES, NAMES, lang="en", seed="stop")
            await w.service.submit(game_id, A.Start(HOST))
            await w.sms.drain()
            # Two commits' texts wait: the mission's result, then the vote.
            for _ in range(2):
                await w.run_out(game_id)
            assert (await w.service.load(game_id)).phase.name == "vote"
            quitter = PHONES[2]
            before = {p: len(w.inbox(p)) for p in PHONES}

            # The sender's pace waits between texts; hold the delivery in its
            # first wait after the quitter's first text went out.
            pacing = w.sms.outbox.sleep
            held, go = asyncio.Event(), asyncio.Event()

            async def sleep(seconds: float) -> None:
                await pacing(seconds)
                if len(w.inbox(quitter)) > before[quitter] and not go.is_set():
                    held.set()
                    await go.wait()

            w.sms.outbox.sleep = sleep
            delivering = asyncio.create_task(w.sms.delivery.once())
            await asyncio.wait_for(held.wait(), 10)
            assert not delivering.done()
            first = len(w.inbox(quitter))
            assert first == before[quitter] + 1  # the batch is under way to them
            await w.text(quitter, "STOP", drain=False)
            assert await w.sms.directory.opted_out(quitter)
            go.set()
            await asyncio.wait_for(delivering, 30)
            await w.sms.drain()

            assert len(w.inbox(quitter)) == first, w.inbox(quitter)[first:]
            game = await w.service.load(game_id)
            version = game.version
            pid = w.pid(quitter)
            rows = [
                await w.store.delivered(CHANNEL, game_id, f"{v}:{pid}:{i}")
                for v in (version - 1, version)
                for i in range(2)
            ]
            assert {"skipped": True} in rows, rows
            assert w.sms.delivery.skipped >= 1
            for phone in PHONES:
                if phone != quitter:  # everybody else got both commits' texts
                    assert len(w.inbox(phone)) >= before[phone] + 2, w.inbox(phone)[-2:]
                    assert "Vote for: 1 " in w.last(phone)
            assert await w.store.outbox_ready(CHANNEL) == []
        finally:
            await w.close()

    run(main())
