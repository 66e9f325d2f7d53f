"""The outbound queue: texts leave in order, at the sender's pace, through Twilio.

A long code sends about one message per second; faster, Twilio queues and then
refuses. One FIFO queue per sender (phone number or Messaging Service), drained
by one task at `rate` messages per second, keeps every player's texts in the
order they were made (a menu never overtakes the result it follows). Sending is
the twilio REST client (`client.messages.create`, blocking, so on a thread),
with a status callback URL so deliveries are recorded; a text that Twilio
refuses outright is recorded as failed, and if it carried private information
the host is told (`on_failed`), since it cannot be sent anywhere else instead.

`twilio_client(settings)` builds the real client; `TWILIO_API_BASE_URL` sends its
requests to another origin (a local fake in tests) through the client's
documented extension point, a custom `http_client`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple

from twilio.base.exceptions import TwilioRestException
from twilio.http.http_client import TwilioHttpClient
from twilio.http.response import Response
from twilio.rest import Client

from adapters.sms.directory import Directory
from adapters.sms.settings import TWILIO_API, SmsSettings

log = logging.getLogger(__name__)


class OutMessage(NamedTuple):
    to: str  # E.164
    body: str
    game: str | None = None
    player: str | None = None
    secret: bool = False  # private information: a failed delivery is reported to the host


class RebasedHttpClient(TwilioHttpClient):  # type: ignore[misc]
    """Twilio's own HTTP client, sending to `base` instead of api.twilio.com."""

    def __init__(self, base: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.base = base.rstrip("/")

    def request(self, method: str, url: str, *args: Any, **kwargs: Any) -> Response:
        if url.startswith(TWILIO_API):
            url = self.base + url[len(TWILIO_API) :]
        return super().request(method, url, *args, **kwargs)


def twilio_client(settings: SmsSettings) -> Client:
    http = None
    if settings.api_base_url != TWILIO_API:
        http = RebasedHttpClient(settings.api_base_url, timeout=10)
    return Client(settings.account_sid, settings.auth_token, http_client=http)


Failed = Callable[[OutMessage, str], Awaitable[None]]


class Outbox:
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
    ) -> None:
        self.client = client
        self.settings = settings
        self.directory = directory
        self.on_failed = on_failed
        self.sleep = sleep
        self.clock = clock
        self.wall = wall
        self._queues: dict[str, asyncio.Queue[OutMessage]] = {}
        self._workers: dict[str, asyncio.Task[None]] = {}
        self.sent = 0

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

    async def _drain(self, sender: str, queue: asyncio.Queue[OutMessage]) -> None:
        interval = 1.0 / self.settings.rate if self.settings.rate > 0 else 0.0
        next_at = self.clock()
        while True:
            message = await queue.get()
            try:
                wait = next_at - self.clock()
                if wait > 0:
                    await self.sleep(wait)
                next_at = max(next_at, self.clock()) + interval
                await self._send_one(message)
            except Exception:  # one bad message must not stop the queue
                log.exception("sending a text failed")
            finally:
                queue.task_done()

    async def _send_one(self, m: OutMessage) -> None:
        kwargs: dict[str, Any] = {"to": m.to, "body": m.body}
        if self.settings.messaging_service_sid:
            kwargs["messaging_service_sid"] = self.settings.messaging_service_sid
        else:
            kwargs["from_"] = self.settings.from_number
        if self.settings.public_base_url:
            kwargs["status_callback"] = self.settings.status_url
        try:
            sent = await asyncio.to_thread(self.client.messages.create, **kwargs)
        except TwilioRestException as e:
            error = str(e.code or e.status)
            sid = f"failed:{m.to}:{self.wall()}"
            self.directory.record_sent(
                sid, m.to, m.player, m.game, m.secret, "failed", self.wall(), error
            )
            log.warning("Twilio refused a text (%s)", error)
            if m.secret and self.on_failed is not None:
                await self.on_failed(m, error)
            return
        self.sent += 1
        self.directory.record_sent(
            str(sent.sid), m.to, m.player, m.game, m.secret, str(sent.status), self.wall()
        )
