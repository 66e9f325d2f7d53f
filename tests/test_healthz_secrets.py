"""`/healthz` is public (load balancers, container checks): it names the parts
and their states, never a reason. An exception's text may carry the store's
address or, from the Bot API's URL, the whole bot token; that goes to the log,
through the scrubber (bots/logsafe.py), once per outage."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from bots import logsafe
from bots.app import Channel, build_runtime, create_app
from bots.settings import load_settings
from tests.store_helpers import run

TG_TOKEN = "123456:" + "A" * 35


class Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@pytest.fixture
def app_log() -> Iterator[Lines]:
    """What `muldvarp.app` logs, through the scrubber `serve` installs."""
    logger = logging.getLogger("muldvarp.app")
    handler, level = Lines(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logsafe.install([TG_TOKEN], logger)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def test_a_channel_that_fails_with_its_token_in_the_error_shows_only_down(
    tmp_path: Path, app_log: Lines
) -> None:
    async def refuse() -> None:  # what PTB raised for a base URL without /bot
        raise ValueError(f"Invalid port: '1/{TG_TOKEN}'")

    async def main() -> httpx.Response:
        s = load_settings(None, DATA_DIR=str(tmp_path / "data"))
        rt = build_runtime(s)
        rt.channels.append(Channel("telegram", "polling", startup=refuse))
        app = create_app(rt)
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
                return await c.get("/healthz")

    r = run(main())
    assert r.status_code == 200 and r.json()["channels"] == {"telegram": "down"}
    assert "AAAA" not in r.text and "Invalid port" not in r.text
    said = [line for line in app_log.lines if "could not start" in line]
    assert said and "Invalid port" in said[0]  # the reason is in the log ...
    assert all("AAAA" not in line for line in app_log.lines)  # ... redacted


def test_a_store_that_does_not_answer_is_503_with_its_name_and_said_once(
    tmp_path: Path, app_log: Lines
) -> None:
    async def main() -> list[tuple[int, str]]:
        rt = build_runtime(load_settings(None, DATA_DIR=str(tmp_path / "data")))
        good = rt.store.load
        down = [True]

        async def load(game_id: str) -> Any:
            if down[0]:
                raise ConnectionError("Error 111 connecting to 127.0.0.1:6380. Connection refused.")
            return await good(game_id)

        rt.store.load = load  # type: ignore[method-assign]
        app = create_app(rt)
        out = []
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
                for _ in range(3):
                    r = await c.get("/healthz")
                    out.append((r.status_code, r.text))
                down[0] = False
                r = await c.get("/healthz")
                out.append((r.status_code, r.text))
        return out

    answers = run(main())
    assert [a[0] for a in answers] == [503, 503, 503, 200]
    assert all("6380" not in text and "Error 111" not in text for _, text in answers)
    assert httpx.Response(503, text=answers[0][1]).json() == {
        "ok": False,
        "store": "sqlite",
        "error": "store down",
    }
    told = [line for line in app_log.lines if "store:" in line]
    assert len(told) == 2 and "Error 111" in told[0] and "answering again" in told[1]
