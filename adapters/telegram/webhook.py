"""Wiring: the PTB application, webhook routes for the project's ASGI app, and
a polling entry for local use.

Webhook mode follows PTB's `examples/customwebhookbot/starlettebot.py`: PTB runs
inside our Starlette app with no Updater, and our route feeds it updates. Unlike
PTB's own webhook server, the route answers only after the update was handled:
the secret header is checked in constant time (403 otherwise), the update is
processed (its game input committed under the key `tg:<update_id>`), and only
then 200 (carrying the answer to a button press as a Bot API call, which
Telegram makes for us: no round trip to Telegram while the update is held). A
handler failure answers 500, so Telegram delivers the update again;
the idempotency key keeps a redelivery from applying anything twice, and a
small in-memory window skips the obvious duplicates without touching the store
(an update joins it when its handling starts, and leaves it again unless it was
handled). A body that is no update (not JSON, nested too deep, a field PTB
cannot parse) gets 400 before any of this, and is never remembered.

Settings (environment): TELEGRAM_BOT_TOKEN, TELEGRAM_WEBHOOK_SECRET,
PUBLIC_BASE_URL (the webhook is PUBLIC_BASE_URL + WEBHOOK_PATH) and
TELEGRAM_API_BASE_URL (default the official Bot API; a self-hosted Bot API
server, or the tests' fake, e.g. http://127.0.0.1:8081/bot).
"""

from __future__ import annotations

import hmac
import json
import logging
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from cachetools import FIFOCache
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route
from telegram import Update
from telegram.ext import Application, ApplicationBuilder

from adapters.owed import attach
from adapters.telegram.delivery import TelegramDelivery
from adapters.telegram.handlers import Telegram, add_handlers, register_menu
from adapters.telegram.hosting import TvLink
from adapters.telegram.notifier import TelegramNotifier
from adapters.telegram.outbound import Outbound
from adapters.telegram.renderer import TelegramRenderer
from service.games import GameService

log = logging.getLogger(__name__)

OFFICIAL_API = "https://api.telegram.org/bot"
WEBHOOK_PATH = "/telegram/webhook"
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
ALLOWED_UPDATES = ("message", "callback_query")

App = Application[Any, Any, Any, Any, Any, Any]


def build(
    token: str,
    service: GameService,
    *,
    base_url: str | None = None,
    polling: bool = False,
    default_lang: str = "nb",
    tv_link: TvLink | None = None,
    outbound_options: Mapping[str, Any] | None = None,
    seed_for: Callable[[Update], str | None] | None = None,
    setup_for: Callable[[Update], Mapping[str, Any] | None] | None = None,
    delivery_options: Mapping[str, Any] | None = None,
) -> tuple[App, Telegram]:
    """The PTB application with our handlers, and the adapter (outbound queue,
    notifier, outbox delivery); the composer and the notifier are added to the
    service's ports."""
    builder = ApplicationBuilder().token(token)
    builder = builder.base_url(base_url or os.environ.get("TELEGRAM_API_BASE_URL") or OFFICIAL_API)
    if not polling:
        builder = builder.updater(None)
    application = builder.build()
    outbound = Outbound(application.bot, **dict(outbound_options or {}))
    notifier = TelegramNotifier(outbound, service.store, wall=service.clock)
    options = {"wall": service.clock, **dict(delivery_options or {})}
    delivery = TelegramDelivery(service.store, notifier, tv_link=tv_link, **options)
    notifier.wake = delivery.wake
    attach(service.composers, TelegramRenderer())
    service.notifiers.append(notifier)
    tg = Telegram(service, outbound, notifier, default_lang, tv_link, seed_for, setup_for)
    tg.delivery = delivery
    add_handlers(application, tg)
    return application, tg


async def start(
    application: App, tg: Telegram, *, webhook_url: str | None = None, secret: str | None = None
) -> None:
    """Start PTB (without its updater) and the outbound queue; register the
    webhook with Telegram when `webhook_url` is given."""
    await application.initialize()
    await application.start()
    await start_ours(application, tg)
    if webhook_url:
        await application.bot.set_webhook(
            webhook_url, secret_token=secret, allowed_updates=list(ALLOWED_UPDATES)
        )


