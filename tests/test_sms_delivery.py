"""SMS delivery from the durable outbox, in one process: what is decided in the
commit and what is decided when a text is sent (adapters/sms/delivery.py).

- texts wait in the store until a delivery sends them (nothing is sent by the
  commit itself), and the ack keeps Twilio's SID;
- STOP is checked when a text is sent: a player who opts out while their
  texts wait gets none of them;
- a number waits for its menu: typed while the question's text still waits
  in the outbox, it is refused; the delivery records how the question closed;
- a batch taken by a consumer that died is sent by the next after `min_idle`.
"""

from __future__ import annotations

from typing import Any

import pytest

from adapters.sms.directory import SqliteDirectory
from adapters.sms.renderer import CHANNEL
from gameflow.core import actions as A
from tests.fake_twilio import FakeTwilio
from tests.sms_helpers import HOST, World
from tests.store_helpers import run

pytestmark = [pytest.mark.sms, pytest.mark.outbox]

PHONES = ["+4791234501", "+4791234502", "+4791234503", "+4791234504", "+4791234505"]
NAMES = ["Kristoffer", "Marija", "Ingrid", "Sigurd", "Sigrun"]


async def started(w: World) -> str:
    _code, game_id = await w.hosted(HOST, "station", PHONES, NAMES, lang="en", seed="sms")
    await w.service.submit(game_id, A.Start(HOST))
    return game_id


def world_run(fake: FakeTwilio, body: object) -> None:
    async def main() -> None:
        w = World(fake, directory=SqliteDirectory())
        try:
            await body(w)  # type: ignore[operator]
        finally:
            await w.close()

    run(main())


def test_texts_wait_in_the_store_until_delivered_and_the_ack_keeps_the_sid(
    fake: FakeTwilio,
) -> None:
    async def body(w: World) -> None:
        game_id = await started(w)
        welcomed = len(fake.messages)
        assert await w.store.outbox_ready(CHANNEL) == [game_id]
        assert len(fake.messages) == welcomed  # the commit itself sent nothing
        taken = await w.store.take(CHANNEL, game_id, "peek", min_idle=0)
        assert len(taken) >= len(PHONES)
        w.sms.delivery.min_idle = 0  # the peek's hold is released at once
        await w.sms.drain()
        sent = fake.messages[welcomed:]
        assert {m["to"] for m in sent} == set(PHONES)
        first = await w.store.delivered(CHANNEL, game_id, taken[0].key)
        assert first is not None and first["sid"] in {m["sid"] for m in sent}
        assert w.sms.delivery.reclaimed == len(taken)  # handed out a second time
        assert await w.store.outbox_ready(CHANNEL) == []

    world_run(fake, body)


def test_stop_is_checked_when_a_text_is_sent(fake: FakeTwilio) -> None:
    async def body(w: World) -> None:
        game_id = await started(w)  # the role cards wait in the outbox
        before = len(w.inbox(PHONES[2]))
        await w.sms.directory.opt_out(PHONES[2], w.clock())  # STOP by another path
        await w.sms.drain()
        assert len(w.inbox(PHONES[2])) == before
        assert all("Round 1" in w.last(p) or "role" in w.last(p).lower() for p in PHONES[:2])
        rows = [await w.store.delivered(CHANNEL, game_id, k) for k in await _keys(w, game_id)]
        assert any(r == {"skipped": True} for r in rows)

    world_run(fake, body)


