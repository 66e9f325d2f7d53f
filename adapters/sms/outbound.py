"""Sending texts through Twilio at the sender's pace, never dropped, never twice.

Twilio queues and then refuses texts sent faster than a sender's rate (about
one a second for a long code), so each attempt waits for the sender's slot in
a `Limiter` all workers share (adapters/ratelimit.py). A throttled or failed
send is tried again with doubling waits (service/backoff.py). A timeout is
ambiguous (Twilio may have the text) and Twilio's API has no idempotency key,
so before sending again the newest messages to the number are looked through
for it (`_taken`). The calls go over one kept-alive aiohttp session (well under
half the CPU per text of the blocking client) and, with a `SendLoop`, on an
event loop of their own, off the webhooks' loop.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple, TypeVar
from urllib.parse import urlencode

import aiohttp
from twilio.base.exceptions import TwilioRestException
from twilio.http import AsyncHttpClient
from twilio.http.response import Response
from twilio.rest import Client

from adapters.ratelimit import Limiter, MemoryLimiter, sms_bucket
from adapters.sendloop import SendLoop
from adapters.sms.directory import Directory
from adapters.sms.settings import TWILIO_API, SmsSettings
from service.backoff import Backoff

log = logging.getLogger(__name__)
T = TypeVar("T")


class OutMessage(NamedTuple):
    to: str  # E.164
    body: str
    game: str | None = None
    player: str | None = None
    secret: bool = False  # private information: a failed delivery is reported to the host


class Sent(NamedTuple):
    """What became of one text: Twilio's SID, or the error it was refused with."""

    sid: str | None
    error: str | None = None


RETRY_FIRST = 1.0  # seconds before a throttled or failed send is tried again
RETRY_MAX = 60.0


LOOKUP_PAGE = 20  # the newest messages to a number looked through after a timeout
LOOKUP_SKEW = 120.0  # seconds Twilio's creation time may lag the attempt's start (clocks)


def ambiguous(e: BaseException) -> bool:
    """A failure after which Twilio may have taken the text all the same: the
    answer timed out or the connection broke after the request went out. (A
    refused connection, or an error answer, means it was not taken.)"""
    if isinstance(e, asyncio.TimeoutError):
        return True
    return isinstance(e, aiohttp.ClientError) and not isinstance(e, aiohttp.ClientConnectorError)


def transient(e: BaseException) -> bool:
    """A failure worth waiting out: throttled (429, Twilio 20429), Twilio's own
    trouble (5xx), or the network. Anything else is a refusal of this text."""
    if isinstance(e, TwilioRestException):
        status = int(e.status or 0)
        return status == 429 or e.code == 20429 or status >= 500
    return isinstance(e, aiohttp.ClientError | asyncio.TimeoutError | ConnectionError)


class AiohttpClient(AsyncHttpClient):  # type: ignore[misc]
    """Twilio's REST calls over one aiohttp session, sent to `base` (Twilio's
    API, or a stand-in). The session is made on first use, inside the event
    loop that sends; `close` ends it."""

    def __init__(self, base: str = TWILIO_API, timeout: float = 10.0) -> None:
        super().__init__(logging.getLogger("twilio.http_client"), True, timeout)
        self.base = base.rstrip("/")
        self._session: aiohttp.ClientSession | None = None
        self.loop: asyncio.AbstractEventLoop | None = None  # where the session lives

    async def request(
        self,
        method: str,
        uri: str,
        params: dict[str, Any] | None = None,
        data: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        auth: tuple[str, str] | None = None,
        timeout: float | None = None,
        allow_redirects: bool = False,
    ) -> Response:
        if uri.startswith(TWILIO_API):
            uri = self.base + uri[len(TWILIO_API) :]
        if self._session is None or self._session.closed:
            limit = aiohttp.ClientTimeout(total=timeout or self.timeout)
            self._session = aiohttp.ClientSession(timeout=limit)
            self.loop = asyncio.get_running_loop()
        sent = dict(headers or {})
        if auth is not None:
            token = base64.b64encode(f"{auth[0]}:{auth[1]}".encode()).decode()
            sent["Authorization"] = f"Basic {token}"
        body: bytes | None = None
        if data is not None:  # form-encoded here: aiohttp's FormData builds a
            # multipart writer (a uuid4 boundary) for every request, even to urlencode
            body = urlencode(data, doseq=True).encode()
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        async with self._session.request(
            method.upper(),
            uri,
            params=params,
            data=body,
            headers=sent,
            allow_redirects=allow_redirects,
        ) as r:
            return Response(r.status, await r.text(), r.headers)

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None


