"""A world for SMS tests: the game service on the embedded store, the SMS adapter
with the real twilio client pointed at the fake Twilio API, and an ASGI client
that posts signed webhooks the way Twilio does (to the public URL, while the app
itself sits behind a proxy at another host). The SMS records go to the
directory given (SQLite in memory by default; tests pass a Redis one too)."""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from twilio.request_validator import RequestValidator

from adapters.sms.directory import Directory, SqliteDirectory, player_id
from adapters.sms.settings import SmsSettings
from adapters.sms.webhook import SmsAdapter, create_sms, routes
from adapters.store.sqlite_store import SqliteStore
from gameflow.core import actions as A
from gameflow.core.state import Game
from gameflow.core.text import Msg
from service.games import GameService
from tests.fake_twilio import ACCOUNT_SID, AUTH_TOKEN, FakeTwilio
from tests.store_helpers import (
    FakeClock,
    VirtualTime,
    cluster_url_or_fail,
    drop_prefix,
    redis_url_or_fail,
    run,
    unique_prefix,
)
from tests.worker_process import WorkerProcess

PUBLIC = "https://muldvarp.example.org"
INTERNAL = "http://10.0.0.7:8080"  # what the app sees behind the proxy
HOST = "tg:host"
FROM = "+4759440000"


def worker_settings(fake: FakeTwilio, *, id_key: str, rate: float) -> dict[str, Any]:
    """The SMS settings, as the JSON-able doc a delivery worker
    (tests/sms_outbox_worker.py) is started with: the fake Twilio as the API,
    sending at `rate` texts a second."""
    return {
        "account_sid": ACCOUNT_SID,
        "auth_token": AUTH_TOKEN,
        "public_base_url": PUBLIC,
        "from_number": FROM,
        "api_base_url": fake.base_url,
        "id_key": id_key,
        "rate": rate,
    }


class SmsOutboxWorker(WorkerProcess):
    """tests/sms_outbox_worker.py in a process of its own, as consumer
    `consumer`; it claims a dead worker's batch once `min_idle` seconds
    have passed."""

    def __init__(self, cfg: dict[str, Any], consumer: str, *, min_idle: float) -> None:
        super().__init__(
            "sms_outbox_worker.py", {**cfg, "consumer": consumer, "min_idle": min_idle}
        )


FakeMonotonic = VirtualTime  # the SMS queue's clock and sleep: sleeping moves time, instantly