@pytest.mark.parametrize("rate", [0.0, 1.0])
def test_a_batch_reads_numbers_and_stops_once_unless_it_waits(
    fake: FakeTwilio, rate: float
) -> None:
    """The role cards of a start are one batch. Sent as fast as Twilio takes
    them (no pace), one read of the numbers and STOPs serves all of them; at
    a long code's pace of one a second each text waits its turn, and its
    number and STOP are read again after the wait."""

    async def main() -> None:
        w = World(fake, directory=SqliteDirectory(), rate=rate)
        reads: list[list[str]] = []
        real = w.sms.directory.reachable

        async def counting(players: Any) -> dict[str, str]:
            reads.append(list(players))
            return await real(players)

        w.sms.directory.reachable = counting  # type: ignore[method-assign]
        try:
            game_id = await started(w)  # the role cards wait in the outbox
            before = {p: len(w.inbox(p)) for p in PHONES}
            reads.clear()
            await w.sms.drain()
            assert all(len(w.inbox(p)) > before[p] for p in PHONES)
            texted = sum(len(w.inbox(p)) - before[p] for p in PHONES)
            if rate == 0:
                assert len(reads) == 1, reads
                assert sorted(reads[0]) == sorted(w.pid(p) for p in PHONES)
            else:
                assert len(reads) >= texted, reads  # the batch's read, then one a text
            assert await w.store.outbox_ready(CHANNEL) == []
            assert game_id
        finally:
            await w.close()

    run(main())


def test_a_texts_ack_goes_with_the_next_record_and_before_the_next_text(
    fake: FakeTwilio,
) -> None:
    """Between two texts of a batch, the first one's ack and the sheet record
    the next one carries are one store step (`ack_and_swap`: one round trip
    on Redis); and every text is acked before the next is handed to Twilio,
    so a kill leaves at most one text to be sent again."""

    async def body(w: World) -> None:
        log: list[str] = []
        store, outbox = w.store, w.sms.outbox
        ack, ack_and_swap, deliver = store.ack, store.ack_and_swap, outbox.deliver

        async def acking(channel: str, game_id: str, key: str, result: Any = None) -> bool:
            log.append("ack")
            return await ack(channel, game_id, key, result)

        async def acking_and_swapping(*args: Any) -> tuple[bool, bool]:
            log.append("ack+record")
            return await ack_and_swap(*args)

        async def sending(m: Any) -> Any:
            log.append("send")
            return await deliver(m)

        store.ack = acking  # type: ignore[method-assign]
        store.ack_and_swap = acking_and_swapping  # type: ignore[method-assign]
        outbox.deliver = sending  # type: ignore[method-assign]
        game_id = await started(w)  # the role cards and the first menus wait
        log.clear()
        await w.sms.drain()
        sends = log.count("send")
        assert sends >= len(PHONES)
        assert log.count("ack+record") >= 1, log  # merged where a record followed
        acks = [i for i, step in enumerate(log) if step != "send"]
        assert len(acks) >= sends
        for n, i in enumerate(i for i, step in enumerate(log) if step == "send"):
            assert sum(1 for a in acks if a < i) >= n, (n, log)  # all before it acked
        assert await w.store.outbox_ready(CHANNEL) == []
        assert game_id

    world_run(fake, body)


async def _keys(w: World, game_id: str) -> list[str]:
    game = await w.service.load(game_id)
    return [f"{game.version}:{w.pid(PHONES[2])}:{i}" for i in range(3)]


def test_a_number_waits_for_its_menu_and_the_delivery_records_how_it_closed(
    fake: FakeTwilio,
) -> None:
    """While the vote's texts still wait in the outbox, the player's phone shows
    the mission's menu: a number is refused (adapters/sms/inbound.py,
    `_answer`); once the vote's menu is delivered it is read, and the delivery
    records how the question closed."""

    async def body(w: World) -> None:
        game_id = await started(w)
        await w.sms.drain()
        for _ in range(2):  # the mission ends, then the discussion: the vote opens
            await w.run_out(game_id)
        voting = await w.service.load(game_id)
        assert voting.phase.name == "vote"
        assert await w.store.outbox_ready(CHANNEL) == [game_id]  # the vote's texts wait
        await w.text(PHONES[0], "1")
        assert (await w.service.load(game_id)).version == voting.version  # not read
        assert w.last(PHONES[0]).startswith("Not counted: that number was for an earlier menu.")
        assert any("Reply with the number" in t for t in w.inbox(PHONES[0])[-3:])
        await w.text(PHONES[0], "1")
        assert (await w.service.load(game_id)).version == voting.version + 1
        assert await w.store.outbox_ready(CHANNEL) == []
        assert await w.sms.sheets.closed(game_id, w.pid(PHONES[0])) == "a"

    world_run(fake, body)
