"""The host's path by SMS (issue #18 item 1), through the real app wiring
(`bots.app.build_runtime`, `wire_sms`), signed webhooks in and the real twilio
client out to the fake Twilio API: `NEW STATION` answers with the join code,
a TV link that opens the game's page, and the host's commands in the game's
language, within two segments; every host action is confirmed in one short
text."""

from __future__ import annotations

import contextlib
import itertools
import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from twilio.request_validator import RequestValidator

from adapters.sms.delivery import Delivery
from adapters.sms.segments import prepare, segments
from bots.app import Runtime, build_runtime, create_app
from bots.settings import load_settings
from tests.fake_twilio import ACCOUNT_SID, AUTH_TOKEN, FakeTwilio
from tests.store_helpers import run

pytestmark = pytest.mark.sms

PUBLIC = "https://bots.example.org"
FROM = "+4759440000"
HOST_PHONE = "+4791230000"
PHONES = [f"+47912300{i:02d}" for i in range(1, 6)]
NAMES = ["Kristoffer", "Ingeborg", "Sigurd", "Åse", "Bjørnar"]


class App:
    """The whole app, as `muldvarp serve` builds it, behind an ASGI client."""

    def __init__(self, rt: Runtime, client: httpx.AsyncClient, fake: FakeTwilio) -> None:
        self.rt = rt
        self.http = client
        self.fake = fake
        self._sids = itertools.count(1)
        self.delivery = next(n for n in rt.service.notifiers if isinstance(n, Delivery))

    async def text(self, phone: str, body: str) -> None:
        params = {
            "MessageSid": f"SM{next(self._sids):032x}",
            "AccountSid": ACCOUNT_SID,
            "From": phone,
            "To": FROM,
            "Body": body,
        }
        sig = RequestValidator(AUTH_TOKEN).compute_signature(PUBLIC + "/sms/twilio", params)
        response = await self.http.post(
            "/sms/twilio", data=params, headers={"X-Twilio-Signature": sig}
        )
        assert response.status_code == 200, response.text
        await self.delivery.drain()

    def inbox(self, phone: str) -> list[str]:
        return self.fake.to(phone)

    async def host_new(self, command: str) -> str:
        """The host texts `command` (NEW STATION, NY FORRÆDERE...): the new
        game's join code, from the first line of its first reply."""
        await self.text(HOST_PHONE, command)
        code = re.search(r"\b([A-Z]{4})\b", self.inbox(HOST_PHONE)[0].split("\n")[0])
        assert code is not None, self.inbox(HOST_PHONE)
        return code.group(1)


@contextlib.asynccontextmanager
async def app(tmp_path: Path, fake: FakeTwilio) -> AsyncIterator[App]:
    settings = load_settings(
        None,
        DATA_DIR=str(tmp_path / "data"),
        PUBLIC_BASE_URL=PUBLIC,
        TWILIO_ACCOUNT_SID=ACCOUNT_SID,
        TWILIO_AUTH_TOKEN=AUTH_TOKEN,
        TWILIO_FROM=FROM,
        TWILIO_API_BASE_URL=fake.base_url,
        SMS_RATE="0",
    )
    rt = build_runtime(settings)
    asgi = create_app(rt)
    async with contextlib.AsyncExitStack() as stack:
        await stack.enter_async_context(asgi.router.lifespan_context(asgi))
        client = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=asgi), base_url="http://10.0.0.7:8000"
        )
        yield App(rt, await stack.enter_async_context(client), fake)


@pytest.mark.parametrize(
    ("new", "words"),
    [
        ("NEW STATION", ["JOIN", "START GAME", "PAUSE", "END GAME"]),
        ("NY STASJON", ["DELTA", "START SPILL", "PAUSE", "AVSLUTT"]),
        ("NOVA STANICA", ["UĐI", "POČNI", "PAUZA", "KRAJ"]),
    ],
)
def test_new_game_by_sms_gives_the_code_the_tv_link_and_the_host_commands(
    tmp_path: Path, fake: FakeTwilio, new: str, words: list[str]
) -> None:
    async def main() -> None:
        async with app(tmp_path, fake) as a:
            await a.text(HOST_PHONE, new)
            texts = a.inbox(HOST_PHONE)
            assert len(texts) == 1, texts
            text = texts[0]
            # Two segments; Serbian with its letters goes as UCS-2 (SMS_TRANSLITERATE
            # makes it GSM-7, and two segments again).
            if new.startswith("NOVA"):
                assert segments(text) <= 3, (segments(text), text)
                assert segments(prepare(text, "sr", True)) <= 2, text
            else:
                assert segments(text) <= 2, (segments(text), text)
            found = re.search(r"(https://\S+/tv/(\S+))", text)
            assert found is not None, text
            link, token = found.groups()
            assert link.startswith(PUBLIC + "/tv/")
            code = re.search(r"\b([A-Z]{4})\b", text.split("\n")[0])
            assert code is not None, text
            for word in words:
                assert word in text, (word, text)
            # The link opens this game's TV page; the code lets players in.
            page = await a.http.get(f"/tv/{token}")
            assert page.status_code == 200
            for phone, name in zip(PHONES, NAMES, strict=True):
                await a.text(phone, f"{words[0]} {code.group(1)} {name}")
            game = await a.rt.tv.game_for_token(token)
            assert game is not None and game.names == tuple(NAMES)
            assert game.host.startswith("sms:") and game.host not in game.players

    run(main())


def test_every_host_action_by_sms_is_confirmed_in_one_short_text(
    tmp_path: Path, fake: FakeTwilio
) -> None:
    async def main() -> None:
        async with app(tmp_path, fake) as a:
            code = await a.host_new("NY STASJON")
            for phone, name in zip(PHONES, NAMES, strict=True):
                await a.text(phone, f"DELTA {code} {name}")
            for command in ("START SPILL", "PAUSE", "FORTSETT", "NESTE", "AVSLUTT"):
                before = len(a.inbox(HOST_PHONE))
                await a.text(HOST_PHONE, command)
                got = a.inbox(HOST_PHONE)[before:]
                assert len(got) == 1, (command, got)
                assert segments(got[0]) <= 2, (command, got[0])

    run(main())
