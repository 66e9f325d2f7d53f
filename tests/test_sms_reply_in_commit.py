"""The reply to an SMS input is decided in the commit of that input (issue
#30, item 2): a worker killed between the commit and answering Twilio can't
lose it (Twilio's redelivery is answered quietly, so before, the welcome or
the «OK.» was lost for good), and a redelivery doesn't double it. A text that
commits nothing (refused, read-only) is answered at once, not at the
delivery's next look. Through the real app wiring (`bots.app`), signed
webhooks in and the real twilio client out to the fake Twilio API."""

from __future__ import annotations

import asyncio
import contextlib
import re
import statistics
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from tests import test_sms_host as host
from tests.fake_twilio import FakeTwilio, inbound
from tests.store_helpers import run
from tests.test_sms_host import FROM, PUBLIC

pytestmark = pytest.mark.sms

HOST = "+4791240000"
PHONES = [f"+47912400{i:02d}" for i in range(1, 6)]
NAMES = ["Kristoffer", "Ingeborg", "Sigurd", "Åse", "Bjørnar"]


class Killed(BaseException):
    """The worker dies here: no handler of the app's catches it."""


class App(host.App):
    async def post(self, phone: str, body: str, sid: str | None = None) -> str:
        """`body` from `phone` (under `sid`, or a new MessageSid), not drained."""
        sid = sid or f"SM{next(self._sids):032x}"
        content, headers = inbound(PUBLIC + "/sms/twilio", sid, phone, FROM, body)
        response = await self.http.post("/sms/twilio", content=content, headers=headers)
        assert response.status_code == 200, response.text
        return sid

    async def dying(self, phone: str, body: str) -> str:
        """`body` from `phone`, by a worker killed as soon as the service has
        committed it; then Twilio's redelivery of the same text."""
        service: Any = self.rt.service
        submit: Callable[..., Any] = service.submit

        async def submit_and_die(*args: Any, **kwargs: Any) -> Any:
            await submit(*args, **kwargs)
            raise Killed

        service.submit = submit_and_die
        sid = f"SM{next(self._sids):032x}"
        try:
            with pytest.raises(Killed):
                await self.post(phone, body, sid)
        finally:
            del service.submit
        await self.post(phone, body, sid)  # Twilio delivers it again
        await self.delivery.drain()
        return sid


@contextlib.asynccontextmanager
async def app(tmp_path: Path, fake: FakeTwilio) -> AsyncIterator[App]:
    async with host.app(tmp_path, fake) as a:
        yield App(a.rt, a.http, a.fake)


async def lobby(a: App, players: int) -> str:
    await a.text(HOST, "NY STASJON")
    found = re.search(r"\b([A-Z]{4})\b", a.fake.to(HOST)[0])
    assert found is not None
    code = found.group(1)
    for phone, name in zip(PHONES[:players], NAMES, strict=False):
        await a.text(phone, f"DELTA {code} {name}")
    return code


def test_a_worker_killed_between_commit_and_reply_loses_no_reply(
    tmp_path: Path, fake: FakeTwilio
) -> None:
    async def main() -> None:
        async with app(tmp_path, fake) as a:
            code = await lobby(a, 4)
            # a join: the welcome is the reply, in the join's commit
            await a.dying(PHONES[4], f"DELTA {code} {NAMES[4]}")
            texts = a.fake.to(PHONES[4])
            assert len(texts) == 1 and NAMES[4] in texts[0] and code in texts[0], texts
            # a host's command: what its commit texts the host, once
            await a.text(HOST, "START SPILL")
            before = len(a.fake.to(HOST))
            await a.dying(HOST, "PAUSE")
            assert len(a.fake.to(HOST)[before:]) == 1, a.fake.to(HOST)

    run(main())


def test_a_text_that_commits_nothing_is_answered_at_once(tmp_path: Path, fake: FakeTwilio) -> None:
    """The delivery's next look is a second away (its poll): the reply to a
    refused text must not wait for it."""

    async def main() -> None:
        async with app(tmp_path, fake) as a:
            await lobby(a, 2)
            waits = []
            for _ in range(5):
                before = len(a.fake.to(PHONES[0]))
                sent = time.time()
                await a.post(PHONES[0], "START SPILL")  # not the host: refused
                while len(a.fake.to(PHONES[0])) == before and time.time() - sent < 5:
                    await asyncio.sleep(0.005)
                got = a.fake.messages[-1]
                assert got["to"] == PHONES[0], got
                waits.append(got["received"] - sent)
            assert statistics.median(waits) < 0.5, waits

    run(main())
