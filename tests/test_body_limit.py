"""`adapters.bodylimit.BodyLimit` in process: what reaches the route and what
does not (the real server's side is tests/test_serve_body_limit.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
from starlette.types import Message, Receive, Scope, Send

from adapters.bodylimit import BodyLimit
from tests.store_helpers import run


class Echo:
    """A route that reads the whole body and answers it back."""

    def __init__(self) -> None:
        self.calls = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.calls += 1
        body, more = b"", True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": body})


def client(app: BodyLimit) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://m.test")


async def pieces(n: int, size: int) -> AsyncIterator[bytes]:
    for _ in range(n):
        yield b"x" * size


def test_limits_are_per_path_and_a_body_within_reaches_the_route_unchanged() -> None:
    async def go() -> None:
        echo = Echo()
        app = BodyLimit(echo, limits=[("/small/", 10), ("/", 100)], default=1)
        assert app.limit_for("/small/x") == 10 and app.limit_for("/big") == 100
        async with client(app) as http:
            answer = await http.post("/small/x", content=b"0123456789")
            assert answer.status_code == 200 and answer.content == b"0123456789"
            answer = await http.post("/small/x", content=b"0123456789!")
            assert answer.status_code == 413 and answer.text == "request body too large"
            assert answer.headers["connection"] == "close"
            assert echo.calls == 1  # the route never saw the oversized one
            # chunked (no Content-Length): counted as it arrives
            answer = await http.post("/big", content=pieces(10, 10))
            assert answer.status_code == 200 and answer.content == b"x" * 100
            answer = await http.post("/big", content=pieces(11, 10))
            assert answer.status_code == 413
            assert echo.calls == 2
            # no body at all: passed straight on
            assert (await http.get("/small/x")).status_code == 200
            assert echo.calls == 3

    run(go())


def test_a_bad_content_length_is_400_and_a_client_that_leaves_reaches_nothing() -> None:
    async def go() -> None:
        echo = Echo()
        app = BodyLimit(echo, limits=[], default=100)
        sent: list[Message] = []

        async def send(message: Message) -> None:
            sent.append(message)

        async def nothing() -> Message:
            return {"type": "http.request", "body": b"", "more_body": False}

        scope: Scope = {
            "type": "http",
            "method": "POST",
            "path": "/",
            "headers": [(b"content-length", b"-5")],
        }
        await app(scope, nothing, send)
        assert sent[0]["status"] == 400 and sent[1]["body"] == b"bad Content-Length"
        sent.clear()
        messages: list[Message] = [
            {"type": "http.request", "body": b"abc", "more_body": True},
            {"type": "http.disconnect"},
        ]

        async def leaves() -> Message:
            return messages.pop(0)

        scope["headers"] = [(b"transfer-encoding", b"chunked")]
        await app(scope, leaves, send)
        assert sent == [] and echo.calls == 0

    run(go())
