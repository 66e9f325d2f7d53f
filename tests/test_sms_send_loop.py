"""SMS sending runs off the webhook's event loop (issue #19 item 2).

Through the app as `muldvarp serve` wires it (`bots.app.wire_sms`), signed
webhooks in and the real twilio client out to the fake Twilio: the texts a
game causes are sent by the Twilio client's HTTP session that lives on the
SMS send loop, a loop of its own in its own thread; the webhook's loop (the
one the test's requests are served on) never holds a Twilio session. The
delivery's bookkeeping (the directory's record of each text) still happens,
and a stop closes the session and the thread."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
import uvloop

from adapters.sms.outbound import AiohttpClient
from tests.fake_twilio import FakeTwilio
from tests.store_helpers import run
from tests.test_sms_host import HOST_PHONE, NAMES, PHONES, app

pytestmark = pytest.mark.sms


def test_texts_go_out_from_the_sms_send_loop_not_the_webhooks(
    tmp_path: Path, fake: FakeTwilio
) -> None:
    async def main() -> threading.Thread | None:
        async with app(tmp_path, fake) as a:
            sender = a.delivery.sender
            send_loop = sender.send_loop
            assert send_loop is not None and send_loop.loop is not None, "no send loop wired"
            await a.text(HOST_PHONE, "NEW STATION")
            code = next(w for w in a.inbox(HOST_PHONE)[0].split() if w.isalpha() and len(w) == 4)
            for phone, name in zip(PHONES, NAMES, strict=True):
                await a.text(phone, f"JOIN {code} {name}")
            for phone in PHONES:
                assert a.inbox(phone), phone  # each joiner was answered
            http = sender.client.http_client
            assert isinstance(http, AiohttpClient)
            # The one session every text went through lives on the send loop.
            assert http.loop is send_loop.loop
            assert http.loop is not asyncio.get_running_loop()
            assert isinstance(send_loop.loop, uvloop.Loop)  # not asyncio's Python selector loop
            assert sender.sent == len(fake.messages) >= 1 + len(PHONES)
            # The directory recorded every text's SID (on the caller's loop).
            for m in fake.messages:
                assert await a.delivery.directory.sent(m["sid"]) is not None, m["sid"]
            thread = send_loop._thread
            assert thread is not None and thread.is_alive()
        return thread

    thread = run(main())
    assert thread is not None and not thread.is_alive()  # the app's stop ended it
