"""The SMS adapter end to end: signed Twilio webhooks in, the real twilio client
out to a fake Twilio API on 127.0.0.1, the game service on the embedded store.
Every test runs with the SMS records in SQLite and in Redis (`records`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.sms import opt_out
from adapters.sms.directory import SqliteDirectory
from adapters.sms.grammar import fold
from adapters.sms.phones import e164, mask
from gameflow.core import actions as A
from gameflow.core.engine import view
from gameflow.core.state import HOST_VIEW
from gameflow.games.station.state import DISCUSSION, MISSION, VOTE
from tests.fake_twilio import FakeTwilio
from tests.sms_helpers import HOST, Records, World, records_fixture
from tests.store_helpers import run

pytestmark = pytest.mark.sms

PHONES = ["+4791234501", "+4791234502", "+4791234503", "+381641234504", "+4791234505"]
NAMES = ["Kristoffer", "Marija", "Ingrid", "Đorđe", "Sigrun"]


records = records_fixture()


def play(
    fake: FakeTwilio,
    records: Records,
    body: Callable[[World], Awaitable[None]],
    **settings: Any,
) -> None:
    async def main() -> None:
        world = World(fake, directory=records(), **settings)
        try:
            await body(world)
        finally:
            await world.close()

    run(main())


async def lobby(w: World, lang: str = "en", roles: dict[int, str] | None = None) -> str:
    """A Station game hosted from Telegram, joined by the five SMS phones."""
    setup = {"roles": {w.pid(PHONES[i]): r for i, r in (roles or {}).items()}} if roles else {}
    created = await w.service.create_game("station", HOST, lang=lang, seed="sms", setup=setup)
    assert created.code is not None
    for phone, name in zip(PHONES, NAMES, strict=True):
        await w.text(phone, f"JOIN {created.code.lower()} {name}")
        assert name in w.last(phone)
    return created.game.id


def test_a_whole_station_round_by_sms(fake: FakeTwilio, records: Records) -> None:
    async def body(w: World) -> None:
        game_id = await lobby(w, roles={0: "infiltrator", 1: "infiltrator"})
        fake.clear()
        await w.service.submit(game_id, A.Start(HOST))
        await w.sms.drain()
        for i, phone in enumerate(PHONES):
            first = w.inbox(phone)
            assert len(first) == 1  # role, round, card and question in one text
            text = first[0]
            if i < 2:
                assert "INFILTRATOR" in text and "Kristoffer" in text and "Marija" in text
                assert "[SABOTAGE]" in text
            else:
                assert "LOYAL" in text and "INFILTRATOR" not in text
                assert "SABOTAGE" not in text
            assert "Reply: plan 1-3, OUTSIDE/RADIO/GUARD, partner (name/-)" in text
        # The choice in one line: plan, job, partner, secret.
        answers = ["1 G MAR S", "1 o -", "1 r kris", "1 G", "1 guard ingrid"]
        for phone, answer in zip(PHONES, answers, strict=True):
            await w.text(phone, answer)
        game = await w.service.load(game_id)
        assert game.phase.name == DISCUSSION
        st = game.rules
        assert [c.job for c in st.choices] == ["guard", "outside", "radio", "guard", "guard"]
        assert st.choices[0].sabotage and st.choices[0].partner == 1
        # A live game texts no echo of an answer taken (the result follows);
        # the anxious who text again hear that their answer is in.
        assert not any("Choice locked" in t for t in w.inbox(PHONES[0]))
        await w.text(PHONES[0], "1 G MAR S")
        assert w.last(PHONES[0]) == "Your answer is in. The next question comes by text."
        # Discussion ends by its deadline; the vote menu arrives with the result.
        fake.clear()
        w.clock.tick(400)
        await w.service.submit(game_id, A.Deadline(None, game.phase.seq))
        await w.sms.drain()
        game = await w.service.load(game_id)
        assert game.phase.name == VOTE
        menu = w.last(PHONES[2])
        assert "Vote for: 1 Kristoffer 2 Marija 3 Đorđe 4 Sigrun 5 Nobody." in menu
        # Votes by number; three on Kristoffer sends him out.
        for phone, number in zip(PHONES, ["1", "1", "1", "1", "5"], strict=True):
            await w.text(phone, number)
        game = await w.service.load(game_id)
        assert game.phase.round == 2 and game.phase.name == MISSION
        assert game.rules.out == 0
        assert "You sit out the next round" in w.last(PHONES[0])
        assert w.last(PHONES[1]).endswith(". E.g. 2 R INGRID")  # round 2's question
        assert any("Card: plan" in t for t in w.inbox(PHONES[1])[-3:])
        assert view(game, None) == view(game, None)  # views still pure after SMS play

    play(fake, records, body)


def test_the_host_plays_by_sms_from_new_to_end(fake: FakeTwilio, records: Records) -> None:
    host = "+4790000001"

    async def body(w: World) -> None:
        await w.text(host, "NY STASJON")
        created = w.last(host)
        code = created.split()[1]
        assert created.startswith("Spill ") and f"DELTA {code}" in created
        for phone, name in zip(PHONES, NAMES, strict=True):
            await w.text(phone, f"delta {code} {name}")
            assert "Velkommen" in w.last(phone)
        await w.text(host, "START")  # the carrier's word: not a game start
        game_id = (await w.store.whereis(host) or ("", ""))[0]
        assert (await w.service.load(game_id)).phase.name == "lobby"
        await w.text(host, "START SPILL")
        game = await w.service.load(game_id)
        assert game.phase.name == MISSION and game.lang == "nb"
        assert "Svar: plan 1-3, UTE/RADIO/VAKT" in w.inbox(PHONES[0])[-1]
        await w.text(host, "pause")
        assert (await w.service.load(game_id)).phase.paused
        assert "pause" in w.last(host)
        await w.text(host, "FORTSETT")
        assert not (await w.service.load(game_id)).phase.paused
        await w.text(host, "status")
        roster = w.last(host)
        assert "Kristoffer *01" in roster and "+4791234501" not in roster
        await w.text(PHONES[0], "pause")
        assert "verten" in fold(w.last(PHONES[0]))  # only the host may pause
        await w.text(host, "avslutt")
        assert (await w.service.load(game_id)).over
        public = str(view(await w.service.load(game_id), None))
        host_view = str(view(await w.service.load(game_id), HOST_VIEW))
        for phone in (host, *PHONES):
            assert phone not in public and phone[1:] not in public and phone not in host_view

    play(fake, records, body)


def test_forged_signatures_are_refused_and_change_nothing(
    fake: FakeTwilio, records: Records
) -> None:
    async def body(w: World) -> None:
        await w.text(PHONES[0], "NEW STATION")
        params = {"MessageSid": "SMforged", "From": PHONES[1], "Body": "NEW STATION"}
        good = w.sign("/sms/twilio", params)
        for sig in ("", "bm90IGEgc2lnbmF0dXJl", good[:-2] + "AA"):
            response = await w.post("/sms/twilio", params, signature=sig)
            assert response.status_code == 403
        # Signed for the internal URL (what the app sees), not the public one.
        from twilio.request_validator import RequestValidator

        from tests.fake_twilio import AUTH_TOKEN
        from tests.sms_helpers import INTERNAL

        inner = RequestValidator(AUTH_TOKEN).compute_signature(INTERNAL + "/sms/twilio", params)
        assert (await w.post("/sms/twilio", params, signature=inner)).status_code == 403
        tampered = {**params, "Body": "JOIN ABCD Mallory"}
        assert (await w.post("/sms/twilio", tampered, signature=good)).status_code == 403
        status = {"MessageSid": "SMx", "MessageStatus": "failed"}
        assert (await w.post("/sms/twilio/status", status, signature="x")).status_code == 403
        assert await w.sms.directory.inbound("SMforged") is None  # not even recorded
        assert await w.store.whereis(PHONES[1]) is None
        assert w.inbox(PHONES[1]) == []
        assert (await w.post("/sms/twilio", params)).status_code == 200  # correctly signed
        stored = await w.sms.directory.inbound("SMforged")
        assert stored is not None and stored.phone == PHONES[1] and stored.body == "NEW STATION"

    play(fake, records, body)


def test_a_redelivered_message_sid_is_applied_once(fake: FakeTwilio, records: Records) -> None:
    async def body(w: World) -> None:
        game_id = await lobby(w)
        await w.service.submit(game_id, A.Start(HOST))
        await w.sms.drain()
        game = await w.service.load(game_id)
        version = game.version
        entries = len(await w.store.log(game_id))
        await w.text(PHONES[0], "2 g", sid="SMdup")
        before = len(w.inbox(PHONES[0]))
        await w.text(PHONES[0], "2 g", sid="SMdup")
        game = await w.service.load(game_id)
        assert game.version == version + 1
        assert len(w.inbox(PHONES[0])) == before  # no second receipt, no error reply
        assert len(await w.store.log(game_id)) == entries + 1
        # A redelivered JOIN and a redelivered NEW are one join and one game.
        await w.text("+4790000009", "NEW STATION", sid="SMnew")
        await w.text("+4790000009", "NEW STATION", sid="SMnew")
        assert len(w.inbox("+4790000009")) == 1

    play(fake, records, body)


def test_a_text_that_could_not_be_handled_is_not_acknowledged(
    fake: FakeTwilio, records: Records
) -> None:
    async def body(w: World) -> None:
        await lobby(w)
        await w.store.close()  # the game store goes away
        params = {"MessageSid": "SMlost", "From": PHONES[0], "To": "+4759440000", "Body": "STATUS"}
        response = await w.post("/sms/twilio", params)
        assert response.status_code == 503  # Twilio must deliver it again
        assert "Something went wrong" in w.last(PHONES[0])
        stored = await w.sms.directory.inbound("SMlost")
        assert stored is not None and stored.body == "STATUS"  # a redelivery is quiet

    play(fake, records, body, default_lang="en")


def test_unparseable_texts_get_a_reply_saying_what_was_expected(
    fake: FakeTwilio, records: Records
) -> None:
    async def body(w: World) -> None:
        stranger = "+4790000002"
        for text, expected in [
            ("hello", "JOIN code name"),
            ("", "JOIN code name"),
            ("JOIN", "JOIN, the game code and your name"),
            ("JOIN ZZZZ Ana", "No game has the code ZZZZ"),
            ("NEW chess", "STATION, RESISTANCE, TRAITORS or WEREWOLF"),
        ]:
            await w.text(stranger, text)
            assert expected in w.last(stranger), (text, w.last(stranger))
        game_id = await lobby(w)
        await w.text(PHONES[0], "2 g")
        assert "Nothing to answer right now" in w.last(PHONES[0])
        await w.service.submit(game_id, A.Start(HOST))
        await w.sms.drain()
        for text, expected in [
            ("banana", "Not understood: check the plan. Reply: plan 1-3"),
            ("9 g", "check the plan"),
            ("2 x", "check the job"),
            ("2 g zed", "Not understood"),
            ("x " * 200, "Too many words"),
            ("1 2 3 4 5 6 7 8 9 10 11 12 13", "Too many words"),
        ]:
            await w.text(PHONES[2], text)
            assert expected in w.last(PHONES[2]), (text, w.last(PHONES[2]))
        await w.text(PHONES[2], "STATUS")
        assert "\nReply: plan 1-3" in w.last(PHONES[2])

    play(fake, records, body, default_lang="en")


def test_stop_marks_unreachable_tells_the_host_and_sends_no_secrets(
    fake: FakeTwilio, records: Records
) -> None:
    async def body(w: World) -> None:
        game_id = await lobby(w)
        await w.text(PHONES[3], "stop")
        assert [fold(r[1].param("name") or "") for r in w.host_reports] == ["djordje"]
        before = len(w.inbox(PHONES[3]))
        sent = len(fake.messages)
        await w.service.submit(game_id, A.Start(HOST))
        await w.sms.drain()
        assert len(w.inbox(PHONES[3])) == before  # no role text, not to anyone else either
        # Four role texts went out (one per reachable player), none to anyone instead.
        roles = ("You are an INFILTRATOR", "You are LOYAL")
        assert sum(any(r in m["body"] for r in roles) for m in fake.messages) == 4
        assert not any(m["to"] == PHONES[3] for m in fake.messages[sent:])
        await w.text(PHONES[3], "START")  # opted in again: the question is resent
        assert "\nReply: plan" in w.last(PHONES[3])
        assert len(w.host_reports) == 2
        await w.text(PHONES[3], "HELP")
        assert "STATUS" in w.last(PHONES[3])

    play(fake, records, body)


def test_failed_private_deliveries_are_reported_to_the_host(
    fake: FakeTwilio, records: Records
) -> None:
    async def body(w: World) -> None:
        game_id = await lobby(w)
        fake.unsubscribed.add(PHONES[4])  # Twilio refuses at once (21610)
        await w.service.submit(game_id, A.Start(HOST))
        await w.sms.drain()
        assert [r[1].param("name") for r in w.host_reports] == ["Sigrun"]
        # A delivery report: undelivered, for a secret text to Ingrid.
        sent = [m for m in fake.messages if m["to"] == PHONES[2]][-1]
        assert sent["status_callback"] == "https://muldvarp.example.org/sms/twilio/status"
        for state in ("sent", "undelivered", "undelivered"):
            response = await w.post(
                "/sms/twilio/status",
                {"MessageSid": sent["sid"], "MessageStatus": state, "ErrorCode": "30005"},
            )
            assert response.status_code == 204
        assert [r[1].param("name") for r in w.host_reports] == ["Sigrun", "Ingrid"]
        record = await w.sms.directory.sent(sent["sid"])
        assert record is not None and record.status == "undelivered" and record.secret
        assert record.phone == PHONES[2] and record.game == game_id

    play(fake, records, body)


def test_a_messaging_service_sends_and_the_queue_keeps_one_per_second(fake: FakeTwilio) -> None:
    async def body(w: World) -> None:
        await lobby(w)
        assert all(m["messaging_service_sid"] == "MG" + "1" * 32 for m in fake.messages)
        assert all(m["from"] is None for m in fake.messages)
        waits = w.mono.slept
        assert len(waits) >= len(fake.messages) - 1 > 0
        assert all(abs(s - 1.0) < 1e-9 for s in waits)

    play(fake, SqliteDirectory, body, messaging_service_sid="MG" + "1" * 32, rate=1.0)


def test_phone_numbers_are_normalised_to_e164() -> None:
    assert e164("912 34 567") == "+4791234567"
    assert e164("0047 912 34 567") == "+4791234567"
    assert e164("+381 64 123 4567") == "+381641234567"
    assert e164("not a number") is None
    assert mask("+4791234567") == "+47******67"


@settings(
    max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(bodies=st.lists(st.text(max_size=700), min_size=1, max_size=25))
def test_no_text_ever_causes_an_error_response(fake: FakeTwilio, bodies: list[str]) -> None:
    async def body(w: World) -> None:
        game_id = await lobby(w)
        await w.service.submit(game_id, A.Start(HOST))
        await w.sms.drain()
        for i, text in enumerate(bodies):
            phone = PHONES[i % len(PHONES)]
            fake.clear()
            before = (await w.service.load(game_id)).version
            await w.text(phone, text)  # asserts 200 and empty TwiML
            if (await w.service.load(game_id)).version == before:
                # Not applied: a reply to the sender, saying what was expected, and
                # nothing to anyone else (a carrier keyword may go unanswered).
                assert {m["to"] for m in fake.messages} <= {phone}
                assert fake.messages or opt_out.classify(text) is not None, text

    play(fake, SqliteDirectory, body)
