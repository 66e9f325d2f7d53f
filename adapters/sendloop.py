"""Outbound I/O on an event loop of its own, in a thread of its own.

The webhook's event loop handles inputs: a player's tap must be committed and
answered at once. A backlog of sends (a 15-player start, ten games at once)
puts hundreds of Bot API round trips on a loop: building each request, the
HTTP exchange, parsing each answer into PTB objects. On the webhook's loop
they take turns with the inputs, callback by callback; here they run on a
second loop in a thread, and the webhook's loop only awaits a future per send.
Python's GIL still serialises the CPU work, but it switches threads every few
milliseconds (`sys.getswitchinterval`), so an input never waits behind a queue
of ready send callbacks, only behind the slice the sender thread is in.

`ThreadedBot` is what the outbound queue hands its calls instead of the PTB
`Bot`: every Bot API coroutine (`send_message`, `edit_message_text`, ...) is run
by a twin `Bot` (same token, same API origin) made on the send loop, so its
HTTP connections belong to that loop; anything else (the token, the id) is
read from the original. The calls' own store bookkeeping stays on the
caller's loop, where the store's connections live.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from adapters.ratelimit import Bucket, Grant, Limiter

T = TypeVar("T")
# A job's reserved slot: (time.monotonic() it may go at, its buckets). Set by
# the outbound queue around a job's call; read by `ThreadedBot` in the caller's
# thread and handed to the send loop with the call.
Slot = tuple[float, Sequence[Bucket]]
SLOT: contextvars.ContextVar[Slot | None] = contextvars.ContextVar("slot", default=None)
LATE = 0.02  # seconds a slot may be missed by before the send takes a new one
# Slots are reserved up to this far ahead (the outbound queue's asks, and a late
# send's new one): the handover to the send loop may be late by that much
# without missing the slot. A late send asking for a slot free right now only
# would lose every race to the queue's asks, which keep the bot's bucket booked
# that far ahead while a backlog lasts.
LOOKAHEAD = 0.1


class NotSent(Exception):
    """A call that failed before its request left (the limiter away while a
    late send took a new slot): nothing reached the platform, so the caller
    sends it again later, never counts it as refused."""


def new_loop() -> asyncio.AbstractEventLoop:
    """uvloop's event loop where it is installed (uvicorn's own choice for
    the webhooks' loop), else asyncio's. The send loop is mostly loop
    machinery (socket writes, callbacks between threads): on asyncio's pure
    Python selector loop that was about half of the send thread's samples
    in a py-spy profile of bench/knee.py."""
    try:
        import uvloop
    except ImportError:  # (uvicorn[standard] installs it where it builds)
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()


class SendLoop:
    """A daemon thread running an event loop (`new_loop`); `run` awaits work
    done there."""

    def __init__(
        self,
        name: str = "muldvarp-send",
        loop_factory: Callable[[], asyncio.AbstractEventLoop] = new_loop,
    ) -> None:
        self.name = name
        self.loop_factory = loop_factory
        self.loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is not None:
            return
        ready = threading.Event()

        def main() -> None:
            loop = self.loop_factory()
            asyncio.set_event_loop(loop)
            self.loop = loop
            ready.set()
            try:
                loop.run_forever()
            finally:
                loop.run_until_complete(loop.shutdown_asyncgens())
                loop.close()

        self._thread = threading.Thread(target=main, name=self.name, daemon=True)
        self._thread.start()
        ready.wait()

    async def run(self, work: Callable[[], Awaitable[T]]) -> T:
        """Run `work()` on the send loop and wait for it here (cancelling this
        wait cancels it there)."""
        assert self.loop is not None, "start() first"

        async def wrapped() -> T:
            return await work()

        future = asyncio.run_coroutine_threadsafe(wrapped(), self.loop)
        return await asyncio.wrap_future(future)

    def stop(self) -> None:
        if self._thread is None or self.loop is None:
            return
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
        self._thread = None
        self.loop = None


class ThreadedBot:
    """A PTB `Bot` whose API coroutines run on a `SendLoop` (see the module)."""

    def __init__(self, bot: Any, send_loop: SendLoop, limiter: Limiter) -> None:
        self._bot = bot
        self.send_loop = send_loop
        self.limiter = limiter
        self._twin: Any = None

    async def reserve(self, buckets: Sequence[Bucket], within: float) -> tuple[Grant, float]:
        """On the send loop: a reservation and the monotonic time of its slot,
        counted from the answer (never early: Redis counts from its own clock,
        some time after the question left)."""
        grant = await self.limiter.reserve(buckets, within=within)
        return grant, time.monotonic() + grant.wait

    async def _at_slot(self, slot: Slot | None) -> None:
        """On the send loop, just before the HTTP request: wait for the slot;
        when the handover came too late for it (the caller's loop was busy),
        take a new one, so a late send never crowds the ones after it."""
        if slot is None:
            return
        at, buckets = slot
        late = time.monotonic() - at
        if late <= LATE:
            if late < 0:
                await asyncio.sleep(-late)
            return
        while True:
            grant = await self.limiter.reserve(buckets, within=LOOKAHEAD)
            await asyncio.sleep(grant.wait)  # until the new slot, or until one may be free
            if grant.ok:
                return

    async def open(self) -> None:
        from telegram import Bot

        token = self._bot.token
        base = str(self._bot.base_url).removesuffix(token)

        async def make() -> Any:
            twin = Bot(token, base_url=base)
            await twin.initialize()
            return twin

        self._twin = await self.send_loop.run(make)

    async def close(self) -> None:
        twin, self._twin = self._twin, None
        if twin is not None:
            await self.send_loop.run(twin.shutdown)

    def __getattr__(self, name: str) -> Any:
        twin = self.__dict__.get("_twin")
        attr = getattr(twin if twin is not None else self._bot, name)
        if twin is None or not inspect.iscoroutinefunction(attr):
            return getattr(self._bot, name)

        async def call(*args: Any, **kwargs: Any) -> Any:
            slot = SLOT.get()
            SLOT.set(None)  # a second Bot API call in the same job takes its own

            async def work() -> Any:
                try:
                    await self._at_slot(slot)
                except Exception as exc:
                    raise NotSent(str(exc)) from exc
                return await attr(*args, **kwargs)

            return await self.send_loop.run(work)

        return call
