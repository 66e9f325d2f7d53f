"""One reader of a game's change feed, however many TVs watch it.

Each watched game gets a `Hub`: a single pump task reads the source's change
feed, renders the screen once per version, and wakes every viewer at once; it
also ticks every `keepalive` seconds so that viewers send a keep-alive and
re-check their token. A viewer's work per change is then one wake-up and one
write of bytes shared by all viewers. The hub stops when its last viewer leaves.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable

from gameflow.core.state import Game

Render = Callable[[Game], Awaitable[tuple[str, bytes]]]
"""A game -> (its screen, its SSE frame): the screen compares versions, the
frame is what viewers are sent."""


class Hub:
    def __init__(self, game: Game, screen: str, frame: bytes) -> None:
        self.version = game.version
        self.screen = screen
        self.frame = frame
        self.tick = 0
        self.gone = False
        self.viewers = 0
        self.event = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    def ring(self) -> None:
        event, self.event = self.event, asyncio.Event()
        event.set()


class Fanout:
    def __init__(
        self,
        changes: Callable[[str, int], AsyncIterator[Game]],
        render: Render,
        keepalive: float,
    ) -> None:
        self.changes = changes
        self.render = render
        self.keepalive = keepalive
        self.hubs: dict[str, Hub] = {}

    async def join(self, game: Game) -> Hub:
        """The hub of `game`'s id (started with `game` if there is none)."""
        hub = self.hubs.get(game.id)
        if hub is None or hub.gone:
            screen, frame = await self.render(game)
            hub = self.hubs.get(game.id)  # another viewer may have started it meanwhile
            if hub is None or hub.gone:
                hub = Hub(game, screen, frame)
                self.hubs[game.id] = hub
                hub.task = asyncio.create_task(self._pump(game.id, hub))
        hub.viewers += 1
        return hub

    def leave(self, game_id: str, hub: Hub) -> None:
        hub.viewers -= 1
        if hub.viewers <= 0 and self.hubs.get(game_id) is hub:
            del self.hubs[game_id]
            if hub.task is not None:
                hub.task.cancel()

    async def _pump(self, game_id: str, hub: Hub) -> None:
        feed = aiter(self.changes(game_id, hub.version))
        pending: asyncio.Future[Game] | None = None
        try:
            while True:
                if pending is None:
                    pending = asyncio.ensure_future(anext(feed))
                done, _ = await asyncio.wait({pending}, timeout=self.keepalive)
                if not done:
                    hub.tick += 1
                    hub.ring()
                    continue
                task, pending = pending, None
                try:
                    game = task.result()
                except StopAsyncIteration:
                    hub.gone = True
                    hub.ring()
                    return
                screen, frame = await self.render(game)
                hub.version = game.version
                if screen != hub.screen:
                    hub.screen, hub.frame = screen, frame
                    hub.ring()
        finally:
            if pending is not None:
                pending.cancel()
                with contextlib.suppress(asyncio.CancelledError, StopAsyncIteration):
                    await pending
            aclose = getattr(feed, "aclose", None)
            if aclose is not None:
                await aclose()
