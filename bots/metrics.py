"""The app's Prometheus metrics: their registry, the game service that counts
inputs and games made, and the middleware that counts requests by area.

Apart from the app (bots/app.py) so its wiring stays under 500 lines; the app
builds its runtime and app with them.
"""

from __future__ import annotations

import time
from typing import Any

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    PlatformCollector,
    ProcessCollector,
)
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gameflow.core import actions as A
from gameflow.core.events import Event
from gameflow.core.state import Game
from service.compose import Origin
from service.games import Created, GameService, Outcome
from service.ports import GameStore


class Metrics:
    """The app's Prometheus metrics, in a registry of its own (several apps in
    one test process must not collide in the global one)."""

    def __init__(self) -> None:
        self.registry = r = CollectorRegistry()
        ProcessCollector(registry=r)
        PlatformCollector(registry=r)
        self.inputs = Counter(
            "muldvarp_inputs", "Inputs submitted to the game service", ["outcome"], registry=r
        )
        self.input_seconds = Histogram(
            "muldvarp_input_seconds", "Time to apply and store one input", registry=r
        )
        self.attempts = Counter(
            "muldvarp_commit_attempts", "Commit attempts (more than inputs: contention)", registry=r
        )
        self.events = Counter(
            "muldvarp_events", "Events of committed transitions", ["kind"], registry=r
        )
        self.games_created = Counter("muldvarp_games_created", "Games created", registry=r)
        self.games_active = Gauge("muldvarp_games_active", "Games not finished", registry=r)
        self.tv_viewers = Gauge("muldvarp_tv_viewers", "Open TV event streams", registry=r)
        self.requests = Counter(
            "muldvarp_http_requests", "HTTP requests", ["area", "status"], registry=r
        )
        self.request_seconds = Histogram(
            "muldvarp_http_request_seconds", "HTTP request time to first byte", ["area"], registry=r
        )
        self.leader = Gauge(
            "muldvarp_scheduler_leader", "1 while this process fires deadlines", registry=r
        )

    async def notify(self, game: Game, events: tuple[Event, ...]) -> None:
        for e in events:
            self.events.labels(e.kind.name.lower()).inc()


class MeteredService(GameService):
    """The game service, counting every input by outcome and every game made
    (from any channel: Telegram, SMS and the internal routes all create here)."""

    def __init__(self, store: GameStore, metrics: Metrics, **kwargs: Any) -> None:
        super().__init__(store, **kwargs)
        self.metrics = metrics

    async def create_game(self, kind: str, host: str, **kwargs: Any) -> Created:
        made = await super().create_game(kind, host, **kwargs)
        if not made.duplicate:  # a redelivered "new game" made nothing new
            self.metrics.games_created.inc()
        return made

    async def _in_turn(
        self, game_id: str, action: A.Action, key: str | None, origin: Origin | None
    ) -> Outcome:
        started = time.perf_counter()  # the wait for the game's turn counts too
        try:
            out = await super()._in_turn(game_id, action, key, origin)
        except Exception:
            self.metrics.inputs.labels("error").inc()
            raise
        self.metrics.input_seconds.observe(time.perf_counter() - started)
        self.metrics.attempts.inc(out.attempts)
        kind = "duplicate" if out.duplicate else "rejected" if out.rejected else "accepted"
        self.metrics.inputs.labels(kind).inc()
        return out


class HttpMetrics:
    """Counts requests by area (the first path segment: never a token)."""

    AREAS = frozenset({"tv", "console", "telegram", "sms", "internal", "healthz", "metrics"})

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        head = scope["path"].strip("/").split("/", 1)[0]
        area = head if head in self.AREAS else "other"
        started = time.perf_counter()
        status = [500]

        async def counted(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = int(message["status"])
                self.metrics.request_seconds.labels(area).observe(time.perf_counter() - started)
            await send(message)

        try:
            await self.app(scope, receive, counted)
        finally:
            self.metrics.requests.labels(area, str(status[0])).inc()
