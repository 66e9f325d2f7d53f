"""The product's ASGI app (`bots.app`), its settings and the store-backed TV source.

The app is called in process through httpx's ASGI transport, with its lifespan
run around it (startup and shutdown of channels and background work)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from adapters.store.sqlite_store import SqliteStore
from adapters.tv.store_source import StoreSource
from bots.app import Background, Runtime, build_runtime, create_app
from bots.serve import banner, scheduler_for
from bots.settings import Settings, SettingsError, load_settings
from gameflow.core import actions as A
from service.games import Created, GameService
from tests.store_helpers import HOST, run

if TYPE_CHECKING:
    from tests.fake_telegram import FakeBotApi

TOKEN = "internal-test-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
TG_TOKEN = "123456:" + "A" * 35
SID = "AC" + "0" * 32


def settings(tmp_path: Path, **env: Any) -> Settings:
    return load_settings(None, DATA_DIR=str(tmp_path / "data"), **env)


def runtime(tmp_path: Path, **env: Any) -> Runtime:
    return build_runtime(settings(tmp_path, MULDVARP_INTERNAL_TOKEN=TOKEN, **env))


@contextlib.asynccontextmanager
async def serving(
    rt: Runtime, background: Sequence[Background] = (), *, lifespan: bool = True
) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(rt, background=background)
    transport = httpx.ASGITransport(app=app)
    async with contextlib.AsyncExitStack() as stack:
        if lifespan:
            await stack.enter_async_context(app.router.lifespan_context(app))
        else:
            stack.push_async_callback(rt.store.close)
        client = httpx.AsyncClient(transport=transport, base_url="http://muldvarp.test")
        yield await stack.enter_async_context(client)


async def on_tv(rt: Runtime, kind: str, lang: str, players: int) -> tuple[Created, str]:
    """A `kind` game opened by HOST in `lang` with `players` joined (tg:0...,
    named Name0...), and a TV link's token for it."""
    made = await rt.service.create_game(kind, HOST, lang=lang)
    for i in range(players):
        await rt.service.submit(made.game.id, A.Join(f"tg:{i}", None, f"Name{i}"))
    return made, await rt.tv.issue(made.game.id)


async def serve_until_tv_link(rt: Runtime, api: FakeBotApi, chat: int) -> dict[str, Any]:
    """Serve `rt` until `chat` was sent a TV link (5 s at most): /healthz's answer."""
    async with serving(rt) as c:
        health: dict[str, Any] = (await c.get("/healthz")).json()
        deadline = time.monotonic() + 5
        while not any("/tv/" in t for t in api.texts(chat)) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
    return health


# -- health and metrics ---------------------------------------------------------------


def test_healthz_answers_with_the_store_and_channels(tmp_path: Path) -> None:
    async def main() -> httpx.Response:
        async with serving(runtime(tmp_path)) as c:
            return await c.get("/healthz")

    r = run(main())
    assert r.status_code == 200
    assert r.json() == {"ok": True, "store": "sqlite", "channels": {}, "background": {}}
    assert (tmp_path / "data" / "muldvarp.sqlite3").exists()


def test_healthz_is_503_when_the_store_fails(tmp_path: Path) -> None:
    async def main() -> httpx.Response:
        rt = runtime(tmp_path)
        async with serving(rt) as c:
            good = rt.store.load

            async def broken(game_id: str) -> None:
                raise OSError("disk gone")

            rt.store.load = broken  # type: ignore[method-assign]
            try:
                return await c.get("/healthz")
            finally:
                rt.store.load = good  # type: ignore[method-assign]

    r = run(main())
    assert r.status_code == 503  # the part and its state; the reason is for the log
    assert r.json() == {"ok": False, "store": "sqlite", "error": "store down"}


def test_metrics_count_inputs_by_outcome_and_never_show_tokens(tmp_path: Path) -> None:
    async def main() -> tuple[str, httpx.Response]:
        async with serving(runtime(tmp_path)) as c:
            made = await c.post(
                "/internal/games", json={"kind": "station", "host": HOST}, headers=AUTH
            )
            assert made.status_code == 201
            game = made.json()["id"]
            url = f"/internal/games/{game}/inputs"
            join = {"key": "k1", "step": {"as": "tg:1", "do": "join", "name": "Ada"}}
            assert (await c.post(url, json=join, headers=AUTH)).json()["status"] == "accepted"
            assert (await c.post(url, json=join, headers=AUTH)).json()["status"] == "duplicate"
            early = {"key": "k2", "step": {"as": HOST, "do": "start"}}  # one player: refused
            assert (await c.post(url, json=early, headers=AUTH)).json()["status"] == "rejected"
            tv = (await c.post(f"/internal/games/{game}/tv", headers=AUTH)).json()["url"]
            token = tv.rsplit("/", 1)[1]
            assert (await c.get(f"/tv/{token}")).status_code == 200
            return token, await c.get("/metrics")

    token, r = run(main())
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/plain")
    text = r.text
    assert 'muldvarp_inputs_total{outcome="accepted"} 1.0' in text
    assert 'muldvarp_inputs_total{outcome="duplicate"} 1.0' in text
    assert 'muldvarp_inputs_total{outcome="rejected"} 1.0' in text
    assert "muldvarp_games_active 1.0" in text
    assert 'muldvarp_http_requests_total{area="tv",status="200"} 1.0' in text
    assert "python_info" in text
    assert token not in text


