"""`muldvarp serve`: one process serving everything a game night needs.

uvicorn serves the ASGI app of `bots.app` (webhooks, TV pages, `/healthz`,
`/metrics`); in the same process and event loop run the scheduler (deadlines and
reminders) and, when there is no `PUBLIC_BASE_URL`, Telegram long polling.

- Embedded store (no `REDIS_URL`): one process. The scheduler runs here
  unconditionally and hears of every commit directly (`SchedulerNotifier`).
- Redis: any number of `muldvarp serve` processes share the store. Each runs a
  scheduler *candidate*: one holds the Redis leader lease and fires deadlines,
  the others stand by and take over within ~6 s when it dies. Every process
  publishes the ids of games it changed on the leader's wake channel
  (`WakeNotifier`), so the leader re-arms them at once wherever the input came in.

On start it prints what is live: the store, each channel (webhook, polling or
off, and why), the scheduler, and the TV base URL.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from bots.app import Runtime, build_runtime, create_app
from bots.metrics import Metrics
from bots.settings import SMS_NEEDS, Settings, SettingsError, load_settings, renamed_warnings

if TYPE_CHECKING:
    from scheduler.deadlines import DeadlineScheduler
    from scheduler.service_ports import SchedulerNotifier

log = logging.getLogger("muldvarp.serve")
FORGET_EVERY = 60.0  # seconds between two looks for ended games' contacts to forget


async def forget_loop(rt: Runtime, leading: Callable[[], bool]) -> None:
    """Forget the contacts of games ended `CONTACTS_RETENTION_HOURS` ago, once
    a minute, while this process runs the scheduler (the store's step is
    idempotent: a second worker doing it too would change nothing); the SMS
    adapter's numbers of each game first, when it runs here."""
    after = rt.settings.contacts_retention_hours * 3600.0
    while True:
        if leading():
            try:
                directory = rt.sms_directory
                first = directory.forget_game if directory is not None else None
                done = await rt.service.forget_contacts(after, first)
                if done:
                    log.info("forgot the contacts of %d ended game(s)", len(done))
            except Exception:
                log.exception("forgetting ended games' contacts failed (retried)")
        await asyncio.sleep(FORGET_EVERY)


class EmbeddedScheduler:
    """The scheduler for a single process on the embedded store."""

    name = "scheduler"

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        self._task: asyncio.Task[None] | None = None
        self._forget: asyncio.Task[None] | None = None
        self._sched: DeadlineScheduler | None = None
        self._notifier: SchedulerNotifier | None = None

    def status(self) -> str:
        return "embedded" if self._sched is not None else "stopped"

    async def start(self) -> None:
        from scheduler.deadlines import LOOKAHEAD, DeadlineScheduler
        from scheduler.service_ports import SchedulerNotifier, ServiceSink
        from scheduler.service_ports import StoreSource as Games

        rt = self.rt
        await rt.service.sweep()  # repair the active set after a crash
        sched = DeadlineScheduler(
            Games(rt.store),
            ServiceSink(rt.service, rt.store, rt.service.notifiers),
            lookahead=max(LOOKAHEAD, 3 * rt.settings.scheduler_resync),
        )
        notifier = SchedulerNotifier(sched)
        rt.service.notifiers.append(notifier)
        armed = await sched.start()
        rt.metrics.leader.set(1)
        log.info("scheduler: %d games armed", armed)
        self._sched, self._notifier = sched, notifier
        self._task = asyncio.create_task(self._resync(sched))
        self._forget = asyncio.create_task(forget_loop(rt, lambda: True))

    async def _resync(self, sched: DeadlineScheduler) -> None:
        while True:
            await asyncio.sleep(self.rt.settings.scheduler_resync)
            try:
                await sched.rearm_all()
            except Exception:
                log.exception("scheduler resync failed")

    async def stop(self) -> None:
        for task in (self._task, self._forget):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        if self._notifier is not None and self._notifier in self.rt.service.notifiers:
            self.rt.service.notifiers.remove(self._notifier)
        if self._sched is not None:
            self._sched.stop()
        self.rt.metrics.leader.set(0)
        self._sched = None


class LeaderScheduler:
    """A scheduler candidate on Redis: leads while it holds the lease."""

    name = "scheduler"

    def __init__(
        self, rt: Runtime, url: str, prefix: str, metrics: Metrics, *, candidate: bool = True
    ) -> None:
        self.rt = rt
        self.candidate = candidate
        self.url = url
        self.prefix = prefix
        self.metrics = metrics
        self.state = "starting"
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._redis: Any = None
        self._waker: Any = None  # the WakeNotifier, once started
        self._forget: asyncio.Task[None] | None = None

    def status(self) -> str:
        return self.state

    async def start(self) -> None:
        from adapters.redis_url import async_client
        from scheduler.service_ports import WakeNotifier

        self._redis = async_client(self.url)  # a RedisCluster for redis+cluster://
        self._waker = WakeNotifier(self._redis, self.prefix)
        self.rt.service.notifiers.append(self._waker)
        if self.candidate:
            self._task = asyncio.create_task(self._run())
            self._forget = asyncio.create_task(forget_loop(self.rt, lambda: self.state == "leader"))
        else:
            self.state = "web only"  # tells the leader of changes, never fires

    def _on_state(self, state: str) -> None:
        self.state = state
        self.metrics.leader.set(1 if state == "leader" else 0)

    async def _run(self) -> None:
        """Be a candidate (`scheduler.runner.candidate`) until `stop()`: stand by,
        lead while holding the lease, stand by again after losing it, forever."""
        from scheduler.lease import Lease
        from scheduler.runner import candidate
        from scheduler.service_ports import ServiceSink
        from scheduler.service_ports import StoreSource as Games

        rt = self.rt
        redis = self._redis
        lease = Lease(redis, f"{self.prefix}scheduler:leader")
        source = Games(rt.store)
        sink = ServiceSink(rt.service, rt.store, rt.service.notifiers)
        try:
            await candidate(
                redis,
                self.prefix,
                lease,
                source,
                sink,
                self._stop,
                resync=rt.settings.scheduler_resync,
                on_state=self._on_state,
                on_term=self._waker.lead,  # leading here: own commits re-arm in-process
            )
        except Exception:  # only a bug gets here: say so loudly, not silently
            log.exception("scheduler candidate crashed; this worker no longer leads")
            self.state = "crashed"
            self.metrics.leader.set(0)
        finally:
            with contextlib.suppress(Exception):
                await lease.release()  # a standby takes over at once, not after the TTL

    async def stop(self) -> None:
        self._stop.set()
        if self._forget is not None:
            self._forget.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._forget
        if self._task is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._task, 5.0)
        if self._redis is not None:
            await self._redis.aclose()
        self.state = "stopped"


