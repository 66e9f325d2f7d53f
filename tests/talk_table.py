"""A Traitors campaign table of Telegram and SMS players on one game service,
for the talk tests (issue #33): the Telegram adapter against the fake Bot
API (tests/fake_telegram.py) and the SMS adapter against the fake Twilio,
fed signed webhooks, both on the same service and store."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import httpx
from starlette.applications import Starlette
from twilio.request_validator import RequestValidator

from adapters.sms.directory import SqliteDirectory, player_id
from adapters.sms.settings import SmsSettings
from adapters.sms.webhook import SmsAdapter, create_sms, routes
from adapters.store.sqlite_store import SqliteStore
from gameflow.core import actions as A
from gameflow.core.state import Game
from gameflow.replay import parse_step
from tests.campaign_helpers import oslo
from tests.fake_telegram import FakeBotApi, Harness
from tests.fake_twilio import ACCOUNT_SID, AUTH_TOKEN, FakeTwilio
from tests.sms_helpers import FROM, INTERNAL, PUBLIC, FakeMonotonic
from tests.store_helpers import FakeClock

HOST = 1
TG = {100: "Ana", 101: "Bo", 102: "Cy", 103: "Dag"}
SMS = {"+4791240001": "Eli", "+4791240002": "Fia", "+4791240003": "Gus"}
KEY = "test-key"


def sms_id(phone: str) -> str:
    return player_id(phone, KEY)


class TalkTable:
    """Hana hosts a Traitors campaign from Telegram; four players join by
    Telegram, three by SMS; `roles` names the traitors (player ids)."""

    def __init__(self, api: FakeBotApi, fake: FakeTwilio, tmp_path: Path) -> None:
        self.api, self.fake = api, fake
        self.clock = FakeClock(oslo(15, 12))
        self.store = SqliteStore(str(tmp_path / "talk.sqlite3"), clock=self.clock)
        self.h = Harness(api, self.store, self.clock)
        self.mono = FakeMonotonic()
        self._sids = itertools.count(1)
        self.game_id = ""

    async def __aenter__(self) -> TalkTable:
        await self.h.__aenter__()
        settings = SmsSettings(
            account_sid=ACCOUNT_SID,
            auth_token=AUTH_TOKEN,
            public_base_url=PUBLIC,
            from_number=FROM,
            api_base_url=self.fake.base_url,
            id_key=KEY,
            rate=0,
        )
        self.sms: SmsAdapter = create_sms(
            self.h.service,
            settings,
            directory=SqliteDirectory(),
            sleep=self.mono.sleep,
            monotonic=self.mono,
        )
        app = Starlette(routes=routes(self.sms))
        self.http = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=INTERNAL)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.http.aclose()
        await self.sms.close()
        await self.h.__aexit__(*exc)
        await self.store.close()

    async def settle(self) -> None:
        for _ in range(3):
            await self.h.tg.settled()
            await self.sms.drain()

    async def open(
        self, roles: dict[str, str], sets: tuple[str, ...] = (), group: int | None = None
    ) -> Game:
        """The game made (in the Telegram `group`, or privately), set, joined
        and started."""
        h = self.h
        h.setup = {"roles": roles}
        code, self.game_id = await h.new(HOST, "traitors", chat_id=group)
        # a text a line (talk_digest_every 0): these tests follow each line;
        # the digests are tests/test_talk_digest.py's
        for line in (
            "pacing campaign",
            "timezone Europe/Oslo",
            "missions host",
            "talk_digest_every 0",
            *sets,
        ):
            await h.command(HOST, "Hana", f"/set {line}")
        for uid, name in TG.items():
            await h.command(uid, name, f"/start {code}")
        for phone, name in SMS.items():
            await self.text(phone, f"JOIN {code} {name}")
        await h.command(HOST, "Hana", "/startgame", chat_id=group)
        game = await self.game()
        assert game.running, self.api.texts(HOST)[-3:]
        await self.settle()
        return game

    async def game(self) -> Game:
        return await self.h.service.load(self.game_id)

    # -- the wire ------------------------------------------------------------------

    async def tg_say(
        self, uid: int, text: str, update: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """`uid` writes `text` in the bot's private chat (or posts `update` again)."""
        update = update or self.h.users.text(uid, TG[uid], text)
        assert await self.h.post(update) == 200
        await self.settle()
        return update

    async def text(self, phone: str, body: str, sid: str | None = None) -> str:
        sid = sid or f"SM{next(self._sids):032x}"
        params = {
            "MessageSid": sid,
            "AccountSid": ACCOUNT_SID,
            "From": phone,
            "To": FROM,
            "Body": body,
            "NumMedia": "0",
        }
        path = "/sms/twilio"
        sig = RequestValidator(AUTH_TOKEN).compute_signature(PUBLIC + path, params)
        response = await self.http.post(path, data=params, headers={"X-Twilio-Signature": sig})
        assert response.status_code == 200, response.text
        await self.settle()
        return sid

    # -- moving the game on (the host's and the players' own inputs) ---------------

    async def act(self, step: dict[str, Any]) -> None:
        game = await self.game()
        out = await self.h.service.submit(self.game_id, parse_step(game, step))
        assert out.accepted, out.rejected
        await self.settle()

    async def deadline(self) -> None:
        """The current phase's deadline passes (the scheduler's input)."""
        game = await self.game()
        assert game.phase.deadline is not None, (game.phase.name, game.phase.paused)
        self.clock.now = max(self.clock.now, game.phase.deadline)
        out = await self.h.service.submit(self.game_id, A.Deadline(None, game.phase.seq))
        assert out.accepted, out.rejected
        await self.settle()

    async def advance_until(self, names: tuple[str, ...]) -> Game:
        for _ in range(8):
            game = await self.game()
            if game.phase.name in names:
                return game
            await self.deadline()
        raise AssertionError(f"never reached {names}: {(await self.game()).phase.name}")

    async def banish(self, who: str) -> None:
        """The round table votes `who` out (everyone else votes for them)."""
        game = await self.advance_until(("roundtable",))
        for i, p in enumerate(game.players):
            if p != who and game.rules.status[i] == "active":
                await self.act({"as": p, "do": "vote", "for": who})
        game = await self.game()
        if game.phase.name == "roundtable":
            await self.deadline()

    # -- what each got ---------------------------------------------------------------

    def got(self, line: str) -> dict[str, int]:
        """How many times each player (id) was sent a message holding `line`."""
        out: dict[str, int] = {}
        for uid in TG:
            out[f"tg:{uid}"] = sum(line in t for t in self.api.texts(uid))
        for phone in SMS:
            out[sms_id(phone)] = sum(line in t for t in self.fake.to(phone))
        return out
