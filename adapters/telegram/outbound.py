"""The outbound queue: every Bot API call that sends or edits goes through here.

Telegram answers a bot that sends faster than its limits (about 30 messages a
second, one a second per private chat, 20 a minute per group) with 429s; a
player must never lose a prompt to that, nor see a chat's messages out of
order, and a prompt for the current phase must not wait behind lobby chatter.
So the queue keeps to the limits itself (buckets shared by all workers,
adapters/ratelimit.py), sends a throttled call again, and orders the chats by
priority (the `Outbound` class says how).
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from telegram import Bot
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter, TelegramError

from adapters.ratelimit import (
    Bucket,
    Limiter,
    MemoryLimiter,
    Rate,
    TelegramRates,
    bot_scope,
    telegram_buckets,
)
from adapters.sendloop import LOOKAHEAD, SLOT, NotSent, SendLoop, ThreadedBot
from adapters.telegram.jobs import Call, Failed, Job, Priority, Stats, retry_seconds

__all__ = ["Call", "Failed", "Job", "Outbound", "Priority", "Stats"]

log = logging.getLogger(__name__)


T = TypeVar("T")
PRUNE_AT = 10_000  # chats with pacing times kept before the past ones are pruned
ODD_TRIES = 3  # attempts of a call that fails unexpectedly (the store away) before it is given up


class Outbound:
    """Telegram allows about 30 messages a second per bot, about one a second per
    private chat and 20 a minute per group, and answers 429 with `retry_after` when
    a bot goes faster. The queue keeps to those limits itself, and when a 429 comes
    anyway it waits the time asked and sends the same call again: nothing is ever
    dropped for being throttled, and a chat's calls go out strictly in the order
    they were queued (a chat's next call starts only when its previous one is done).
    Across chats, a chat whose next call is a prompt for the current phase is served
    before chats whose next call is chatter (lobby news, announcements).

    The limits themselves are buckets of a `Limiter` (adapters/ratelimit.py): in
    memory for one process, in Redis when several workers share a bot, so that all
    of them together keep to Telegram's limits. Before each call the queue asks the
    limiter for a slot on the bot's bucket and the chat's; a chat whose bucket is
    busy (this worker's sends or another's) waits without holding up other chats,
    and a full bot bucket holds everything back. The queue still decides the order
    (priority, then age); the limiter only says when. A 429 also holds the chat's
    bucket for `retry_after`, for every worker.

    Time is injected (`clock`, `sleep`) so tests run the limits on a virtual clock.
    A chat's next message waits a full interval after Telegram answered its
    previous one (not only after the previous one's slot), so a late send never
    brings two arrivals closer than the limit. Edits answering a player's own tap
    (`paced=False`) skip the per-chat spacing,
    which Telegram applies to new messages; they still count against the bot's
    overall rate.

    With a `SendLoop`, the Bot API calls themselves run on an event loop of their
    own in a thread (adapters/sendloop.py), not on the webhook's loop.

    A call that fails for a reason none of Telegram's errors name (the store away
    while a prompt checks it is still wanted) is tried `ODD_TRIES` times, further
    apart each time, before it is given up: given up, its outbox entry is acked as
    failed, and a player would wait on a question never sent."""

    def __init__(
        self,
        bot: Bot,
        *,
        per_second: float = 30.0,
        private_interval: float = 1.0,
        group_interval: float = 3.0,
        network_retry: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
        keep_log: bool = False,
        rates: TelegramRates | None = None,
        limiter: Limiter | None = None,
        send_loop: SendLoop | None = None,
    ) -> None:
        self.bot = bot
        self.rates = rates or TelegramRates(
            bot=Rate(per_second),
            private=Rate(1.0 if private_interval > 0 else 0.0, private_interval),
            group=Rate(1.0 if group_interval > 0 else 0.0, group_interval),
        )
        self.limiter: Limiter = limiter or MemoryLimiter(clock)
        self.send_loop = send_loop
        self.scope = bot_scope(getattr(bot, "token", None) or 0)
        self.network_retry = network_retry
        self.clock = clock
        self.sleep = sleep
        self.keep_log = keep_log
        self.stats = Stats()
        self._chats: dict[int, deque[Job]] = {}  # chats with something queued
        self._ready: list[tuple[int, int, int]] = []  # heap: (priority, order, chat)
        self._waiting: list[tuple[float, int]] = []  # heap: (may send at, chat)
        self._next_chat: dict[int, float] = {}
        self._next_any = 0.0
        self._busy: set[int] = set()
        self._blocked: dict[int, float] = {}  # chat -> until when a 429 or an error holds it
        self._tasks: set[asyncio.Task[None]] = set()
        self._order = itertools.count()
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._waiting_for_time = False  # the runner sleeps until a job may go
        self._runner: asyncio.Task[None] | None = None
        self._caller: Any = bot  # what the calls are given: the bot, or its threaded twin

    def use(
        self,
        *,
        limiter: Limiter | None = None,
        rates: TelegramRates | None = None,
        send_loop: SendLoop | None = None,
    ) -> None:
        """Wiring (bots/app.py), before `start`: shared buckets, the limits, and
        a send loop of its own."""
        if limiter is not None:
            self.limiter = limiter
        if rates is not None:
            self.rates = rates
        if send_loop is not None:
            self.send_loop = send_loop

    # -- producer side ------------------------------------------------------------

    def put(self, job: Job) -> None:
        job.order = next(self._order)
        queue = self._chats.setdefault(job.chat_id, deque())
        queue.append(job)
        if len(queue) == 1:
            self._schedule(job.chat_id)
        self._idle.clear()
        self._wake.set()

    def send(
        self,
        chat_id: int,
        call: Call,
        *,
        priority: Priority = Priority.NORMAL,
        on_done: Callable[[Any], None] | None = None,
        paced: bool = True,
        label: str = "",
    ) -> Job:
        job = Job(chat_id, call, priority, on_done, paced, label)
        self.put(job)
        return job

    def withdraw(self, job: Job) -> None:
        """Don't send `job` if it has not started yet (it is settled as
        withdrawn when its turn comes); one already sent or in flight stays so.
        A call that carries several entries' news is withdrawn only when every
        one of them withdraws it: the others' lines still go."""
        if not job.settled and job.attempts == 0:
            job.holders -= 1
            if job.holders <= 0:
                job.withdrawn = True

    def last(self, chat_id: int) -> Job | None:
        """The last call queued for `chat_id` and not started yet, if any (news
        may be merged into it while nothing else is queued behind it)."""
        queue = self._chats.get(chat_id)
        return queue[-1] if queue else None

    @property
    def pending(self) -> int:
        return sum(len(q) for q in self._chats.values()) + len(self._busy)

    async def start(self) -> None:
        if self._runner is None:
            if self.send_loop is not None:
                self.send_loop.start()
                threaded = ThreadedBot(self.bot, self.send_loop, self.limiter)
                await threaded.open()
                self._caller = threaded
            self._runner = asyncio.create_task(self._run(), name="telegram-outbound")

    async def join(self) -> None:
        """Wait until everything queued so far is sent (or given up for good)."""
        await self._idle.wait()

    @property
    def quiet(self) -> bool:
        """Nothing in flight and nothing that may go before the clock moves on
        (everything sent, or the rest held back by pacing): for tests that run
        the queue on a virtual clock they advance themselves."""
        if self._busy:
            return False
        return not self._chats or self._waiting_for_time

    async def stop(self, *, drain: bool = True) -> None:
        if drain and self._runner is not None:
            await self.join()
        if self._runner is not None:
            self._runner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._runner
            self._runner = None
        for task in list(self._tasks):
            task.cancel()
        with contextlib.suppress(Exception):
            await self._limit(self.limiter.close)
        if isinstance(self._caller, ThreadedBot):
            with contextlib.suppress(Exception):
                await self._caller.close()
            self._caller = self.bot
        if self.send_loop is not None and self.send_loop.loop is not None:
            self.send_loop.stop()

    # -- the scheduler --------------------------------------------------------------

    def _chat_rate(self, chat_id: int) -> Rate:
        return self.rates.group if chat_id < 0 else self.rates.private

    def _ready_at(self, chat: int) -> float:
        head = self._chats[chat][0]
        ready = self._next_chat.get(chat, 0.0) if head.paced else 0.0
        return max(ready, self._blocked.get(chat, 0.0))

    def _schedule(self, chat: int) -> None:
        """File an idle chat with something to send under ready (by its head's
        rank) or waiting (by the time it may send). Stale entries are skipped
        when they come up, so a chat may safely be filed twice."""
        if chat in self._busy or chat not in self._chats:
            return
        at = self._ready_at(chat)
        if at <= self.clock():
            head = self._chats[chat][0]
            heapq.heappush(self._ready, (int(head.priority), head.order, chat))
        else:
            heapq.heappush(self._waiting, (at, chat))

    def _pick(self, now: float) -> tuple[Job | None, float]:
        """The job to send now (ready, most urgent, oldest), else the earliest time
        one will be ready (inf if there is nothing to wait for). Two heaps, so a
        pick costs log(chats), not a scan of every chat with something queued."""
        while self._waiting and self._waiting[0][0] <= now:
            self._schedule(heapq.heappop(self._waiting)[1])
        ready = self._ready
        while ready:
            _, order, chat = ready[0]
            queue = self._chats.get(chat)
            if queue and chat not in self._busy and queue[0].order == order:
                break
            heapq.heappop(ready)  # stale: sent, or filed twice
        soonest = self._waiting[0][0] if self._waiting else float("inf")
        if not ready:
            return None, soonest
        if self._next_any > now:
            return None, self._next_any
        chat = heapq.heappop(ready)[2]
        queue = self._chats[chat]
        job = queue.popleft()
        if not queue:
            del self._chats[chat]
        return job, now

    async def _run(self) -> None:
        while True:
            now = self.clock()
            job, ready = self._pick(now)
            if job is None:
                if not self._busy and not self._chats:
                    self._idle.set()
                self._wake.clear()
                if ready == float("inf"):
                    await self._wake.wait()
                else:
                    self._waiting_for_time = True
                    try:
                        await self._nap(ready - now)
                    finally:
                        self._waiting_for_time = False
                continue
            if len(self._next_chat) > PRUNE_AT:
                self._prune(now)
            chat = job.chat_id
            if job.withdrawn:
                job.settle(Failed("withdrawn"))
                self._schedule(chat)
                continue
            self._busy.add(chat)
            try:
                wait = await self._slot(job, now)
            except asyncio.CancelledError:  # stopped while asking: keep the job
                wait = None
                raise
            finally:
                if wait is None:
                    self._chats.setdefault(chat, deque()).appendleft(job)
                    self._busy.discard(chat)
            if wait is None:  # not yet: back to the head of its chat's queue
                self._schedule(chat)
                continue
            if self.keep_log and job.attempts == 0:
                self.stats.log.append((chat, job.label))
            task = asyncio.create_task(self._deliver(job, wait))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _slot(self, job: Job, now: float) -> float | None:
        """Reserve the job's slot in the limiter: seconds until it may go, or
        None when not yet (then note until when, so that this worker asks again
        only when a slot may be free: for the chat, or for the whole bot)."""
        chat = job.chat_id
        buckets = telegram_buckets(self.scope, self.rates, chat, paced=job.paced)
        try:
            if isinstance(self._caller, ThreadedBot):
                grant, at = await self._limit(lambda: self._caller.reserve(buckets, LOOKAHEAD))
                job.slot = (at, buckets)
            else:
                grant = await self.limiter.reserve(buckets)
        except Exception as exc:  # Redis away: wait and ask again, never drop
            self._limiter_away(chat, exc)
            return None
        # What this worker knows the buckets cannot allow before: a hint that
        # spares asking the limiter in vain (another worker may make it later).
        ahead = LOOKAHEAD if isinstance(self._caller, ThreadedBot) else 0.0
        for i, b in enumerate(buckets):
            at = now + grant.wait + b.rate.interval - b.rate.tolerance - ahead if grant.ok else 0.0
            if not grant.ok and i == grant.blocker:
                at = now + grant.wait
            if b.name == "bot":
                self._next_any = max(self._next_any, at)
            else:
                self._next_chat[chat] = max(self._next_chat.get(chat, 0.0), at)
        if not grant.ok:
            return None
        return 0.0 if isinstance(self._caller, ThreadedBot) else grant.wait  # (it waits there)

    def _limiter_away(self, chat: int, exc: Exception) -> None:
        """The limiter could not be asked: hold `chat` a moment, then ask again."""
        self.stats.limiter_errors += 1
        log.warning("rate limiter unavailable (%s); holding chat %s", exc, chat)
        self._blocked[chat] = self.clock() + self.network_retry

    async def _limit(self, work: Callable[[], Awaitable[T]]) -> T:
        """Limiter calls run where the limiter's connections live: on the send
        loop when there is one."""
        if isinstance(self._caller, ThreadedBot):
            return await self._caller.send_loop.run(work)
        return await work()

    def _prune(self, now: float) -> None:
        """Forget pacing and blocking times already past (they hold nothing
        back), so that a long-running bot's bookkeeping stays small."""
        self._next_chat = {c: t for c, t in self._next_chat.items() if t > now}
        self._blocked = {c: t for c, t in self._blocked.items() if t > now}

    async def _nap(self, seconds: float) -> None:
        """Sleep until the next job is due, or until a new one arrives."""
        self.stats.waited += seconds
        sleeper = asyncio.ensure_future(self.sleep(seconds))
        waker = asyncio.ensure_future(self._wake.wait())
        try:
            await asyncio.wait({sleeper, waker}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for t in (sleeper, waker):
                if not t.done():
                    t.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await t

    async def _deliver(self, job: Job, wait: float = 0.0) -> None:
        chat = job.chat_id
        requeue = False
        try:
            if wait > 0:
                await self.sleep(wait)
            if job.withdrawn:  # withdrawn while its slot was taken
                job.settle(Failed("withdrawn"))
                return
            job.attempts += 1
            token = SLOT.set(job.slot)
            try:
                result = await job.call(self._caller)
            finally:
                SLOT.reset(token)
        except RetryAfter as exc:
            wait = retry_seconds(exc)
            self.stats.retried_429 += 1
            job.slot = None
            self._blocked[chat] = self.clock() + wait
            requeue = True
            await self._hold(chat, wait)
        except (Forbidden, BadRequest) as exc:
            if "not modified" in str(exc).lower():
                self._done(job, None)
            else:  # this call can never succeed: resending would loop forever
                self.stats.failed += 1
                log.warning("telegram refused %s for chat %s: %s", job.label, chat, exc)
                job.settle(Failed(str(exc)))
        except NetworkError as exc:  # timeouts, connection errors, Telegram's 5xx
            self.stats.retried_network += 1
            self._blocked[chat] = self.clock() + self.network_retry
            log.info("network trouble sending %s to %s, retrying: %s", job.label, chat, exc)
            requeue = True
        except NotSent as exc:  # the limiter away before the request: send it later
            job.slot = None
            self._limiter_away(chat, exc)
            requeue = True
        except TelegramError as exc:  # e.g. a group migrated: resending can't help
            self.stats.failed += 1
            log.warning("telegram error for %s to chat %s: %s", job.label, chat, exc)
            job.settle(Failed(str(exc)))
        except Exception as exc:  # e.g. the store away in a prompt's check: a few tries
            if job.attempts < ODD_TRIES:
                self.stats.retried_network += 1
                self._blocked[chat] = self.clock() + self.network_retry * job.attempts
                log.warning("sending %s to chat %s failed, trying again: %r", job.label, chat, exc)
                requeue = True
            else:
                self.stats.failed += 1
                log.exception("sending %s to chat %s failed", job.label, chat)
                job.settle(Failed(repr(exc)))
        else:
            self._done(job, result)
            rate = self._chat_rate(chat)
            if job.paced and rate.burst <= 1:
                # The chat's next message waits a full interval from this one's
                # answer, not from its reserved slot: a send that went out late
                # (a busy loop, a slow network) never lands its successor closer
                # than the chat's limit where Telegram counts it, on arrival.
                after = self.clock() + rate.interval
                self._next_chat[chat] = max(self._next_chat.get(chat, 0.0), after)
        finally:
            if requeue:
                self._chats.setdefault(chat, deque()).appendleft(job)
            self._busy.discard(chat)
            self._schedule(chat)
            self._wake.set()

    async def _hold(self, chat: int, seconds: float) -> None:
        """Tell every worker: nothing to this chat for `seconds` (a 429)."""
        bucket = Bucket(self.scope, f"chat:{chat}", self._chat_rate(chat))
        try:
            await self._limit(lambda: self.limiter.hold(bucket, seconds))
        except Exception as exc:
            self.stats.limiter_errors += 1
            log.warning("rate limiter unavailable (%s); chat %s held here only", exc, chat)

    def _done(self, job: Job, result: Any) -> None:
        self.stats.sent += 1
        if job.on_done is not None:
            try:
                job.on_done(result)
            except Exception:
                log.exception("on_done of %s failed", job.label)
        job.settle(result)
