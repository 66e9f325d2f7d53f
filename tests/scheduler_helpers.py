"""What the scheduler tests on the real service and stores share: the wall
clock frozen at T0 (`clock`, a fixture to move it), a poll `until` the worker
threads and the loop have done their part, and a sink no job may reach."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Iterator

import pytest
import time_machine

from tests.store_helpers import T0


@pytest.fixture
def clock() -> Iterator[time_machine.Coordinates]:
    with time_machine.travel(T0, tick=False) as traveller:
        yield traveller


async def until(check: Callable[[], object], timeout: float = 5.0) -> None:
    """Poll `check` (plain or a coroutine function) until it holds, while the
    store's thread (or Redis) and the loop make progress."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        done = check()
        if inspect.isawaitable(done):
            done = await done
        if done:
            return
        assert loop.time() < end, "timed out"
        await asyncio.sleep(0.005)


class NoSink:
    """A scheduler's sink where nothing may fall due."""

    async def submit_deadline(self, game_id: str, phase_seq: int, key: str) -> None:
        raise AssertionError("nothing is due here")

    async def send_reminder(self, game_id: str, phase_seq: int, seats: tuple[int, ...]) -> None:
        raise AssertionError("nothing is due here")
