"""A status page served by a real uvicorn on 127.0.0.1, in a background thread.

For tests, screenshots and the benchmark: `with LoopbackServer(source) as srv:`
gives `srv.url(token)` and `srv.publish(game)`, which hands the new version to
the server's event loop thread-safely (the source's wake-up is not thread-safe).
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any

import uvicorn

from adapters.tv import logfilter
from adapters.tv.app import create_app
from adapters.tv.source import JoinInfo, MemorySource
from gameflow.core.state import Game


def _new_loop() -> asyncio.AbstractEventLoop:
    """uvloop's loop when installed (as uvicorn itself would pick), else asyncio's."""
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop()
    loop: asyncio.AbstractEventLoop = uvloop.new_event_loop()
    return loop


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class LoopbackServer:
    def __init__(
        self,
        source: MemorySource,
        *,
        clock: Callable[[], float] = time.time,
        keepalive: float = 15.0,
        log_config: dict[str, Any] | None = None,
    ) -> None:
        self.source = source
        self.port = free_port()
        self.app = create_app(source, clock=clock, keepalive=keepalive)
        config = uvicorn.Config(
            self.app,
            host="127.0.0.1",
            port=self.port,
            log_level="info",
            access_log=True,
            log_config=log_config,
            lifespan="off",
        )
        self.server = uvicorn.Server(config)
        self.loop: asyncio.AbstractEventLoop | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, token: str, suffix: str = "") -> str:
        return f"{self.base}/tv/{token}{suffix}"

    def _run(self) -> None:
        self.loop = _new_loop()
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self._serve())
        self.loop.close()

    async def _serve(self) -> None:
        logfilter.install()
        await self.server.serve()

    def publish(self, game: Game, info: JoinInfo | None = None) -> None:
        """Publish from the test's thread; returns once the loop has done it."""
        assert self.loop is not None
        done = threading.Event()

        def run() -> None:
            self.source.publish(game, info)
            done.set()

        self.loop.call_soon_threadsafe(run)
        if not done.wait(5):
            raise TimeoutError("the server loop did not take the new version")

    def call(self, fn: Callable[[], Any]) -> Any:
        """Run `fn` on the server's loop (e.g. a revocation) and return its value."""
        assert self.loop is not None
        out: list[Any] = []
        done = threading.Event()

        def run() -> None:
            out.append(fn())
            done.set()

        self.loop.call_soon_threadsafe(run)
        if not done.wait(5):
            raise TimeoutError("the server loop did not answer")
        return out[0]

    def __enter__(self) -> LoopbackServer:
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.02)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.server.should_exit = True
        self._thread.join(10)
