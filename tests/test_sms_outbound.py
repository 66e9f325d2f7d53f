"""The outbound side: the queue's pace and order, the real twilio client against
the fake API, texts split at line ends, reminders from the scheduler."""

from __future__ import annotations

import pytest
from twilio.rest import Client

from adapters.sms.directory import SqliteDirectory
from adapters.sms.outbound import AiohttpClient, OutMessage, TwilioSender, twilio_client
from adapters.sms.renderer import split
from adapters.sms.segments import segments
from adapters.sms.settings import SmsSettings
from gameflow.core import actions as A
from gameflow.core.events import Event, Kind
from tests.fake_twilio import ACCOUNT_SID, AUTH_TOKEN, FakeTwilio
from tests.sms_helpers import HOST, FakeMonotonic, World, with_world
from tests.store_helpers import run

pytestmark = pytest.mark.sms


def _settings(fake: FakeTwilio, **kw: object) -> SmsSettings:
    values: dict[str, object] = {
        "account_sid": ACCOUNT_SID,
        "auth_token": AUTH_TOKEN,
        "public_base_url": "https://muldvarp.example.org",
        "from_number": "+4759440000",
        "api_base_url": fake.base_url,
    }
    values.update(kw)
    return SmsSettings(**values)  # type: ignore[arg-type]


def test_the_queue_sends_in_order_at_the_configured_rate(fake: FakeTwilio) -> None:
    async def main() -> None:
        settings = _settings(fake, rate=2.0)
        mono = FakeMonotonic()
        box = TwilioSender(
            twilio_client(settings), settings, SqliteDirectory(), sleep=mono.sleep, clock=mono
        )
        for i in range(5):
            await box.send(OutMessage("+4791234567", f"text {i}"))
        await box.drain()
        await box.close()
        assert fake.to("+4791234567") == [f"text {i}" for i in range(5)]
        assert mono.slept == [0.5] * 4  # two a second: 0, .5, 1, 1.5, 2
        assert box.sent == 5

    run(main())


def test_a_wrong_auth_token_is_a_recorded_failure(fake: FakeTwilio) -> None:
    async def main() -> None:
        settings = _settings(fake, auth_token="wrong")
        directory = SqliteDirectory()
        failed: list[tuple[OutMessage, str]] = []

        async def on_failed(m: OutMessage, error: str) -> None:
            failed.append((m, error))

        box = TwilioSender(twilio_client(settings), settings, directory, on_failed=on_failed)
        await box.send(OutMessage("+4791234567", "secret", "g", "sms:x", True))
        await box.send(OutMessage("+4791234567", "public", "g", "sms:x", False))
        await box.drain()
        await box.close()
        assert fake.messages == [] and fake.requests == 2
        assert [(m.body, e) for m, e in failed] == [("secret", "20003")]

    run(main())


def test_a_429_delays_a_text_and_never_drops_it(fake: FakeTwilio) -> None:
    """Twilio's "too many requests" is waited out with doubling waits, in order."""

    async def main() -> None:
        settings = _settings(fake, rate=0)
        mono = FakeMonotonic()
        failed: list[str] = []

        async def on_failed(m: OutMessage, error: str) -> None:
            failed.append(error)

        box = TwilioSender(
            twilio_client(settings),
            settings,
            SqliteDirectory(),
            on_failed=on_failed,
            sleep=mono.sleep,
            clock=mono,
        )
        fake.throttle = 3
        first = await box.deliver(OutMessage("+4791234567", "one", "g", "sms:x", True))
        await box.send(OutMessage("+4791234567", "two"))
        await box.drain()
        await box.close()
        assert first.sid is not None and first.sid == fake.messages[0]["sid"]
        assert fake.to("+4791234567") == ["one", "two"] and fake.requests == 5
        assert mono.slept == [1.0, 2.0, 4.0] and box.retried == 3 and not failed

    run(main())


def test_long_texts_are_split_at_line_ends() -> None:
    lines = [f"Line {i}: " + "x" * 90 for i in range(6)]
    chunks = split("\n".join(lines), 2)
    assert all(segments(c) <= 2 for c in chunks)
    assert "\n".join(chunks) == "\n".join(lines)
    long_word_line = "word " * 200
    chunks = split(long_word_line.strip(), 2)
    assert all(segments(c) <= 2 for c in chunks)
    assert all(not c.startswith(" ") and "wor d" not in c for c in chunks)
    assert " ".join(chunks).split() == long_word_line.split()


def test_reminders_resend_the_question_to_those_who_have_not_answered(fake: FakeTwilio) -> None:
    async def body(w: World) -> None:
        created = await w.service.create_game("station", HOST, lang="en", seed="r")
        phones = [f"+4791200{i:03d}" for i in range(5)]
        for i, phone in enumerate(phones):
            await w.text(phone, f"JOIN {created.code} P{i}")
        outcome = await w.service.submit(created.game.id, A.Start(HOST))
        await w.sms.drain()
        await w.text(phones[0], "1 g")
        game = await w.service.load(created.game.id)
        events = tuple(
            Event(Kind.REMINDER, w.pid(p), None, game.phase.seq, game.phase.deadline)
            for p in phones[:2]
        )
        before = len(w.inbox(phones[0]))
        await w.sms.delivery.notify(game, events)
        await w.sms.drain()
        assert len(w.inbox(phones[0])) == before  # answered already: no reminder
        assert w.last(phones[1]).startswith("Reminder: time is nearly up.\nPlan 1: ")
        assert "\nReply: plan 1-3" in w.last(phones[1])
        assert outcome.accepted

    with_world(fake, body)