def twilio_client(settings: SmsSettings) -> Client:
    """The REST client on the SDK's documented extension point, a custom
    `http_client` (`AiohttpClient`); `TWILIO_API_BASE_URL` points it elsewhere."""
    http = AiohttpClient(settings.api_base_url, timeout=10)
    client = Client(settings.account_sid, settings.auth_token, http_client=http)
    # The SDK imports its REST domains on first use (~60 ms, more when their
    # bytecode is not cached yet): done here, at start, not in the first text's
    # send, where it held the event loop the webhooks share (py-spy, bench/knee.py).
    _ = client.messages
    return client


Failed = Callable[[OutMessage, str], Awaitable[None]]


class TwilioSender:
    """Sends texts through Twilio's REST API (not the game's durable outbox).

    The outbox's texts come from adapters/sms/delivery.py (`deliver`), which
    keeps each player's order; `send` queues the few that belong to no game (a
    reply to a phone in none), drained by one task per sender. Each text has a
    status callback, so deliveries are recorded; one Twilio refuses outright is
    recorded as failed, and the host is told when it was private (`on_failed`).
    With a `SendLoop`, the slot wait and the request run on its loop; the
    directory's bookkeeping and the retry waits stay on the caller's."""

    def __init__(
        self,
        client: Client,
        settings: SmsSettings,
        directory: Directory,
        *,
        on_failed: Failed | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        limiter: Limiter | None = None,
        send_loop: SendLoop | None = None,
    ) -> None:
        self.client = client
        self.settings = settings
        self.directory = directory
        self.on_failed = on_failed
        self.sleep = sleep
        self.clock = clock
        self.wall = wall
        self.limiter: Limiter = limiter or MemoryLimiter(clock)
        self.send_loop = send_loop
        self._queues: dict[str, asyncio.Queue[OutMessage]] = {}
        self._workers: dict[str, asyncio.Task[None]] = {}
        self.sent = 0
        self.retried = 0
        self.recovered = 0  # timed-out texts found at Twilio, not sent again

    def use(self, *, limiter: Limiter | None = None, send_loop: SendLoop | None = None) -> None:
        """Wiring (bots/app.py), before the first text: the sender's bucket
        shared by every worker, and a send loop of its own."""
        if limiter is not None:
            self.limiter = limiter
        if send_loop is not None:
            self.send_loop = send_loop

    def start(self) -> None:
        if self.send_loop is not None:
            self.send_loop.start()

    async def send(self, message: OutMessage) -> None:
        """Queue `message` behind everything this sender has queued."""
        sender = self.settings.sender
        queue = self._queues.get(sender)
        if queue is None:
            queue = self._queues[sender] = asyncio.Queue()
        worker = self._workers.get(sender)
        if worker is None or worker.done():
            self._workers[sender] = asyncio.create_task(self._drain(sender, queue))
        queue.put_nowait(message)

    async def drain(self) -> None:
        """Wait until everything queued so far has been handed to Twilio."""
        for queue in list(self._queues.values()):
            await queue.join()

    async def close(self) -> None:
        for task in self._workers.values():
            task.cancel()
        for task in self._workers.values():
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._workers.clear()

        async def release() -> None:
            with contextlib.suppress(Exception):
                await self.limiter.close()
            http = getattr(self.client, "http_client", None)
            if isinstance(http, AiohttpClient):
                await http.close()

        loop = self._running_loop()
        if loop is not None:
            with contextlib.suppress(Exception):
                await loop.run(release)  # where the connections live
            loop.stop()
        else:
            await release()

    async def _drain(self, sender: str, queue: asyncio.Queue[OutMessage]) -> None:
        while True:
            message = await queue.get()
            try:
                await self.deliver(message)
            except Exception:  # one bad message must not stop the queue
                log.exception("sending a text failed")
            finally:
                queue.task_done()

    async def _pace(self, sender: str, sleep: Callable[[float], Awaitable[Any]]) -> None:
        """Wait for a slot in the sender's bucket (every worker's texts count)."""
        if self.settings.rate <= 0:
            return
        bucket = sms_bucket(sender, self.settings.rate)
        while True:
            try:
                grant = await self.limiter.reserve([bucket])
            except Exception as exc:  # Redis away: wait and ask again, never drop
                log.warning("rate limiter unavailable (%s)", exc)
                await sleep(1.0)
                continue
            if grant.ok:
                return
            await sleep(grant.wait)

    def _running_loop(self) -> SendLoop | None:
        """The send loop, when one is wired and running."""
        loop = self.send_loop
        return loop if loop is not None and loop.loop is not None else None

    async def _there(self, work: Callable[[], Awaitable[T]]) -> T:
        """`work()` on the send loop when there is one, else here."""
        loop = self._running_loop()
        return await (loop.run(work) if loop is not None else work())

    async def _attempt(self, kwargs: dict[str, Any]) -> Any:
        """One try: the sender's slot, then Twilio's answer (on the send loop
        when there is one, with that loop's own sleep)."""
        sleep = asyncio.sleep if self._running_loop() is not None else self.sleep

        async def one() -> Any:
            await self._pace(self.settings.sender, sleep)
            return await self.client.messages.create_async(**kwargs)

        return await self._there(one)

    async def deliver(self, m: OutMessage) -> Sent:
        """Send `m` now, at the sender's pace, waiting out throttling and outages
        (see the module doc); a refusal is recorded as failed and, for a
        private text, reported (`on_failed`)."""
        kwargs: dict[str, Any] = {"to": m.to, "body": m.body}
        if self.settings.messaging_service_sid:
            kwargs["messaging_service_sid"] = self.settings.messaging_service_sid
        else:
            kwargs["from_"] = self.settings.from_number
        if self.settings.public_base_url:
            kwargs["status_callback"] = self.settings.status_url
        backoff = Backoff(RETRY_FIRST, RETRY_MAX)
        began = self.wall()
        while True:
            try:
                sent = await self._attempt(kwargs)
                break
            except Exception as e:
                if not transient(e):
                    if isinstance(e, TwilioRestException):
                        return await self._refused(m, str(e.code or e.status))
                    raise
                if ambiguous(e):
                    found = await self._taken(m, began)
                    if found is not None:  # Twilio has it: sending again would duplicate
                        sent = found
                        self.recovered += 1
                        break
                self.retried += 1
                delay = backoff.failed()
                log.warning("Twilio: %s; sending again in %.0f s", type(e).__name__, delay)
                await self.sleep(delay)
        self.sent += 1
        await self.directory.record_sent(
            str(sent.sid), m.to, m.player, m.game, m.secret, str(sent.status), self.wall()
        )
        return Sent(str(sent.sid))

    async def _taken(self, m: OutMessage, began: float) -> Any | None:
        """After an ambiguous failure: the message Twilio made of this text, if
        it did. Twilio's REST API has no idempotency key for messages, so the
        newest messages to the number (from our sender) are looked through for
        this body, created since the first attempt began, and not known to the
        directory already (an identical earlier text, say a menu sent twice,
        is recorded under its own SID). None when there is none, or when the
        lookup fails too (then the text is sent again: a possible duplicate
        beats a lost text)."""
        for message in await self._look(m, began):
            if await self.directory.sent(str(message.sid)) is None:
                log.info("Twilio took a text whose answer timed out; not sent again")
                return message
        return None

    async def taken_since(self, m: OutMessage, since: float) -> str | None:
        """A worker that died with `m` in doubt (adapters/sms/delivery.py): the
        SID of a message Twilio made of it (this number and body, created
        since `since`, the attempt's start, less `LOOKUP_SKEW`), recorded in
        the directory if the dead worker had not; None when there is none or
        the lookup fails (then it is sent again). A SID the directory knows
        counts too: the worker may have died between recording and acking."""
        for message in await self._look(m, since):
            sid = str(message.sid)
            if await self.directory.sent(sid) is None:
                status = str(message.status)
                await self.directory.record_sent(
                    sid, m.to, m.player, m.game, m.secret, status, self.wall()
                )
            self.recovered += 1
            log.info("Twilio took a text a dead worker sent; not sent again")
            return sid
        return None

    async def _look(self, m: OutMessage, began: float) -> list[Any]:
        """The newest messages to `m`'s number from our sender with its body,
        created since `began` (less `LOOKUP_SKEW`); none if the lookup fails."""
        query: dict[str, Any] = {"to": m.to, "limit": LOOKUP_PAGE, "page_size": LOOKUP_PAGE}
        if not self.settings.messaging_service_sid:
            query["from_"] = self.settings.from_number

        async def look() -> list[Any]:
            return list(await self.client.messages.list_async(**query))

        try:
            found = await self._there(look)
        except Exception as exc:
            log.warning("Twilio: could not check for a text in doubt (%s)", type(exc).__name__)
            return []
        out = []
        for message in found:
            created = getattr(message, "date_created", None)
            when = created.timestamp() if created is not None else None
            if message.body == m.body and (when is None or when >= began - LOOKUP_SKEW):
                out.append(message)
        return out

    async def _refused(self, m: OutMessage, error: str) -> Sent:
        sid = f"failed:{m.to}:{self.wall()}"
        await self.directory.record_sent(
            sid, m.to, m.player, m.game, m.secret, "failed", self.wall(), error
        )
        log.warning("Twilio refused a text (%s)", error)
        if m.secret and self.on_failed is not None:
            await self.on_failed(m, error)
        return Sent(None, error)
