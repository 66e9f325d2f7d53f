"""The one ASGI app: health, metrics, TV pages and the chat channels' webhooks.

`build_runtime(settings)` opens the store and makes the game service with its
notifier ports (the TV page's bell, metrics, and each configured channel);
`create_app(runtime)` puts their routes into one Starlette app whose lifespan
starts and stops the channels and any background work (the scheduler, given by
`bots.serve`). Routes:

- `GET /healthz`: 200 when the store answers, 503 otherwise (load balancers);
- `GET /metrics`: Prometheus text format, one registry per app;
- `/tv/<token>`: the status page, read from the store (`StoreSource`);
- `/story/<token>`: an ended game's story (adapters/story), by the TV link's token;
- `/console/<token>`: the game master's console (adapters/console), the host's alone;
- `/telegram/webhook`, `/sms/twilio`, `/sms/twilio/status`: when configured;
- `/internal/...`: only with `MULDVARP_INTERNAL_TOKEN` (see `bots.internal`).

The channels are optional and wired lazily by the two functions marked
"channel wiring" below: a deployment without Telegram never imports PTB, one
without Twilio never imports twilio.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from adapters.bodylimit import BodyLimit
from adapters.console.app import Console
from adapters.story import StoryPage
from adapters.tv.app import StatusPage
from adapters.tv.store_source import StoreSource
from bots.metrics import HttpMetrics, MeteredService, Metrics
from bots.settings import Settings
from gameflow.core.state import Game
from scheduler.plan import next_instant
from service.backoff import Backoff
from service.ports import GameStore

if TYPE_CHECKING:
    from adapters.ratelimit import Limiter
    from adapters.sms.directory import Directory

log = logging.getLogger("muldvarp.app")


class Background(Protocol):
    """Work that lives as long as the app: started after the channels."""

    name: str

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    def status(self) -> str: ...


@dataclass
class Channel:
    """A chat channel: its routes, its lifespan hooks, and whether it is up.

    A channel that fails to start (no network, a rejected token) must not take
    the server down with it: SMS and the TV keep serving while it is retried
    with backoff (`run_channel`), one log line per failure, and `/healthz`
    says it is down."""

    name: str
    mode: str  # "webhook" or "polling"
    routes: list[BaseRoute] = field(default_factory=list)
    startup: Callable[[], Awaitable[None]] | None = None
    shutdown: Callable[[], Awaitable[None]] | None = None
    up: bool = False
    problem: str = "starting"

    def status(self) -> str:
        """What /healthz says: the mode when up, "starting" before the first
        try ended, else "down". Never the problem itself: an exception's text
        may carry a token or an address (it goes to the log, redacted)."""
        if self.up:
            return self.mode
        return "starting" if self.problem == "starting" else "down"


RETRY_FIRST = 1.0  # seconds before a failed channel start is tried again
RETRY_MAX = 60.0  # the backoff doubles up to this


async def start_channel(
    channel: Channel,
    *,
    first: float = RETRY_FIRST,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> None:
    """Start `channel`, trying again with doubling waits until it starts (a task
    of its own: the app serves meanwhile). Each failure is one log line."""
    backoff = Backoff(first, RETRY_MAX)
    while True:
        try:
            if channel.startup is not None:
                await channel.startup()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            channel.problem = f"{type(exc).__name__}: {exc}"[:200]
            delay = backoff.failed()
            log.warning(
                "%s: could not start (%s); trying again in %.0f s",
                channel.name,
                channel.problem,
                delay,
            )
            await sleep(delay)
            continue
        channel.up, channel.problem = True, ""
        log.info("%s: live (%s)", channel.name, channel.mode)
        return


@dataclass
class Runtime:
    """Everything one process serves with, built once from the settings."""

    settings: Settings
    store: GameStore
    service: MeteredService
    tv: StoreSource
    metrics: Metrics
    channels: list[Channel] = field(default_factory=list)
    background: list[Background] = field(default_factory=list)
    owns_store: bool = True
    # the SMS adapter's records, when it runs: the retention pass forgets an
    # ended game's numbers there too (bots/serve.py)
    sms_directory: Directory | None = None
    console: Console | None = None

    @property
    def store_kind(self) -> str:
        return "redis" if self.settings.redis_url else "sqlite"

    async def tv_link(self, game: Game) -> str | None:
        """A fresh TV link for `game` (the host gets it in a private message)."""
        return self.settings.tv_base_url() + await self.tv.issue(game.id)

    async def console_link(self, game: Game, rotate: bool = False) -> str:
        """A new console link for `game`'s host (privately); `rotate`: every
        earlier one stops working. On the TV's address (a LAN one at home)."""
        assert self.console is not None
        base = self.settings.tv_base_url().removesuffix("/tv/")
        return f"{base}/console/{await self.console.issue(game, rotate)}"