def test_internal_routes_need_the_token_and_are_absent_without_it(tmp_path: Path) -> None:
    async def main() -> list[int]:
        codes = []
        async with serving(runtime(tmp_path)) as c:
            body = {"kind": "station", "host": HOST}
            codes.append((await c.post("/internal/games", json=body)).status_code)
            wrong = {"Authorization": "Bearer nope"}
            codes.append((await c.get("/internal/games/x", headers=wrong)).status_code)
        async with serving(build_runtime(settings(tmp_path / "b"))) as c:
            codes.append((await c.post("/internal/games", json=body, headers=AUTH)).status_code)
        return codes

    assert run(main()) == [403, 403, 404]


# -- the TV page from the store ---------------------------------------------------------


@pytest.mark.statuspage
def test_tv_page_is_served_from_a_stored_game(tmp_path: Path) -> None:
    async def main() -> None:
        rt = runtime(tmp_path)
        async with serving(rt) as c:
            made, token = await on_tv(rt, "station", "en", 5)
            page = await c.get(f"/tv/{token}")
            assert page.status_code == 200
            assert made.code is not None and made.code in page.text
            assert "Name3" in page.text
            assert made.game.id not in page.text and token not in page.text
            assert page.headers["cache-control"] == "no-store"
            assert (await c.get("/tv/" + "x" * 43)).status_code == 404
            assert (await c.get("/tv/not-a-token")).status_code == 404

    run(main())


@pytest.mark.statuspage
def test_store_source_hears_local_commits_at_once_and_other_workers_by_polling(
    tmp_path: Path,
) -> None:
    async def main() -> list[tuple[int, float]]:
        store = SqliteStore(str(tmp_path / "g.sqlite3"))
        here = GameService(store)
        elsewhere = GameService(store)  # another worker process, as far as the source knows
        source = StoreSource(store, poll=0.3)
        here.notifiers.append(source)
        made = await here.create_game("station", HOST, lang="en")
        gid = made.game.id
        assert await source.game_for_token(await source.issue(gid)) == made.game
        info = await source.join_info(gid)
        assert info is not None and info.code == made.code
        seen: list[tuple[int, float]] = []
        feed = source.changes(gid, made.game.version)
        try:
            for service, name in ((here, "Ada"), (elsewhere, "Bo")):
                t0 = time.monotonic()
                nxt = asyncio.ensure_future(anext(feed))
                await asyncio.sleep(0.05)
                await service.submit(gid, A.Join(f"tg:{name}", None, name))
                game = await asyncio.wait_for(nxt, 2)
                seen.append((game.version, time.monotonic() - t0))
        finally:
            await feed.aclose()  # type: ignore[attr-defined]
            await store.close()
        return seen

    seen = run(main())
    assert [v for v, _ in seen] == [1, 2]  # created at version 0
    assert seen[0][1] < 0.25  # woken by the notifier, not by the 0.3 s poll
    assert seen[1][1] < 1.0  # another worker's commit: found by polling


# -- the scheduler in the app's lifespan --------------------------------------------------


@pytest.mark.scheduler
def test_embedded_scheduler_ends_phases_by_deadline(tmp_path: Path) -> None:
    async def main() -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
        rt = runtime(tmp_path)
        options = {"mission_seconds": 0.5, "discussion_seconds": 0.5, "vote_seconds": 0.5}
        sched = scheduler_for(rt)
        assert sched is not None
        async with serving(rt, [sched]) as c:
            health = (await c.get("/healthz")).json()
            assert health["background"] == {"scheduler": "embedded"}
            body = {"kind": "station", "host": HOST, "options": options}
            gid = (await c.post("/internal/games", json=body, headers=AUTH)).json()["id"]
            url = f"/internal/games/{gid}/inputs"
            for i in range(5):
                step = {"as": f"tg:{i}", "do": "join", "name": f"P{i}"}
                await c.post(url, json={"step": step}, headers=AUTH)
            first = (
                await c.post(url, json={"step": {"as": HOST, "do": "start"}}, headers=AUTH)
            ).json()
            assert first["status"] == "accepted"
            state = first["state"]
            deadline = time.monotonic() + 10
            while state["seq"] < first["state"]["seq"] + 2 and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
                state = (await c.get(f"/internal/games/{gid}", headers=AUTH)).json()
            return first["state"], state, await rt.store.log(gid)

    first, state, log = run(main())
    assert state["seq"] >= first["seq"] + 2, state
    assert any(str(e.get("key", "")).startswith("deadline:") for e in log)


