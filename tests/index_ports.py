"""A `--ports` factory for scheduler processes in tests: the real Redis store
and game service (`bots.scheduler.redis_service`) seen through a
deadline index window of `WINDOW` seconds, so that a test lasting seconds shows
games coming into the window (the runner's own look-ahead is 15 minutes)."""

from __future__ import annotations

import time
from typing import Any

from bots.scheduler import redis_service
from gameflow.core.state import Game
from scheduler.service_ports import ServiceSink, StoreSource
from service.ports import Due

WINDOW = 1.0


class Narrow:
    def __init__(self, source: StoreSource) -> None:
        self.source = source

    async def due(self, until: float) -> list[Due]:
        return list(await self.source.due(min(until, time.time() + WINDOW)))

    async def load(self, game_id: str) -> Game | None:
        return await self.source.load(game_id)


def narrow(redis: Any, prefix: str) -> tuple[Narrow, ServiceSink]:
    source, sink = redis_service(redis, prefix)
    return Narrow(source), sink
