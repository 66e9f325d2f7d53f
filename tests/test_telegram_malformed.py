"""Malformed Telegram updates (issue #35, item 2).

With the right secret, `{"update_id": 12, "message": "hi"}` (AttributeError in
PTB's parser), `{"update_id": 13, "message": {}}` (KeyError `date`) and a JSON
nested 100,000 deep (RecursionError) used to answer 500, and their update_id had
been remembered as seen before the update was parsed, so the same update_id
sent again got 200 and was never processed. Now each is answered 400 without a
traceback and forgotten: a well-formed update with that id is handled. An update
whose handling fails is not remembered either, so Telegram's redelivery is.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from adapters.telegram.webhook import MAX_DEPTH, too_deep
from tests.fake_telegram import SECRET
from tests.store_helpers import run
from tests.telegram_helpers import telegram_bot

pytestmark = pytest.mark.telegram

HEADERS = {"X-Telegram-Bot-Api-Secret-Token": SECRET, "Content-Type": "application/json"}


def nested(update_id: int, depth: int) -> bytes:
    head = b'{"update_id": %d, "message": ' % update_id
    return head + b"[" * depth + b"]" * depth + b"}"


MALFORMED: list[tuple[int, bytes]] = [
    (12, b'{"update_id": 12, "message": "hi"}'),
    (13, b'{"update_id": 13, "message": {}}'),
    (14, nested(14, 100_000)),
    (17, nested(17, MAX_DEPTH + 1)),  # within the JSON parser's depth, past ours
    (15, b'{"update_id": 15, "callback_query": {"id": "1"}}'),
    (16, b'{"update_id": 16, "message": {"message_id": 1, "date": 0, "chat": "x"}}'),
]


def test_a_malformed_update_gets_400_and_its_id_is_not_swallowed(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async def go() -> None:
        async with telegram_bot(tmp_path) as (api, h):
            for update_id, body in MALFORMED:
                for _ in range(2):  # and the same again: refused again, not "seen"
                    answer = await h.http.post("/telegram/webhook", content=body, headers=HEADERS)
                    assert answer.status_code == 400, (update_id, answer.status_code)
                # the update with that id, well-formed this time, is handled
                uid = 100 + update_id + len(api.calls)  # a new host each time
                good = h.users.command(uid, "Hana", "/new station")
                good["update_id"] = update_id
                assert await h.post(good) == 200
                await h.tg.settled()
                assert await h.store.whereis(f"tg:{uid}") is not None, update_id
                assert "start=" in api.texts(uid)[-1]

    with caplog.at_level(logging.WARNING):
        run(go())
    assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"


def test_what_is_no_update_at_all_gets_400(tmp_path: Path) -> None:
    async def go() -> None:
        async with telegram_bot(tmp_path) as (api, h):
            bodies: list[Any] = [
                b"not json",
                b"[]",
                b'"update"',
                {"message": {}},
                {"update_id": "12"},
                {"update_id": True},
                {"update_id": -1},
                {"update_id": 1.5},
            ]
            for body in bodies:
                content = body if isinstance(body, bytes) else json.dumps(body).encode()
                answer = await h.http.post("/telegram/webhook", content=content, headers=HEADERS)
                assert answer.status_code == 400, body
                assert answer.text  # says why
            await h.tg.settled()
            assert api.sent("sendMessage") == []

    run(go())


def test_an_update_whose_handling_failed_is_handled_when_delivered_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async def go() -> None:
        async with telegram_bot(tmp_path) as (api, h):
            create = h.service.create_game
            calls = [0]

            async def fails_once(*args: Any, **kw: Any) -> Any:
                calls[0] += 1
                if calls[0] == 1:
                    raise ConnectionError("the store did not answer")
                return await create(*args, **kw)

            h.service.create_game = fails_once  # type: ignore[method-assign]
            new = h.users.command(1, "Hana", "/new station")
            assert await h.post(new) == 500  # not acknowledged: Telegram delivers it again
            assert await h.store.whereis("tg:1") is None
            assert await h.post(new) == 200
            await h.tg.settled()
            assert await h.store.whereis("tg:1") is not None
            assert "start=" in api.texts(1)[-1]
            assert await h.post(new) == 200  # handled now: a third delivery is skipped
            assert calls[0] == 2

    with caplog.at_level(logging.CRITICAL, logger="adapters.telegram.handlers"):
        run(go())


def test_depth_is_measured_without_recursion() -> None:
    deep: Any = []
    for _ in range(10_000):
        deep = [deep]
    assert too_deep(deep)
    assert too_deep({"a": [{"b": {}}]}, limit=3)
    assert not too_deep({"a": [{"b": {}}]}, limit=4)
    assert not too_deep({"update_id": 1, "message": {"chat": {"id": 1}}})
