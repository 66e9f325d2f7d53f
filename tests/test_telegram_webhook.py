"""The webhook route: forged updates are refused before anything happens, an
update is applied before it is acknowledged, and a redelivered `update_id` is
applied once, also after a restart (through the service's idempotency key)."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.store.sqlite_store import SqliteStore
from tests.fake_telegram import SECRET, FakeBotApi, Harness, serving
from tests.store_helpers import FakeClock, run
from tests.telegram_helpers import clocked_store, telegram_bot

pytestmark = pytest.mark.telegram


def test_a_forged_update_is_refused_with_403(tmp_path: Path) -> None:
    async def go() -> None:
        async with telegram_bot(tmp_path) as (api, h):
            update = h.users.command(1, "Hana", "/new station")
            assert await h.post(update, secret="wrong") == 403
            assert await h.post(update, secret="") == 403
            assert await h.post(update, secret="s3cret-webhook-token-but-longer") == 403
            await h.tg.settled()
            assert api.sent("sendMessage") == []
            assert await h.store.whereis("tg:1") is None
            assert await h.post(update) == 200  # the real secret
            assert await h.store.whereis("tg:1") is not None

    run(go())


def test_a_duplicate_update_is_applied_once_also_after_a_restart(tmp_path: Path) -> None:
    async def go() -> None:
        clock = FakeClock()
        path = str(tmp_path / "g.sqlite3")
        store = SqliteStore(path, clock=clock, synchronous="OFF")
        async with serving(FakeBotApi()) as api:
            async with Harness(api, store, clock) as h:
                code, game_id = await h.new(1, "station")
                join = h.users.command(11, "Ana", f"/join {code}")
                assert await h.post(join) == 200
                assert await h.post(join) == 200  # Telegram delivers it again
                await h.tg.settled()
                game = await h.service.load(game_id)
                assert game.players == ("tg:11",) and game.version == 1
                assert len(api.texts(11)) == 1  # the duplicate was not even answered
                # a second "new game" delivery returns the first game, no other
                new = h.users.command(2, "Ivo", "/new traitors")
                assert await h.post(new) == 200
                assert await h.post(new) == 200
            # a restarted worker (no memory of update ids) gets the same update again
            async with Harness(api, store, clock) as h2:
                before = len(await store.log(game_id))
                assert await h2.post(join) == 200
                await h2.tg.settled()
                game = await h2.service.load(game_id)
                assert game.players == ("tg:11",) and game.version == 1
                assert len(await store.log(game_id)) == before
                assert await h2.post(new) == 200
                await h2.tg.settled()
                codes = {t.split("start=")[1].split()[0] for t in api.texts(2) if "start=" in t}
                assert len(codes) == 1  # one game for one "new game" update
        await store.close()

    run(go())


def test_an_update_is_stored_before_it_is_acknowledged(tmp_path: Path) -> None:
    async def go() -> None:
        clock, store = clocked_store(tmp_path)
        async with serving(FakeBotApi()) as api, Harness(api, store, clock) as h:
            code, game_id = await h.new(1, "station")
            join = h.users.command(11, "Ana", f"/join {code}")
            # no waiting for the outbound queue: the 200 alone means it is stored
            assert await h.post(join) == 200
            assert await store.applied(game_id, f"tg:{join['update_id']}") == 1
            # a handler that fails answers 500, so that Telegram delivers it again
            await store.close()
            broken = h.users.command(12, "Bo", f"/join {code}")
            assert await h.post(broken) == 500

    run(go())


def test_a_button_press_is_answered_in_the_webhook_reply(tmp_path: Path) -> None:
    async def go() -> None:
        async with telegram_bot(tmp_path) as (api, h):
            message = {"message_id": 5, "date": 0, "chat": {"id": 11, "type": "private"}}
            headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET}
            # no game: the toast follows the user's Telegram language
            for lang, text in (
                ("sr", "To pitanje je već zatvoreno."),
                ("hr", "To pitanje je već zatvoreno."),
                ("nn", "Det spørsmålet er allerede avsluttet."),
                ("de", "That question has already closed."),
            ):
                press = h.users.press(11, "Ana", message, "a|nogame|3|0|vote|0||", lang=lang)
                reply = await h.http.post("/telegram/webhook", json=press, headers=headers)
                assert reply.status_code == 200
                assert reply.json() == {
                    "method": "answerCallbackQuery",
                    "callback_query_id": press["callback_query"]["id"],
                    "text": text,
                }
            await h.tg.settled()
            # the bot itself made no call (getMe and the menu are the start's): Telegram makes it
            assert {c.method for c in api.calls} == {"getMe", "setMyCommands"}
            assert h.tg.answers == {}

    run(go())


def test_polling_feeds_the_same_handlers(tmp_path: Path) -> None:
    async def go() -> None:
        import asyncio

        from adapters.telegram.webhook import build, start_polling, stop_polling
        from service.games import GameService
        from tests.fake_telegram import Users

        clock, store = clocked_store(tmp_path)
        async with serving(FakeBotApi()) as api:
            application, tg = build(
                api.token, GameService(store, clock=clock), base_url=api.base_url, polling=True
            )
            api.updates.append(Users().command(7, "Pia", "/new resistance"))
            await start_polling(application, tg)
            for _ in range(200):
                if api.texts(7):
                    break
                await asyncio.sleep(0.01)
            await stop_polling(application, tg)
            assert "start=" in api.texts(7)[0]
            assert any(c.method == "getUpdates" for c in api.calls)
            assert await store.whereis("tg:7") is not None
        await store.close()

    run(go())


def test_the_webhook_wiring_comes_from_the_settings(tmp_path: Path) -> None:
    async def go() -> None:
        from adapters.telegram.webhook import from_env
        from service.games import GameService

        clock, store = clocked_store(tmp_path)
        async with serving(FakeBotApi()) as api:
            service = GameService(store, clock=clock)
            assert from_env(service, {}) is None  # no token: no Telegram
            wired = from_env(
                service,
                {
                    "TELEGRAM_BOT_TOKEN": api.token,
                    "TELEGRAM_WEBHOOK_SECRET": "abc",
                    "PUBLIC_BASE_URL": "https://muldvarp.example/",
                    "TELEGRAM_API_BASE_URL": api.base_url,
                },
            )
            assert wired is not None
            await wired.startup()
            await wired.shutdown()
            hook = api.sent("setWebhook")
            assert len(hook) == 1
            assert hook[0].params["url"] == "https://muldvarp.example/telegram/webhook"
            assert hook[0].params["secret_token"] == "abc"
            assert [r.path for r in wired.routes] == ["/telegram/webhook"]
        await store.close()

    run(go())
