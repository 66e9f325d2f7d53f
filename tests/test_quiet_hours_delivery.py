"""Nobody is woken up: a campaign's messages wait out its quiet hours (#21 item 2).

A campaign (`pacing` = `campaign`) in Europe/Oslo with the default quiet
hours, 23:00-07:00. At 23:30 the host moves the game on (a deadline passing
would do the same); the commit's messages (results, news, the next
questions) are written to the outbox as ever, but nothing reaches a phone
until the quiet hours end: then everything due goes, the news merged into
one message per chat, and each player gets the question that is open then.
A live game at the same hour is not held. Through the real wire formats:
Telegram updates and the fake Bot API; signed Twilio webhooks and the fake
Twilio; the game's clock is injected."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from adapters.store.sqlite_store import SqliteStore
from gameflow.core import actions as A
from tests.campaign_helpers import oslo
from tests.fake_telegram import FakeBotApi, Harness, serving
from tests.fake_twilio import FakeTwilio
from tests.sms_helpers import World
from tests.store_helpers import FakeClock, run
from tests.test_telegram_table import Table

PEOPLE = {200 + i: name for i, name in enumerate(["Ana", "Bo", "Cy", "Dag", "Eli", "Fred"])}


@pytest.mark.telegram
@pytest.mark.parametrize("pacing", ["campaign", "fast"])
def test_telegram_messages_wait_for_the_end_of_quiet_hours(tmp_path: Path, pacing: str) -> None:
    async def main() -> None:
        api = FakeBotApi()
        async with serving(api):
            clock = FakeClock(oslo(15, 12))
            store = SqliteStore(str(tmp_path / "q.sqlite3"), clock=clock)
            h = Harness(api, store, clock)
            async with h:
                table = Table(h, PEOPLE)
                sets = (f"pacing {pacing}", "timezone Europe/Oslo")
                game_id = await table.open("traitors", sets=sets)
                before = len(api.sent())
                clock.now = oslo(15, 23, 30)
                game = await table.game()
                out = await h.service.submit(game_id, A.Advance(game.host))
                assert out.accepted and out.messages, "the host moved the game on"
                await h.tg.settled()
                night = api.sent()[before:]
                if pacing == "fast":
                    assert night, "a live game is never held"
                    return
                assert not night, [c.params.get("text") for c in night]
                assert h.tg.delivery.held.get(game_id) == oslo(16, 7)
                clock.now = oslo(16, 7, 0) + 1
                await h.tg.settled()
                morning = api.sent()[before:]
                assert morning, "the night's messages went in the morning"
                # every player has one question up, the one open now
                game = await table.game()
                for uid in PEOPLE:
                    up = [
                        m
                        for m in api.chat(uid)
                        if (m.get("reply_markup") or {}).get("inline_keyboard")
                    ]
                    for m in up:
                        row = m["reply_markup"]["inline_keyboard"][0]
                        assert all(f"|{game.phase.seq}|" in b["callback_data"] for b in row)
            await store.close()

    run(main())


@pytest.mark.sms
def test_sms_texts_wait_for_the_end_of_quiet_hours(fake: FakeTwilio) -> None:
    phones = [f"+4791250{i:03d}" for i in range(6)]

    async def main() -> None:
        w = World(fake, rate=0)
        try:
            w.clock.now = oslo(15, 12)
            await w.text("+4791259999", "NEW TRAITORS")
            found = re.search(r"\b([A-Z]{4})\b", w.inbox("+4791259999")[0].split("\n")[0])
            assert found is not None, w.inbox("+4791259999")
            code = found.group(1)
            game_id = await w.store.game_for_code(code)
            assert game_id is not None, w.inbox("+4791259999")[0]
            for phone, name in zip(phones, PEOPLE.values(), strict=True):
                await w.text(phone, f"JOIN {code} {name}")
            await w.text("+4791259999", "START GAME")
            game = await w.service.load(game_id)
            assert game.running and game.option("pacing") == "campaign"
            before = len(fake.messages)
            composed: dict[str, list[str]] = {}  # player -> the night's texts, composed
            for hour, minute in ((23, 30), (23, 45)):  # the host moves on twice
                w.clock.now = oslo(15, hour, minute)
                game = await w.service.load(game_id)
                out = await w.service.submit(game_id, A.Advance(game.host))
                assert out.accepted
                for m in out.messages:
                    if m.payload.get("body"):
                        composed.setdefault(m.payload["player"], []).append(m.payload["body"])
                await w.sms.drain()
            assert composed, "the night's commits texted somebody"
            assert len(fake.messages) == before, fake.messages[before:]
            w.clock.now = oslo(16, 7) + 1
            await w.sms.drain()
            morning = fake.messages[before:]
            # Everything the night held came, merged: fewer texts than commits
            # made, each player's lines all there and in their order.
            got: dict[str, list[str]] = {}
            for m in morning:
                got.setdefault(m["to"], []).append(m["body"])
            by_phone = {w.pid(p): p for p in [*phones, "+4791259999"]}
            for player, bodies in composed.items():
                texts = got.get(by_phone[player], [])
                assert "\n".join(texts) == "\n".join(bodies), (texts, bodies)
            assert len(morning) < sum(len(b) for b in composed.values()), len(morning)
        finally:
            await w.close()

    run(main())


@pytest.mark.sms
def test_a_campaign_lobby_at_night_still_answers_who_joins(fake: FakeTwilio) -> None:
    """People joining are awake: a lobby's texts are never held (nor has it a zone yet)."""

    async def main() -> None:
        w = World(fake, rate=0)
        try:
            w.clock.now = oslo(15, 23, 30)
            await w.text("+4791259998", "NEW TRAITORS")
            found = re.search(r"\b([A-Z]{4})\b", w.inbox("+4791259998")[0].split("\n")[0])
            assert found is not None
            await w.text("+4791250100", f"JOIN {found.group(1)} Ana")
            assert w.inbox("+4791250100"), "the joiner was answered at once"
        finally:
            await w.close()

    run(main())