def open_store(settings: Settings) -> GameStore:
    """Redis when `REDIS_URL` is set, else the embedded SQLite file in `DATA_DIR`."""
    if settings.redis_url:
        from adapters.store.redis_store import RedisStore

        return RedisStore.from_url(
            settings.redis_url, prefix=settings.redis_prefix, retention=settings.retention_seconds
        )
    from adapters.store.sqlite_store import SqliteStore

    settings.data_dir.mkdir(parents=True, exist_ok=True)
    return SqliteStore(str(settings.sqlite_path), retention=settings.retention_seconds)


def build_runtime(
    settings: Settings,
    *,
    store: GameStore | None = None,
    clock: Callable[[], float] = time.time,
    channels: bool = True,
) -> Runtime:
    """The store, the service and its ports; the channels whose settings are set."""
    owns = store is None
    store = store if store is not None else open_store(settings)
    metrics = Metrics()
    # each commit indexes its game's next instant as the scheduler plans it
    service = MeteredService(store, metrics, clock=clock, next_instant=next_instant)
    # The lobby says how to join by SMS only while SMS is on.
    number = settings.twilio_from if settings.sms_enabled else None
    tv = StoreSource(store, poll=settings.tv_poll_seconds, sms_number=number)
    service.notifiers.extend([tv, metrics])
    rt = Runtime(settings, store, service, tv, metrics, owns_store=owns)
    rt.console = Console(service, tv.changes)  # the host's console reads the TV's change feed
    if channels:
        for wire in (wire_telegram, wire_sms):
            channel = wire(rt)
            if channel is not None:
                rt.channels.append(channel)
    return rt


# -- channel wiring: the send limits ------------------------------------------------


def open_limiter(settings: Settings) -> Limiter:
    """The platforms' send limits, counted for every worker at once: in Redis
    (under the same prefix) when `REDIS_URL` is set, else in this process."""
    from adapters.ratelimit import MemoryLimiter, RedisLimiter

    if settings.redis_url:
        return RedisLimiter.from_url(settings.redis_url, prefix=settings.redis_prefix)
    return MemoryLimiter()


def wire_outbound(settings: Settings, outbound: Any) -> None:
    """Telegram's outbound queue: shared buckets at the configured limits, and
    its Bot API calls on a send loop of their own (off the webhook's loop)."""
    from adapters.ratelimit import Rate, TelegramRates
    from adapters.sendloop import SendLoop

    rates = TelegramRates(
        bot=Rate(settings.telegram_rate_bot),
        private=Rate(settings.telegram_rate_chat),
        group=Rate(settings.telegram_rate_group, 60.0),
    )
    outbound.use(limiter=open_limiter(settings), rates=rates, send_loop=SendLoop("telegram-send"))


# -- channel wiring: Telegram ------------------------------------------------------


def wire_telegram(rt: Runtime) -> Channel | None:
    """Telegram, when `TELEGRAM_BOT_TOKEN` is set and `adapters.telegram` exists:
    a webhook with `PUBLIC_BASE_URL` (registered with Telegram on start), long
    polling without."""
    s = rt.settings
    if not s.telegram_enabled:
        return None
    try:
        from adapters.telegram import webhook as tg
        from adapters.telegram.console import add_console
    except ImportError as exc:  # the adapter (or PTB) is not installed
        log.warning("TELEGRAM_BOT_TOKEN is set but the Telegram adapter is missing: %s", exc)
        return None
    if s.telegram_polling:
        application, adapter = tg.build(
            s.telegram_bot_token or "",
            rt.service,
            base_url=s.telegram_api_base_url,
            polling=True,
            tv_link=rt.tv_link,
        )
        wire_outbound(s, adapter.outbound)
        add_console(application, adapter, rt.console_link)

        async def start_polling() -> None:
            await tg.start_polling(application, adapter)
            rt.tv.telegram_bot = application.bot.username  # known once initialized

        async def stop_polling() -> None:
            await tg.stop_polling(application, adapter)

        return Channel("telegram", "polling", [], start_polling, stop_polling)
    hook = tg.make_webhook(
        rt.service,
        s.telegram_bot_token or "",
        secret=s.telegram_webhook_secret or "",
        public_base_url=s.public_base_url or "",
        base_url=s.telegram_api_base_url,
        tv_link=rt.tv_link,
    )
    wire_outbound(s, hook.tg.outbound)
    add_console(hook.application, hook.tg, rt.console_link)

    async def start_webhook() -> None:
        await hook.startup()
        rt.tv.telegram_bot = hook.application.bot.username  # the TV lobby's join link

    return Channel("telegram", "webhook", list(hook.routes), start_webhook, hook.shutdown)


# -- channel wiring: SMS (Twilio) --------------------------------------------------