async def start_ours(application: App, tg: Telegram) -> None:
    """What every way of running the bot starts beside PTB: the outbound queue,
    the outbox delivery (which also sends what a previous run left undelivered)
    and the command menu."""
    await tg.outbound.start()
    if tg.delivery is not None:
        tg.delivery.start()
    await register_menu(application.bot, tg.default_lang)


async def stop_ours(tg: Telegram) -> None:
    """Undo `start_ours`: let the batches in hand finish, then send what is
    queued (what is left in the outbox waits for the next worker)."""
    if tg.delivery is not None:
        await tg.delivery.stop()
    await tg.outbound.stop(drain=True)


async def stop(application: App, tg: Telegram) -> None:
    await stop_ours(tg)
    await application.stop()
    await application.shutdown()


class Seen:
    """The last `size` update ids handled by this process (the first in are
    the first forgotten)."""

    def __init__(self, size: int = 10_000) -> None:
        self.size = size
        self._ids: FIFOCache[int, None] = FIFOCache(size)

    def __contains__(self, update_id: object) -> bool:
        return update_id in self._ids

    def add(self, update_id: int) -> None:
        self._ids[update_id] = None

    def discard(self, update_id: int) -> None:
        self._ids.pop(update_id, None)


# No update Telegram sends nests deeper than a dozen levels; a deeper JSON is
# refused before PTB's parser recurses into it.
MAX_DEPTH = 64


def too_deep(data: object, limit: int = MAX_DEPTH) -> bool:
    """Whether the parsed JSON `data` nests deeper than `limit` (walked without
    recursion; the body's size is bounded before, adapters/bodylimit.py)."""
    stack: list[tuple[object, int]] = [(data, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        children = node.values() if isinstance(node, dict) else node
        assert isinstance(children, Iterable)
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))
    return False


def parse_update(body: bytes, bot: Any) -> Update | str:
    """The update in `body`, or why it is not one (said in the 400's body)."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
        return "not JSON"
    if not isinstance(data, dict):
        return "not an update"
    update_id = data.get("update_id")
    if not isinstance(update_id, int) or isinstance(update_id, bool) or update_id < 0:
        return "no update_id"
    if too_deep(data):
        return "nested too deep"
    try:
        return Update.de_json(data, bot)
    except Exception as exc:  # PTB's parser on a malformed field: TypeError, KeyError, ...
        log.warning("update %d refused: malformed (%s: %s)", update_id, type(exc).__name__, exc)
        return "malformed update"


def routes(application: App, tg: Telegram, secret: str, *, path: str = WEBHOOK_PATH) -> list[Route]:
    """The webhook route, for the project's Starlette app."""
    if not secret:
        raise ValueError("a webhook needs TELEGRAM_WEBHOOK_SECRET")
    expected = secret.encode("utf-8")
    seen = Seen()
    tg.answer_in_reply = True

    async def webhook(request: Request) -> Response:
        given = request.headers.get(SECRET_HEADER, "").encode("utf-8")
        if not hmac.compare_digest(given, expected):
            return Response(status_code=403)
        # Parsed and checked before anything else: a malformed update gets 400
        # and is not remembered, so nothing it carries is ever skipped.
        update = parse_update(await request.body(), application.bot)
        if isinstance(update, str):
            return PlainTextResponse(update, status_code=400)
        update_id = update.update_id
        if update_id in seen:  # handled, or being handled now
            return Response()
        seen.add(update_id)
        query = update.callback_query
        handled = False
        try:
            await application.process_update(update)
            handled = update_id not in tg.failed
        except Exception:
            log.exception("update %d failed", update_id)
        finally:
            answer = tg.answers.pop(query.id, None) if query is not None else None
            tg.failed.discard(update_id)
            if not handled:  # also when cancelled: Telegram's redelivery is applied
                seen.discard(update_id)
        if not handled:
            return Response(status_code=500)
        if answer is not None:
            return JSONResponse({"method": "answerCallbackQuery", **answer})
        return Response()

    return [Route(path, webhook, methods=["POST"])]