def scheduler_for(rt: Runtime) -> EmbeddedScheduler | LeaderScheduler | None:
    """On Redis every worker tells the leader of its changes, and is a candidate
    for leading unless MULDVARP_SCHEDULER=0; on the embedded store the one
    process runs the scheduler unless told not to."""
    s = rt.settings
    if s.redis_url:
        return LeaderScheduler(rt, s.redis_url, s.redis_prefix, rt.metrics, candidate=s.scheduler)
    return EmbeddedScheduler(rt) if s.scheduler else None


def _safe_url(url: str) -> str:
    """`url` without its password, for printing."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def banner(rt: Runtime) -> list[str]:
    """What is live, for the operator's first look."""
    s = rt.settings
    if s.redis_url:
        store = f"redis {_safe_url(s.redis_url)} (prefix {s.redis_prefix!r})"
    else:
        store = f"embedded SQLite {s.sqlite_path}"
    live = {c.name: c for c in rt.channels}
    tg = live.get("telegram")
    if tg is None:
        telegram = (
            "off (set TELEGRAM_BOT_TOKEN)" if not s.telegram_enabled else "off (adapter missing)"
        )
    elif tg.mode == "polling":
        telegram = "long polling (no PUBLIC_BASE_URL)"
    else:
        telegram = f"webhook {s.base_url()}/telegram/webhook"
    sms = live.get("sms")
    if sms is not None:
        sms_line = f"webhook {s.base_url()}/sms/twilio"
    elif s.sms_enabled:
        sms_line = "off (adapter missing)"
    else:
        sms_line = "off (set " + ", ".join(SMS_NEEDS) + ")"
    if not s.scheduler:
        sched = "off (MULDVARP_SCHEDULER=0: another process must lead)"
    elif s.redis_url:
        sched = "candidate for the Redis leader lease"
    else:
        sched = "in this process"
    return [
        f"muldvarp serve: listening on http://{s.host}:{s.port} (pid {os.getpid()})",
        f"  store:     {store}",
        f"  telegram:  {telegram}",
        f"  sms:       {sms_line}",
        f"  scheduler: {sched}",
        f"  TV pages:  {s.tv_base_url()}<token>",
        *(
            [
                "  (a TV on this network can't open 127.0.0.1: set TV_BASE_URL to this"
                f" machine's address, e.g. TV_BASE_URL=http://192.168.1.20:{s.port})"
            ]
            if s.tv_unreachable()
            else []
        ),
    ]


def serve(settings: Settings) -> int:
    import uvicorn

    from adapters.tv import logfilter
    from bots import logsafe, streams
    from bots.streams import EndStreams

    logging.basicConfig(
        level=settings.log_level,
        stream=sys.stderr,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
    )
    logging.getLogger("apscheduler").setLevel(logging.WARNING)
    # httpx logs every request at INFO: a line per getUpdates poll, per message sent
    logging.getLogger("httpx").setLevel(logging.WARNING)
    logsafe.install(settings.secrets())  # no token in any log line, at any level
    rt = build_runtime(settings)
    sched = scheduler_for(rt)
    background = [sched] if sched is not None else []
    app = EndStreams(create_app(rt, background=background))
    for line in banner(rt):
        print(line, flush=True)
    logfilter.install()  # TV tokens never reach the access log
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level.lower(),
        lifespan="on",
        proxy_headers=True,
        timeout_graceful_shutdown=10,
    )
    settle_heap()
    streams.run(uvicorn.Server(config), app)
    return 0


def settle_heap() -> None:
    """What the worker built before serving (the imported libraries' modules,
    classes and functions, the runtime) lives as long as the process: moved
    out of the cyclic collector's sight (`gc.freeze`), so that a full
    collection under load walks only what the games made since. Measured with
    bench/knee.py: full collections held the event loop 40-60 ms each, every
    few seconds, which every webhook in flight waited out (docs/performance.md)."""
    gc.collect()
    gc.freeze()


def main(host: str | None = None, port: int | None = None, env_file: str | None = None) -> int:
    overrides: dict[str, object] = {}
    if host is not None:
        overrides["MULDVARP_HOST"] = host
    if port is not None:
        overrides["MULDVARP_PORT"] = port
    path = env_file if env_file is not None else ".env"
    if env_file is not None and not Path(env_file).exists():
        print(f"muldvarp serve: no such settings file {env_file}", file=sys.stderr)
        return 2
    for line in renamed_warnings(path):
        print(f"muldvarp serve: warning: {line}", file=sys.stderr)
    try:
        settings = load_settings(path, **overrides)
    except SettingsError as exc:
        print(f"muldvarp serve: {exc}", file=sys.stderr)
        return 2
    return serve(settings)