def test_settings_from_the_environment() -> None:
    s = SmsSettings.from_env(
        {
            "TWILIO_ACCOUNT_SID": "AC1",
            "TWILIO_AUTH_TOKEN": "tok",
            "TWILIO_FROM_NUMBER": "+4759440000",
            "TWILIO_MESSAGING_SERVICE_SID": "MG1",
            "PUBLIC_BASE_URL": "https://muldvarp.example.org/",
            "SMS_TRANSLITERATE": "on",
            "SMS_RATE": "3",
        }
    )
    assert s.sender == "MG1"  # a Messaging Service wins over a number
    assert s.status_url == "https://muldvarp.example.org/sms/twilio/status"
    assert s.transliterate and s.rate == 3.0 and s.id_key == "tok"
    assert s.api_base_url == "https://api.twilio.com"
    plain = SmsSettings.from_env({"TWILIO_FROM_NUMBER": "+4759440000"})
    assert plain.sender == "+4759440000" and plain.rate == 1.0 and not plain.transliterate


def test_serve_hands_every_sms_knob_to_the_adapter() -> None:
    from bots.settings import SettingsError, load_settings

    base = {
        "TWILIO_ACCOUNT_SID": ACCOUNT_SID,
        "TWILIO_AUTH_TOKEN": AUTH_TOKEN,
        "TWILIO_FROM": "+4759440000",
        "PUBLIC_BASE_URL": "https://muldvarp.example.org",
    }
    knobs = {
        "SMS_RATE": "0",
        "SMS_ANNOUNCE": "all",
        "SMS_DEFAULT_REGION": "RS",
        "SMS_DEFAULT_LANG": "sr",
        "SMS_ID_KEY": "own-key",
        "SMS_TRANSLITERATE": "1",
    }
    s = load_settings(None, **base, **knobs).sms_settings()
    assert (s.rate, s.announce, s.default_region, s.default_lang) == (0.0, "all", "RS", "sr")
    assert s.id_key == "own-key" and s.transliterate
    plain = load_settings(None, **base).sms_settings()
    assert (plain.rate, plain.announce, plain.default_lang) == (1.0, "all", "nb")
    assert plain.id_key == AUTH_TOKEN and not plain.transliterate
    # one default, whichever way the adapter gets its settings; "bundled" is read as "all"
    assert plain.announce == SmsSettings.from_env({}).announce
    assert load_settings(None, **base, SMS_ANNOUNCE="bundled").sms_settings().announce == "all"
    with pytest.raises(SettingsError, match="SMS_ANNOUNCE"):
        load_settings(None, **base, SMS_ANNOUNCE="some")


def _timing_out(fake: FakeTwilio, settings: SmsSettings) -> Client:
    """The real client with a short answer timeout (the real one waits 10 s)."""
    return Client(
        settings.account_sid,
        settings.auth_token,
        http_client=AiohttpClient(fake.base_url, timeout=0.3),
    )


def test_a_text_twilio_took_but_answered_too_late_is_not_sent_again(fake: FakeTwilio) -> None:
    """Twilio's API has no idempotency key: after a timeout the sender looks
    the text up among the number's newest messages before it sends again."""

    async def main() -> None:
        settings = _settings(fake, rate=0)
        directory = SqliteDirectory()
        box = TwilioSender(_timing_out(fake, settings), settings, directory, sleep=_no_wait)
        fake.stall, fake.stall_for = 1, 1.0  # taken, answered after the client gave up
        sent = await box.deliver(OutMessage("+4791234567", "Din rolle: mekaniker", "g1", "p1"))
        await box.close()
        assert fake.to("+4791234567") == ["Din rolle: mekaniker"]  # once
        assert sent.sid == fake.messages[0]["sid"]
        assert box.recovered == 1 and fake.lookups == 1
        record = await directory.sent(sent.sid)
        assert record is not None and record.player == "p1"

    run(main())


def test_a_timed_out_text_that_twilio_never_took_is_sent_again(fake: FakeTwilio) -> None:
    """The same body texted before (a menu sent twice) is not mistaken for it:
    that one is on record under its own SID."""

    async def main() -> None:
        settings = _settings(fake, rate=0)
        directory = SqliteDirectory()
        box = TwilioSender(_timing_out(fake, settings), settings, directory, sleep=_no_wait)
        first = await box.deliver(OutMessage("+4791234567", "MENY: 1 Ja 2 Nei", "g1", "p1"))
        fake.lose, fake.stall_for = 1, 1.0  # not taken, and no answer in time
        again = await box.deliver(OutMessage("+4791234567", "MENY: 1 Ja 2 Nei", "g1", "p1"))
        await box.close()
        assert fake.to("+4791234567") == ["MENY: 1 Ja 2 Nei"] * 2
        assert again.sid not in (None, first.sid)
        assert box.recovered == 0 and box.retried == 1 and fake.lookups == 1

    run(main())


async def _no_wait(seconds: float) -> None:
    return None