@dataclass
class TelegramWebhook:
    """What the project's ASGI app needs: routes to mount and start/stop hooks
    for its lifespan."""

    application: App
    tg: Telegram
    routes: list[Route]
    webhook_url: str | None
    secret: str

    async def startup(self) -> None:
        await start(self.application, self.tg, webhook_url=self.webhook_url, secret=self.secret)

    async def shutdown(self) -> None:
        await stop(self.application, self.tg)


def make_webhook(
    service: GameService,
    token: str,
    *,
    secret: str = "",
    public_base_url: str = "",
    base_url: str | None = None,
    tv_link: TvLink | None = None,
    register: bool = True,
) -> TelegramWebhook:
    """The webhook wiring for bot `token`, from settings the caller has checked
    (`muldvarp serve`: bots/settings.py). With `register`, startup tells Telegram
    the webhook URL (`public_base_url` + WEBHOOK_PATH) and the secret it must send."""
    public = public_base_url.rstrip("/")
    application, tg = build(token, service, base_url=base_url or OFFICIAL_API, tv_link=tv_link)
    url = f"{public}{WEBHOOK_PATH}" if register and public else None
    return TelegramWebhook(application, tg, routes(application, tg, secret), url, secret)


def from_env(
    service: GameService,
    env: Mapping[str, str] | None = None,
    *,
    tv_link: TvLink | None = None,
    register: bool = True,
) -> TelegramWebhook | None:
    """`make_webhook` from environment names (manual use), or None when no bot
    token is set."""
    env = os.environ if env is None else env
    token = env.get("TELEGRAM_BOT_TOKEN", "")
    if not token:
        return None
    return make_webhook(
        service,
        token,
        secret=env.get("TELEGRAM_WEBHOOK_SECRET", ""),
        public_base_url=env.get("PUBLIC_BASE_URL", ""),
        base_url=env.get("TELEGRAM_API_BASE_URL"),
        tv_link=tv_link,
        register=register,
    )


async def start_polling(application: App, tg: Telegram) -> None:
    """Polling for local use (no public URL): PTB's own updater feeds the same
    handlers. `build(..., polling=True)` first; `stop_polling` to end."""
    await application.initialize()
    await start_ours(application, tg)
    assert application.updater is not None, "build(..., polling=True) makes an updater"
    await application.updater.start_polling(
        allowed_updates=list(ALLOWED_UPDATES), poll_interval=0.05
    )
    await application.start()


async def stop_polling(application: App, tg: Telegram) -> None:
    if application.updater is not None and application.updater.running:
        await application.updater.stop()
    await stop(application, tg)


def run_polling(
    token: str, service: GameService, **kw: Any
) -> None:  # pragma: no cover - manual use
    """Local use without a public URL: long polling until Ctrl-C."""
    application, tg = build(token, service, polling=True, **kw)

    async def post_init(app: App) -> None:
        await start_ours(app, tg)

    async def post_shutdown(app: App) -> None:
        await stop_ours(tg)

    application.post_init = post_init
    application.post_shutdown = post_shutdown
    application.run_polling(allowed_updates=list(ALLOWED_UPDATES))


def main() -> None:  # pragma: no cover - manual use
    """`python -m adapters.telegram.webhook`: play locally by polling, on the
    embedded store (MULDVARP_DB, default muldvarp.sqlite3)."""
    from adapters.store.sqlite_store import SqliteStore

    logging.basicConfig(level=logging.INFO)
    token = os.environ["TELEGRAM_BOT_TOKEN"]
    store = SqliteStore(os.environ.get("MULDVARP_DB", "muldvarp.sqlite3"))
    run_polling(token, GameService(store))


if __name__ == "__main__":  # pragma: no cover
    from gameflow.games import register_all

    register_all()  # the composition root: the games this process plays

    main()
