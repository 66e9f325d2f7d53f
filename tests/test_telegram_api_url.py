"""`TELEGRAM_API_BASE_URL` works with or without the `/bot` the official URL
ends in (a self-hosted Bot API server is usually given as its origin), and
anything that is not an http(s) URL stops `serve` at start with the form it
wants, instead of a channel retrying forever on a URL the client cannot use."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from bots.app import build_runtime, create_app
from bots.settings import SettingsError, load_settings
from tests.store_helpers import run

pytestmark = pytest.mark.telegram


@pytest.mark.parametrize(
    ("given", "held"),
    [
        ("http://127.0.0.1:8081", "http://127.0.0.1:8081/bot"),
        ("http://127.0.0.1:8081/", "http://127.0.0.1:8081/bot"),
        ("http://127.0.0.1:8081/bot", "http://127.0.0.1:8081/bot"),
        ("https://api.telegram.org/bot/", "https://api.telegram.org/bot"),
        ("https://tg.example.org/api", "https://tg.example.org/api/bot"),
    ],
)
def test_the_bot_api_url_is_held_in_one_form(given: str, held: str) -> None:
    assert load_settings(None, TELEGRAM_API_BASE_URL=given).telegram_api_base_url == held


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("127.0.0.1:8081", "must be an http(s) URL such as http://127.0.0.1:8081"),
        ("ftp://127.0.0.1:8081", "must be an http(s) URL"),
        ("http://127.0.0.1:notaport", "must be an http(s) URL"),
        ("http://127.0.0.1:8081/bot123456:ABCDEFG", "without the token"),
        ("http://127.0.0.1:8081/?x=1", "without a query"),
    ],
)
def test_a_bot_api_url_the_client_cannot_use_stops_the_start(given: str, said: str) -> None:
    with pytest.raises(SettingsError) as caught:
        load_settings(None, TELEGRAM_API_BASE_URL=given)
    assert [p for p in caught.value.problems if p.startswith("TELEGRAM_API_BASE_URL: ")]
    assert said in str(caught.value) and "ABCDEFG" not in str(caught.value)


def test_polling_works_against_a_bot_api_given_by_its_origin(tmp_path: Path) -> None:
    """The fake Bot API given as http://127.0.0.1:PORT, no /bot: the bot polls
    it and answers a player (before, every call went to a URL with the token in
    the port's place, and the channel retried forever)."""
    from tests.fake_telegram import TOKEN, FakeBotApi, Users, serving

    async def main() -> tuple[dict[str, Any], list[str]]:
        async with serving(FakeBotApi()) as api:
            settings = load_settings(
                None,
                DATA_DIR=str(tmp_path / "data"),
                TELEGRAM_BOT_TOKEN=TOKEN,
                TELEGRAM_API_BASE_URL=f"http://127.0.0.1:{api.port}",
            )
            rt = build_runtime(settings)
            api.updates.append(Users().command(7, "Ola", "/new station"))
            app = create_app(rt)
            async with app.router.lifespan_context(app):
                transport = httpx.ASGITransport(app=app)
                async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
                    health = (await c.get("/healthz")).json()
                deadline = time.monotonic() + 5
                while not api.texts(7) and time.monotonic() < deadline:
                    await asyncio.sleep(0.02)
            return health, api.texts(7)

    health, texts = run(main())
    assert health["channels"] == {"telegram": "polling"}
    assert texts  # the host was answered