def wire_sms(rt: Runtime) -> Channel | None:
    """SMS, when the Twilio account, token and a sender are set and
    `adapters.sms` exists: Twilio posts to `/sms/twilio` (signed)."""
    s = rt.settings
    if not s.sms_enabled:
        return None
    # Imported by name, so that type-checking `bots` does not pull in twilio
    # (which ships no type information).
    try:
        webhook = importlib.import_module("adapters.sms.webhook")
    except ImportError as exc:
        log.warning("Twilio is configured but the SMS adapter is missing: %s", exc)
        return None
    directory = rt.sms_directory = open_sms_directory(s)
    adapter = webhook.create_sms(
        rt.service, s.sms_settings(), directory=directory, tv_link=rt.tv_link
    )
    from adapters.sendloop import SendLoop

    # The sender's rate, for all workers; the Twilio calls on a loop of their
    # own, off the webhooks' (adapters/sms/outbound.py).
    adapter.outbox.use(limiter=open_limiter(s), send_loop=SendLoop("sms-send"))
    adapter.gateway.console_link = rt.console_link  # CONSOLE: the host's console link
    # The channel's start runs its delivery loop: the texts every commit wrote
    # to the store's outbox, sent by a task of its own, off the webhooks' path.
    return Channel("sms", "webhook", list(webhook.routes(adapter)), adapter.start, adapter.close)


def open_sms_directory(settings: Settings) -> Directory:
    """The SMS adapter's own records (numbers, opt-outs, message ids), kept like
    the games: in Redis under the same prefix when `REDIS_URL` is set, so that
    every worker shares them (a text, its redelivery and its status callback may
    each reach another worker); else in `DATA_DIR/sms.sqlite3`."""
    if settings.redis_url:
        from adapters.sms.redis_directory import RedisDirectory

        return RedisDirectory.from_url(
            settings.redis_url, prefix=settings.redis_prefix, retention=settings.retention_seconds
        )
    from adapters.sms.directory import SqliteDirectory

    settings.data_dir.mkdir(parents=True, exist_ok=True)
    return SqliteDirectory(str(settings.data_dir / "sms.sqlite3"))


# -- the app -------------------------------------------------------------------------


def create_app(rt: Runtime, *, background: Sequence[Background] = ()) -> Starlette:
    rt.background.extend(background)
    page = StatusPage(rt.tv)

    store_down = [False]  # said once per outage, not once per probe

    async def healthz(request: Request) -> Response:
        """The parts' names and states only: the reasons (an address, a URL
        with a token) go to the log, once per outage, through the scrubber."""
        try:
            await rt.store.load("healthz")
        except Exception as exc:
            if not store_down[0]:
                log.warning("store: not answering (%s: %s)", type(exc).__name__, exc)
            store_down[0] = True
            return JSONResponse({"ok": False, "store": rt.store_kind, "error": "store down"}, 503)
        if store_down[0]:
            log.info("store: answering again")
            store_down[0] = False
        return JSONResponse(
            {
                "ok": True,
                "store": rt.store_kind,
                "channels": {c.name: c.status() for c in rt.channels},
                "background": {b.name: b.status() for b in rt.background},
            }
        )

    async def metrics(request: Request) -> Response:
        with contextlib.suppress(Exception):  # a slow store must not break scraping
            rt.metrics.games_active.set(len(await rt.store.active_games()))
        rt.metrics.tv_viewers.set(sum(h.viewers for h in page.fanout.hubs.values()))
        return Response(generate_latest(rt.metrics.registry), media_type=CONTENT_TYPE_LATEST)

    routes: list[BaseRoute] = [
        Route("/healthz", healthz, methods=["GET"]),
        Route("/metrics", metrics, methods=["GET"]),
        page.mount("/tv"),
        # The game's story after the end, opened by the TV link's token (issue #32).
        StoryPage(rt.tv, base_url=rt.settings.tv_base_url().removesuffix("/tv/") + "/story/").mount(
            "/story"
        ),
    ]
    if rt.console is not None:
        routes.append(rt.console.mount("/console"))
    for channel in rt.channels:
        routes.extend(channel.routes)
    if rt.settings.internal_token:
        from bots.internal import internal_routes

        routes.extend(internal_routes(rt))

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        started: list[Callable[[], Awaitable[None]]] = []
        starting: list[asyncio.Task[None]] = []
        try:
            for channel in rt.channels:
                if channel.startup is None:
                    channel.up = True
                    continue
                # The first try is waited for (a healthy start is live at once);
                # a failure goes on in the background, retried with backoff.
                task = asyncio.create_task(start_channel(channel))
                starting.append(task)
                await asyncio.wait({task}, timeout=10.0)
            for job in rt.background:
                await job.start()
                started.append(job.stop)
            yield
        finally:
            for task in starting:
                task.cancel()
            await asyncio.gather(*starting, return_exceptions=True)
            # Channels that came up stop last, as they started first.
            ups = [c.shutdown for c in rt.channels if c.up and c.shutdown is not None]
            for channel in rt.channels:
                channel.up = False
            for stop in reversed(ups + started):
                try:
                    await stop()
                except Exception:
                    log.exception("stopping %r failed", stop)
            if rt.owns_store:
                await rt.store.close()

    app = Starlette(routes=routes, lifespan=lifespan)
    app.add_middleware(BodyLimit)  # before any route reads a body (413 past it)
    app.add_middleware(HttpMetrics, metrics=rt.metrics)
    app.state.runtime = rt
    return app