# -- settings -----------------------------------------------------------------------------


def test_settings_default_to_the_embedded_store_and_no_channels(tmp_path: Path) -> None:
    s = settings(tmp_path)
    assert s.redis_url is None and not s.telegram_enabled and not s.sms_enabled
    assert s.tv_base_url() == "http://127.0.0.1:8000/tv/"
    rt = build_runtime(s)
    assert rt.channels == []
    lines = banner(rt)
    assert any("embedded SQLite" in line for line in lines)
    assert any("http://127.0.0.1:8000/tv/" in line for line in lines)
    run(rt.store.close())


def test_settings_errors_name_every_variable(tmp_path: Path) -> None:
    with pytest.raises(SettingsError) as err:
        settings(
            tmp_path,
            PUBLIC_BASE_URL="http://bots.example.org",
            REDIS_URL="http://localhost:6379",
            PORT="70000",
            RETENTION_DAYS="0",
        )
    text = str(err.value)
    for name in ("PUBLIC_BASE_URL", "REDIS_URL", "PORT", "RETENTION_DAYS"):
        assert name in text, text
    assert "https" in text
    assert len(err.value.problems) == 4


def test_channel_settings_are_checked_together(tmp_path: Path) -> None:
    with pytest.raises(SettingsError) as err:
        settings(
            tmp_path,
            PUBLIC_BASE_URL="https://bots.example.org",
            TELEGRAM_BOT_TOKEN=TG_TOKEN,
            TWILIO_ACCOUNT_SID=SID,
        )
    problems = err.value.problems
    assert any(p.startswith("TELEGRAM_WEBHOOK_SECRET:") for p in problems), problems
    assert any(p.startswith("TWILIO_AUTH_TOKEN:") for p in problems), problems
    assert any("sender" in p for p in problems), problems
    with pytest.raises(SettingsError, match="PUBLIC_BASE_URL: required for SMS"):
        settings(tmp_path, TWILIO_ACCOUNT_SID=SID, TWILIO_AUTH_TOKEN="t", TWILIO_FROM="+4759440000")
    with pytest.raises(SettingsError, match="TELEGRAM_BOT_TOKEN"):
        settings(tmp_path, TELEGRAM_BOT_TOKEN="not-a-token")


