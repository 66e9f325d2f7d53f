"""Open TV streams end when the server stops (`serve` and `demo --tv`).

A TV page holds a Server-Sent Events stream open for as long as it is shown.
At shutdown uvicorn waits for open responses until its grace time is out (10 s
for `serve`) and then cancels them, with a traceback per TV in the log; a
restart of the server behind a TV would cost ten seconds and a screenful of
log each time. `EndStreams` answers every stream's wait for the viewer with
"disconnected" as soon as uvicorn is told to exit, so streams end at once and
cleanly (the TV's script reconnects to the next server by itself).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send


def is_stream(scope: Scope) -> bool:
    """A TV page's event stream (`/tv/<token>/events`)."""
    path = str(scope.get("path", ""))
    return path.startswith("/tv/") and path.endswith("/events")


class EndStreams:
    """The app behind a switch that ends its open responses when the server stops.

    A TV page holds an event stream open, and uvicorn lets a stream run on at
    shutdown until its grace time is out, then cancels it with a traceback in
    the log. On `close()` every waiting `receive()` answers "disconnected", which
    Starlette's streaming response takes as the viewer having left, and the
    response's body is then ended here."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.closing = asyncio.Event()

    def close(self) -> None:
        self.closing.set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not is_stream(scope):
            # webhooks and pages finish as uvicorn lets them: never cut short
            await self.app(scope, receive, send)
            return

        async def receive_or_close() -> Message:
            if self.closing.is_set():
                return {"type": "http.disconnect"}
            got = asyncio.ensure_future(receive())
            closed = asyncio.ensure_future(self.closing.wait())
            await asyncio.wait({got, closed}, return_when=asyncio.FIRST_COMPLETED)
            closed.cancel()
            if got.done():
                return got.result()
            got.cancel()
            return {"type": "http.disconnect"}

        started = ended = False

        async def send_and_see(message: Message) -> None:
            nonlocal started, ended
            started = started or message["type"] == "http.response.start"
            ended = message["type"] == "http.response.body" and not message.get("more_body")
            await send(message)

        await self.app(scope, receive_or_close, send_and_see)
        if self.closing.is_set() and started and not ended:
            # the stream was cut short: end its body, so the viewer sees a
            # finished response and uvicorn an answered request
            with contextlib.suppress(Exception):
                await send({"type": "http.response.body", "body": b"", "more_body": False})


async def end_streams_on_exit(server: Any, app: EndStreams) -> None:
    """uvicorn takes Ctrl-C and SIGTERM itself (it sets `should_exit`); follow it."""
    while not server.should_exit:
        await asyncio.sleep(0.05)
    app.close()


def run(server: Any, app: EndStreams) -> None:
    """`server.run()`, with the streams of `app` ended as soon as it is told to stop."""

    async def main() -> None:
        ending = asyncio.create_task(end_streams_on_exit(server, app))
        try:
            await server.serve()
        finally:
            app.close()
            ending.cancel()

    with asyncio.Runner(loop_factory=server.config.get_loop_factory()) as runner:
        runner.run(main())
