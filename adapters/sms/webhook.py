"""Twilio's webhooks: inbound texts and delivery status callbacks (Starlette).

`/sms/twilio` takes an inbound text: the `X-Twilio-Signature` is checked with
Twilio's `RequestValidator` over the URL Twilio called, which is
`PUBLIC_BASE_URL` + the path (+ query), never the URL this process sees: behind
a reverse proxy the host, scheme and port differ. A forged or unsigned request
gets 403 and changes nothing (an unsigned one before its body is read, a form of
more fields than Twilio sends before it is validated). Then the text is handled (stored by MessageSid,
deduplicated, applied, its replies written to the game's outbox) before the
answer, which is an empty TwiML response: replies go out through the REST
API, from the outbox, in order with the texts the commits caused. A text
that could not be handled (the store unreachable, say) gets 503 instead, so it
is not acknowledged: Twilio retries it or calls the number's fallback URL.
`/sms/twilio/status` records delivery reports the same way.

`create_sms(service, settings)` builds the adapter (directory, sender,
composer, delivery, gateway) and registers its composer with the service (the
texts a commit causes are written with it) and its delivery as a notifier (a
commit of this worker wakes it); `SmsAdapter.start` runs the delivery loop,
a task of its own beside the webhooks; `routes(sms)` gives the Starlette
routes for the ASGI app to mount.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from twilio.request_validator import RequestValidator
from twilio.rest import Client

from adapters.owed import attach
from adapters.sms.delivery import Delivery
from adapters.sms.directory import Directory, SqliteDirectory
from adapters.sms.host_reports import HostHook
from adapters.sms.inbound import Gateway, TvLink
from adapters.sms.outbound import TwilioSender, twilio_client
from adapters.sms.renderer import SmsRenderer
from adapters.sms.sent_sheets import SentSheets
from adapters.sms.settings import SmsSettings
from service.games import GameService

log = logging.getLogger(__name__)

EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>'


@dataclass
class SmsAdapter:
    settings: SmsSettings
    directory: Directory
    outbox: TwilioSender  # the sender (the durable outbox is the store's)
    composer: SmsRenderer
    sheets: SentSheets
    delivery: Delivery
    gateway: Gateway

    async def start(self) -> None:
        """Run the delivery loop (the app's lifespan; tests `drain` instead),
        and the sender's send loop when one is wired."""
        self.outbox.start()
        self.delivery.start()

    async def drain(self) -> None:
        """Deliver everything the outbox holds now, here (tests)."""
        await self.delivery.drain()

    async def close(self) -> None:
        await self.delivery.stop()
        await self.outbox.close()
        await self.directory.close()


def create_sms(
    service: GameService,
    settings: SmsSettings,
    *,
    directory: Directory | None = None,
    client: Client | None = None,
    host_hook: HostHook | None = None,
    tv_link: TvLink | None = None,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    monotonic: Callable[[], float] = time.monotonic,
    register: bool = True,
    min_idle: float | None = None,
) -> SmsAdapter:
    """The SMS adapter around `service`; its notifier joins the service's ports.
    `directory` (which the adapter then owns and closes) holds the SMS records:
    the caller picks the kind (`bots.app` takes Redis when the store is Redis);
    without one they go to the SQLite file `settings.db_path`."""
    directory = directory if directory is not None else SqliteDirectory(settings.db_path)
    sender = TwilioSender(
        client or twilio_client(settings),
        settings,
        directory,
        sleep=sleep,
        clock=monotonic,
        wall=service.clock,
    )
    composer = SmsRenderer(settings)
    sheets = SentSheets(service.store)
    delivery = Delivery(
        service.store,
        directory,
        sender,
        sheets,
        composer=composer,
        tv_link=tv_link,
        wall=service.clock,
    )
    if min_idle is not None:
        delivery.min_idle = min_idle
    gateway = Gateway(
        service,
        directory,
        composer,
        sheets,
        sender,
        settings,
        host_hook=host_hook,
        tv_link=tv_link,
        clock=service.clock,
        wake=delivery.wake,
    )
    sender.on_failed = gateway.on_failed
    if register and attach(service.composers, composer):
        service.notifiers.append(delivery)
    return SmsAdapter(settings, directory, sender, composer, sheets, delivery, gateway)


def public_url(request: Request, settings: SmsSettings) -> str:
    """The URL Twilio signed: the public origin, this request's path and query."""
    if not settings.public_base_url:
        return str(request.url)
    url = settings.public_base_url + request.url.path
    if request.url.query:
        url += "?" + request.url.query
    return url


# Twilio's webhooks carry a few dozen fields (an MMS's media adds two per item,
# ten items at most): a form with more is no webhook of Twilio's, and is refused
# before its signature is computed over all of it.
MAX_FIELDS = 200


async def _signed_form(request: Request, settings: SmsSettings) -> dict[str, Any] | None:
    """The form of a request Twilio signed, or None. The body's size is bounded
    before this (adapters/bodylimit.py, 64 KiB); an unsigned request is refused
    before its body is read, and an oversized form before it is validated."""
    signature = request.headers.get("X-Twilio-Signature", "")
    if not signature:
        return None
    # Twilio posts application/x-www-form-urlencoded; parsed here with the standard
    # library (Starlette's form parser would need python-multipart).
    raw = (await request.body()).decode("utf-8", "replace")
    try:
        params = dict(parse_qsl(raw, keep_blank_values=True, max_num_fields=MAX_FIELDS))
    except ValueError:  # more fields than Twilio ever sends
        return None
    validator = RequestValidator(settings.auth_token)
    if not validator.validate(public_url(request, settings), params, signature):
        return None
    return params


def routes(sms: SmsAdapter) -> list[Route]:
    settings = sms.settings

    async def inbound(request: Request) -> Response:
        params = await _signed_form(request, settings)
        if params is None:
            return Response("forbidden", status_code=403, media_type="text/plain")
        sid = params.get("MessageSid") or params.get("SmsSid")
        sender = params.get("From")
        if sid and sender:
            handled = await sms.gateway.handle(str(sid), str(sender), str(params.get("Body", "")))
            if not handled:  # not acknowledged: Twilio retries, or calls the fallback URL
                return Response("try again", status_code=503, media_type="text/plain")
        return Response(EMPTY_TWIML, media_type="application/xml")

    async def status(request: Request) -> Response:
        params = await _signed_form(request, settings)
        if params is None:
            return Response("forbidden", status_code=403, media_type="text/plain")
        sid = params.get("MessageSid") or params.get("SmsSid")
        state = params.get("MessageStatus") or params.get("SmsStatus")
        if sid and state:
            await sms.gateway.status(str(sid), str(state), params.get("ErrorCode"))
        return Response(status_code=204)

    return [
        Route("/sms/twilio", inbound, methods=["POST"]),
        Route("/sms/twilio/status", status, methods=["POST"]),
    ]