def test_settings_come_from_an_env_file_and_blank_means_unset(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("REDIS_URL", "MULDVARP_PORT", "PORT", "MULDVARP_PREFIX"):
        monkeypatch.delenv(name, raising=False)
    env = tmp_path / ".env"
    env.write_text("REDIS_URL=\nPORT=9123\nMULDVARP_PREFIX=night1:\n")
    s = load_settings(env)
    assert s.redis_url is None and s.port == 9123 and s.redis_prefix == "night1:"
    monkeypatch.setenv("PORT", "9124")  # the environment wins over the file
    assert load_settings(env).port == 9124


def test_serve_refuses_to_start_on_bad_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from bots.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("REDIS_URL", "localhost:6379")
    assert main(["serve", "--port", "8123"]) == 2
    err = capsys.readouterr().err
    assert "invalid settings" in err and "REDIS_URL: must start with redis://" in err
    assert main(["serve", "--env-file", str(tmp_path / "missing.env")]) == 2


# -- channel wiring ---------------------------------------------------------------------


def test_channels_are_wired_only_when_configured(tmp_path: Path) -> None:
    polling = build_runtime(settings(tmp_path, TELEGRAM_BOT_TOKEN=TG_TOKEN))
    assert [(c.name, c.mode, c.routes) for c in polling.channels] == [("telegram", "polling", [])]
    full = build_runtime(
        settings(
            tmp_path,
            PUBLIC_BASE_URL="https://bots.example.org",
            TELEGRAM_BOT_TOKEN=TG_TOKEN,
            TELEGRAM_WEBHOOK_SECRET="s3cret",
            TWILIO_ACCOUNT_SID=SID,
            TWILIO_AUTH_TOKEN="tok",
            TWILIO_FROM="+4759440000",
        )
    )
    paths = {c.name: [getattr(r, "path", "") for r in c.routes] for c in full.channels}
    assert paths == {
        "telegram": ["/telegram/webhook"],
        "sms": ["/sms/twilio", "/sms/twilio/status"],
    }

    async def forge() -> list[int]:
        # No lifespan: starting the Telegram channel would call the Bot API.
        async with serving(full, lifespan=False) as c:
            body = b"From=%2B4790000000&Body=hi&MessageSid=SM1"
            sms = await c.post("/sms/twilio", content=body)
            tg = await c.post("/telegram/webhook", json={"update_id": 1})
            return [sms.status_code, tg.status_code]

    assert run(forge()) == [403, 403]
    run(polling.store.close())


@pytest.mark.telegram
def test_telegram_webhook_new_game_gets_a_working_tv_link(tmp_path: Path) -> None:
    """End to end through the app: the webhook is registered on start, a signed
    `/new station` makes a game, the host's reply carries a TV link on the
    public URL, and that link opens the game's page."""
    from tests.fake_telegram import TOKEN as FAKE_TOKEN
    from tests.fake_telegram import FakeBotApi, Users
    from tests.fake_telegram import serving as fake_api

    async def main() -> tuple[FakeBotApi, list[str], int, str, str | None]:
        async with fake_api(FakeBotApi()) as api:
            rt = runtime(
                tmp_path,
                PUBLIC_BASE_URL="https://bots.example.org",
                TELEGRAM_BOT_TOKEN=FAKE_TOKEN,
                TELEGRAM_WEBHOOK_SECRET="s3cret",
                TELEGRAM_API_BASE_URL=api.base_url,
            )
            async with serving(rt) as c:
                update = Users().command(42, "Hanne", "/new station")
                headers = {"X-Telegram-Bot-Api-Secret-Token": "s3cret"}
                r = await c.post("/telegram/webhook", json=update, headers=headers)
                assert r.status_code == 200
                deadline = time.monotonic() + 5
                while not any("/tv/" in t for t in api.texts(42)) and time.monotonic() < deadline:
                    await asyncio.sleep(0.02)
                texts = api.texts(42)
                link = next(w for t in texts for w in t.split() if "/tv/" in w)
                page = await c.get(link.removeprefix("https://bots.example.org"))
                game_id = await rt.store.whereis("tg:42")
                assert game_id is not None
                info = await rt.tv.join_info(game_id[0])
                url = None if info is None else info.telegram_url
                return api, texts, page.status_code, page.text, url

    api, texts, status, html, join_url = run(main())
    hooks = [c.params for c in api.calls if c.method == "setWebhook"]
    assert hooks and hooks[0]["url"] == "https://bots.example.org/telegram/webhook"
    assert hooks[0]["secret_token"] == "s3cret"
    assert any(t.startswith("https://bots.example.org/tv/") for t in " ".join(texts).split())
    assert status == 200
    # the lobby's join link (a QR code on the TV) names the bot, learnt at start
    assert join_url is not None and join_url.startswith("https://t.me/muldvarp_test_bot?start=")
    assert "<svg" in html


@pytest.mark.telegram
def test_telegram_polls_without_a_public_url(tmp_path: Path) -> None:
    """No PUBLIC_BASE_URL: the app reads Telegram by long polling (a laptop on a
    home network), and TV links point at where it listens."""
    from tests.fake_telegram import TOKEN as FAKE_TOKEN
    from tests.fake_telegram import FakeBotApi, Users
    from tests.fake_telegram import serving as fake_api

    async def main() -> tuple[FakeBotApi, list[str], dict[str, Any]]:
        async with fake_api(FakeBotApi()) as api:
            rt = runtime(
                tmp_path,
                MULDVARP_PORT="8099",
                TELEGRAM_BOT_TOKEN=FAKE_TOKEN,
                TELEGRAM_API_BASE_URL=api.base_url,
            )
            api.updates.append(Users().command(7, "Ola", "/new resistance"))
            health = await serve_until_tv_link(rt, api, 7)
            return api, api.texts(7), health

    api, texts, health = run(main())
    assert health["channels"] == {"telegram": "polling"}
    assert any(c.method == "getUpdates" for c in api.calls)
    assert not any(c.method == "setWebhook" for c in api.calls)
    assert "http://127.0.0.1:8099/tv/" in "\n".join(texts)


def test_env_example_and_operators_doc_cover_every_setting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """deploy/.env.example loads as it is (all blank: the defaults), names only
    real settings, and docs/operators.md documents every one of them."""
    root = Path(__file__).resolve().parent.parent
    example = root / "deploy" / ".env.example"
    names = {
        line.split("=", 1)[0]
        for line in example.read_text().splitlines()
        if line and not line.startswith("#")
    }
    known: set[str] = set()
    for f in Settings.model_fields.values():
        alias = f.validation_alias
        choices = getattr(alias, "choices", [alias])
        known.update(str(c) for c in choices)
    assert names <= known, names - known
    for name in names:
        monkeypatch.delenv(name, raising=False)
    s = load_settings(example)
    assert s.redis_url is None and not s.telegram_enabled and not s.sms_enabled
    doc = (root / "docs" / "operators.md").read_text()
    missing = [n for n in names if f"`{n}`" not in doc]
    assert not missing, missing


def test_a_laptop_game_night_gives_tv_links_a_tv_on_the_wifi_can_open(tmp_path: Path) -> None:
    """A laptop on home Wi-Fi: listening on every interface, Telegram by long
    polling (no public URL), and TV_BASE_URL (http allowed) naming the laptop's
    address on the network: the host's TV link says that address. Without it,
    the banner says what to set instead of handing out 127.0.0.1 silently."""
    from tests.fake_telegram import TOKEN as FAKE_TOKEN
    from tests.fake_telegram import FakeBotApi, Users
    from tests.fake_telegram import serving as fake_api

    lan = "http://192.168.1.20:8099"

    async def main() -> tuple[list[str], dict[str, Any]]:
        async with fake_api(FakeBotApi()) as api:
            rt = runtime(
                tmp_path,
                MULDVARP_HOST="0.0.0.0",
                MULDVARP_PORT="8099",
                TV_BASE_URL=lan + "/",
                TELEGRAM_BOT_TOKEN=FAKE_TOKEN,
                TELEGRAM_API_BASE_URL=api.base_url,
            )
            api.updates.append(Users().command(7, "Ola", "/new station"))
            health = await serve_until_tv_link(rt, api, 7)
            return api.texts(7), health

    texts, health = run(main())
    assert health["channels"] == {"telegram": "polling"}  # no webhook for a LAN address
    assert f"{lan}/tv/" in "\n".join(texts) and "127.0.0.1" not in "\n".join(texts)
    quiet = banner(
        build_runtime(settings(tmp_path / "a", MULDVARP_HOST="0.0.0.0", TV_BASE_URL=lan))
    )
    assert not any("TV_BASE_URL" in line for line in quiet)
    warned = banner(build_runtime(settings(tmp_path / "b", MULDVARP_HOST="0.0.0.0")))
    assert any("set TV_BASE_URL" in line for line in warned)
    with pytest.raises(SettingsError, match="TV_BASE_URL"):
        settings(tmp_path, TV_BASE_URL="192.168.1.20:8000")


def test_a_channel_that_cannot_start_leaves_the_rest_serving(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Telegram unreachable at start (no network here: a closed loopback port):
    the server still serves the TV and /healthz, which says the channel is down
    and why, in one log line per try, without a traceback; it is tried again."""
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]

    async def main() -> tuple[int, dict[str, Any], int]:
        rt = runtime(
            tmp_path,
            TELEGRAM_BOT_TOKEN=TG_TOKEN,
            TELEGRAM_API_BASE_URL=f"http://127.0.0.1:{closed}/bot",
        )
        async with serving(rt) as c:
            health = await c.get("/healthz")
            tv = await c.get("/tv/not-a-token")
            return health.status_code, health.json(), tv.status_code

    with caplog.at_level(logging.WARNING, logger="bots.app"):
        status, health, tv = run(main())
    assert status == 200 and tv == 404  # the store answers; the TV routes serve
    assert health["channels"]["telegram"] == "down"
    failures = [r for r in caplog.records if "could not start" in r.getMessage()]
    assert failures and all(r.exc_info is None for r in failures)
    assert all("\n" not in r.getMessage() for r in failures)


def test_a_failed_channel_start_is_retried_with_backoff() -> None:
    from bots.app import Channel, start_channel

    tries, waits = [0], []

    async def flaky() -> None:
        tries[0] += 1
        if tries[0] < 5:
            raise ConnectionError("no network")

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    channel = Channel("telegram", "polling", startup=flaky)
    assert channel.status() == "starting"
    run(asyncio.wait_for(start_channel(channel, first=20.0, sleep=sleep), timeout=5))
    assert tries == [5] and channel.up and channel.status() == "polling"
    assert waits == [20.0, 40.0, 60.0, 60.0]  # doubling, at most a minute