class World:
    def __init__(
        self, fake: FakeTwilio, *, directory: Directory | None = None, **settings: Any
    ) -> None:
        self.fake = fake
        self.clock = FakeClock()
        self.mono = FakeMonotonic()
        values: dict[str, Any] = {
            "account_sid": ACCOUNT_SID,
            "auth_token": AUTH_TOKEN,
            "public_base_url": PUBLIC,
            "from_number": FROM,
            "api_base_url": fake.base_url,
            "id_key": "test-key",
        }
        values.update(settings)
        self.settings = SmsSettings(**values)
        self.store = SqliteStore(":memory:", clock=self.clock, synchronous="OFF")
        self.service = GameService(self.store, clock=self.clock)
        self.host_reports: list[tuple[str, Msg]] = []
        self.sms: SmsAdapter = create_sms(
            self.service,
            self.settings,
            directory=directory if directory is not None else SqliteDirectory(),
            host_hook=self._host_hook,
            sleep=self.mono.sleep,
            monotonic=self.mono,
        )
        self.app = Starlette(routes=routes(self.sms))
        self.http = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=self.app), base_url=INTERNAL
        )
        self._sids = itertools.count(1)

    async def _host_hook(self, game: Game, text: Msg) -> None:
        self.host_reports.append((game.id, text))

    async def close(self) -> None:
        await self.http.aclose()
        await self.sms.close()
        await self.store.close()

    def pid(self, phone: str) -> str:
        return player_id(phone, self.settings.id_key)

    def sign(self, path: str, params: dict[str, str]) -> str:
        return str(RequestValidator(AUTH_TOKEN).compute_signature(PUBLIC + path, params))

    async def post(
        self,
        path: str,
        params: dict[str, str],
        signature: str | None = None,
        *,
        drain: bool = True,
    ) -> httpx.Response:
        """Post a signed webhook; then deliver the texts it caused, unless
        `drain` is False (they wait in the outbox, as while a worker is busy)."""
        sig = self.sign(path, params) if signature is None else signature
        response = await self.http.post(path, data=params, headers={"X-Twilio-Signature": sig})
        if drain:
            await self.sms.drain()
        return response

    async def hosted(
        self,
        host: str,
        kind: str,
        phones: Sequence[str],
        names: Sequence[str],
        *,
        join: str = "JOIN",
        **create: Any,
    ) -> tuple[str, str]:
        """A `kind` game `host` created (`create`: create_game's keywords) that
        each of `phones` joined by text under its name: its code and its id."""
        created = await self.service.create_game(kind, host, **create)
        assert created.code is not None
        for phone, name in zip(phones, names, strict=True):
            await self.text(phone, f"{join} {created.code} {name}")
        return created.code, created.game.id

    async def run_out(self, game_id: str) -> None:
        """The game's current phase runs out: the clock 1000 s on and the
        deadline submitted, as the scheduler would (its texts not drained)."""
        game = await self.service.load(game_id)
        assert game is not None
        self.clock.tick(1000)
        await self.service.submit(game_id, A.Deadline(None, game.phase.seq))

    async def text(
        self, phone: str, body: str, sid: str | None = None, *, drain: bool = True
    ) -> httpx.Response:
        """`phone` texts `body` (a fresh MessageSid unless one is given)."""
        params = {
            "MessageSid": sid or f"SM{next(self._sids):032x}",
            "AccountSid": ACCOUNT_SID,
            "From": phone,
            "To": FROM,
            "Body": body,
            "NumMedia": "0",
        }
        response = await self.post("/sms/twilio", params, drain=drain)
        assert response.status_code == 200, response.text
        assert response.text.startswith("<?xml") and "<Response>" in response.text
        return response

    def inbox(self, phone: str) -> list[str]:
        return self.fake.to(phone)

    def last(self, phone: str) -> str:
        got = self.inbox(phone)
        assert got, f"nothing was sent to {phone}"
        return got[-1]


Records = Callable[[], Directory]


def with_world(fake: FakeTwilio, body: Callable[[World], Awaitable[None]]) -> None:
    """Run `body` on a fresh World over `fake`, closing it however `body` ends."""

    async def main() -> None:
        world = World(fake)
        try:
            await body(world)
        finally:
            await world.close()

    run(main())


def records_fixture() -> Any:
    """A pytest fixture (assign it at module level: `records = records_fixture()`)
    making the SMS adapter's records of each kind: SQLite in memory, or Redis or
    a real Redis Cluster (marker `cluster`; a
    key prefix of its own per directory made, all dropped afterwards; with `CI`
    set a missing Redis fails rather than skips)."""

    @pytest.fixture(params=["sqlite", "redis", pytest.param("cluster", marks=pytest.mark.cluster)])
    def records(request: pytest.FixtureRequest) -> Iterator[Records]:
        if request.param == "sqlite":
            yield SqliteDirectory
            return
        from adapters.sms.redis_directory import RedisDirectory

        url = cluster_url_or_fail() if request.param == "cluster" else redis_url_or_fail()
        prefixes: list[str] = []

        def make() -> Directory:
            prefixes.append(unique_prefix())
            return RedisDirectory.from_url(url, prefix=prefixes[-1])

        make.url = url  # type: ignore[attr-defined]  # for a second "worker" on the same records
        yield make
        for prefix in prefixes:
            run(drop_prefix(url, prefix))

    return records


def on_records(records: Records, body: Callable[[Directory], Awaitable[None]]) -> None:
    """Run `body` on a fresh directory of `records`, closed however it ends."""

    async def go() -> None:
        d = records()
        try:
            await body(d)
        finally:
            await d.close()

    run(go())
