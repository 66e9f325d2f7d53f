"""Games for the console's tests (tests/test_console*.py): the whole app
(`bots.app`) over an embedded store, with games of each kind made and started
through the game service, and a console link for their host."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import uvicorn

from adapters.console.app import Console
from bench.loopback import free_port
from bots.app import Runtime, build_runtime, create_app
from bots.settings import load_settings
from gameflow.core import actions as A
from gameflow.core.state import Game

T = TypeVar("T")
HOST = "tg:1"
PLAYERS = {"station": 5, "resistance": 5, "traitors": 6}
NAMES = ("Ana", "Bo", "Cy", "Dag", "Eli", "Fred", "Gro", "Hal")


def runtime(
    tmp: Path, *, clock: Callable[[], float] = time.time, keepalive: float | None = None
) -> Runtime:
    """The app's runtime without channels; `keepalive`: the console's stream
    ticks this often (a rotated link goes dark within it)."""
    settings = load_settings(None, DATA_DIR=str(tmp / "data"), TV_POLL_SECONDS=0.2)
    rt = build_runtime(settings, clock=clock, channels=False)
    if keepalive is not None:
        rt.console = Console(rt.service, rt.tv.changes, keepalive=keepalive)
    return rt


async def made(
    rt: Runtime,
    kind: str,
    *,
    start: bool = True,
    host_plays: bool = False,
    names: tuple[str, ...] = NAMES,
    setup: dict[str, Any] | None = None,
) -> Game:
    """A game of `kind` with its fewest players (the host among them when
    `host_plays`), started unless `start` is False."""
    made = await rt.service.create_game(kind, HOST, lang="en", seed=f"console-{kind}", setup=setup)
    game = made.game
    count = PLAYERS[kind]
    ids = [HOST] if host_plays else []
    ids += [f"tg:{100 + i}" for i in range(count - len(ids))]
    for pid, name in zip(ids, names, strict=False):
        out = await rt.service.submit(game.id, A.Join(pid, None, name))
        assert out.accepted, out.rejected
        game = out.game
    if start:
        out = await rt.service.submit(game.id, A.Start(HOST))
        assert out.accepted, out.rejected
        game = out.game
    return game


def path_of(link: str) -> str:
    """The link's path (the tests' server is on another address than the link's)."""
    return "/console/" + link.split("/console/", 1)[1]


class Served:
    """The app on a real uvicorn on loopback, in a thread of its own; `run`
    runs a coroutine on the server's loop (the store is bound to it)."""

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        self.port = free_port()
        config = uvicorn.Config(
            create_app(rt), host="127.0.0.1", port=self.port, log_level="warning", lifespan="on"
        )
        self.server = uvicorn.Server(config)
        self.loop: asyncio.AbstractEventLoop | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _run(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.loop.run_until_complete(self.server.serve())
        self.loop.close()

    def run(self, coro: Awaitable[T]) -> T:
        assert self.loop is not None

        async def wrapped() -> T:
            return await coro

        return asyncio.run_coroutine_threadsafe(wrapped(), self.loop).result(10)

    def load(self, game_id: str) -> Game:
        game = self.run(self.rt.store.load(game_id))
        assert game is not None
        return game

    def __enter__(self) -> Served:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(10)


class Clock:
    """The service's clock in a test: real time plus what the test skipped."""

    def __init__(self) -> None:
        self.skipped = 0.0

    def __call__(self) -> float:
        return time.time() + self.skipped


async def until_phase(rt: Runtime, clock: Clock, game_id: str, phases: tuple[str, ...]) -> Game:
    """Let deadlines run out (the clock skips to each) until one of `phases`."""
    for _ in range(40):
        game = await rt.store.load(game_id)
        assert game is not None
        if game.phase.name in phases:
            return game
        deadline = game.phase.deadline
        assert deadline is not None, game.phase
        clock.skipped += max(0.0, deadline - clock()) + 1
        await rt.service.submit(game_id, A.Deadline(None, game.phase.seq))
    raise AssertionError(f"never reached {phases}")
