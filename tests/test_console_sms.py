"""`CONSOLE` by SMS (issue #32 item 1), through the real app wiring and signed
Twilio webhooks to the fake Twilio API: the host's text gets the console's
link, which opens this game's console; a player's gets none; `KONSOLL NY`
rotates it (the old link answers 404); the link is never texted to anyone else."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.fake_twilio import FakeTwilio
from tests.store_helpers import run
from tests.test_sms_host import HOST_PHONE, NAMES, PHONES, PUBLIC, app

pytestmark = pytest.mark.sms

LINK = re.compile(re.escape(PUBLIC) + r"(/console/\S+)")


def test_the_host_gets_the_console_link_by_sms_and_can_rotate_it(
    tmp_path: Path, fake: FakeTwilio
) -> None:
    async def main() -> None:
        async with app(tmp_path, fake) as a:
            await a.text(HOST_PHONE, "NY STASJON")
            code = re.search(r"\b([A-Z]{4})\b", a.inbox(HOST_PHONE)[0])
            assert code is not None
            for phone, name in zip(PHONES, NAMES, strict=True):
                await a.text(phone, f"DELTA {code.group(1)} {name}")
            await a.text(PHONES[0], "CONSOLE")
            assert "Bare verten" in a.inbox(PHONES[0])[-1]
            await a.text(HOST_PHONE, "KONSOLL")
            found = LINK.search(a.inbox(HOST_PHONE)[-1])
            assert found is not None, a.inbox(HOST_PHONE)[-1]
            page = await a.http.get(found.group(1))
            assert page.status_code == 200 and "Kristoffer" in page.text
            await a.text(HOST_PHONE, "KONSOLL NY")
            text = a.inbox(HOST_PHONE)[-1]
            fresh = LINK.search(text)
            assert fresh is not None and fresh.group(1) != found.group(1), text
            assert "virker ikke lenger" in text
            assert (await a.http.get(found.group(1))).status_code == 404
            assert (await a.http.get(fresh.group(1))).status_code == 200
            for phone in PHONES:
                assert not any("/console/" in t for t in a.inbox(phone)), phone

    run(main())
