"""SMS delivery from the durable outbox: any worker sends what any commit decided.

The texts of a commit are written with it (adapters/sms/notifier.py,
`SmsComposer`); this loop, in every worker, finds the games with texts to
send (`outbox_ready("sms")`), takes a game's next batch, sends each text
through Twilio (adapters/sms/outbound.py: the sender's pace, 429s and outages
waited out) and acks it with Twilio's SID once Twilio accepted it. Then no
worker's death loses a text: a batch its consumer holds unacked for
`min_idle` seconds is handed to the next worker that asks, unacked rest
first. A worker killed between Twilio's accept and its ack leaves that one
text to be sent again (at most once more per crash): the only duplicate.

What needs I/O is decided here, at delivery time, not in the commit: the
player's number (the directory's, so a number changed since is used) and
STOP (a player who opted out meanwhile is skipped: acked as skipped, their
private lines are not sent anywhere else). Both are looked up for each text
just before it goes, not once per batch: a batch at a long code's pace of one
a second lasts long enough for a STOP to come in during it, and the rest of
the batch to that player then stays unsent (one directory round trip a text,
next to Twilio's own). The record of the sheet last
texted (`SentSheets`) is written just before the text that carries it is
handed to Twilio, so an answer to a text on the phone never meets an older
record; a crash between the record and the send writes it again on the
redelivery.

A batch is sent in order, one text at a time, and acked text by text; games
are delivered in parallel (`parallel` at once), and one game has one batch
out at a time (the store's rule), so a menu never overtakes the result it
follows. Sending one game's texts one by one costs nothing at an SMS sender's
pace (a long code sends one a second, whatever the parallelism), and keeps
what a kill can duplicate to one text per game being delivered. While a batch is out its hold is renewed
(`renew`), so a long wait on the sender's pace or on a 429 is not taken for
death. The loop sleeps on a wake-up (this worker's own commits: `notify`) or
`poll` seconds (other workers' commits), and every `scan_every` seconds asks
with `scan=True`, the backstop for a hint lost on a Redis Cluster. It runs as
a task of its own, never on a webhook handler's path.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import secrets
import socket
from typing import Any

from adapters.sms.directory import Directory
from adapters.sms.notifier import CHANNEL, SentSheets, SmsComposer, record_of
from adapters.sms.outbound import Outbox, OutMessage
from gameflow.core.events import Event, Kind
from gameflow.core.state import Game
from service.outbox import DEFAULT_CLAIM_IDLE, OutboxEntry
from service.ports import GameStore

log = logging.getLogger(__name__)

POLL = 1.0  # seconds between looks for other workers' commits
SCAN_EVERY = 60.0  # seconds between backstop scans of every active game
PARALLEL = 32  # games delivered at once
BATCH = 100
STOP_GRACE = 5.0  # seconds a stopping worker lets its batches in hand finish


def consumer_name() -> str:
    """Unique per process start: a restarted worker is a new consumer, so the
    batch its dead predecessor held is claimed, never silently resumed."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


class Delivery:
    def __init__(
        self,
        store: GameStore,
        directory: Directory,
        sender: Outbox,
        sheets: SentSheets,
        *,
        consumer: str | None = None,
        min_idle: float = DEFAULT_CLAIM_IDLE,
        poll: float = POLL,
        scan_every: float = SCAN_EVERY,
        parallel: int = PARALLEL,
        composer: SmsComposer | None = None,
    ) -> None:
        self.store = store
        self.directory = directory
        self.sender = sender
        self.sheets = sheets
        self.composer = composer
        self.consumer = consumer or consumer_name()
        self.min_idle = min_idle
        self.poll = poll
        self.scan_every = scan_every
        self.parallel = asyncio.Semaphore(parallel)
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._active: dict[str, asyncio.Task[int]] = {}  # game -> its delivery here
        self.delivered = 0  # texts Twilio accepted (this process)
        self.skipped = 0  # texts to nobody reachable (STOP, no number)
        self.reclaimed = 0  # entries handed out again after a dead consumer

    # -- the Notifier port: a commit of this worker wakes the loop at once ---------

    async def notify(self, game: Game, events: tuple[Event, ...]) -> None:
        """After a commit: wake up (its texts are in the outbox already). The
        scheduler's reminders come this way too, with no commit: they are
        composed and appended to the game's outbox here."""
        reminders = tuple(e for e in events if e.kind is Kind.REMINDER)
        if reminders and self.composer is not None:
            tag = f"{game.version}:{game.phase.seq}:{secrets.token_hex(3)}"
            messages = self.composer.remind(game, reminders, tag)
            if messages:
                await self.store.append_outbox(game.id, messages)
        self._wake.set()

    def wake(self) -> None:
        self._wake.set()

    # -- running -----------------------------------------------------------------

    def start(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name="sms-delivery")

    async def stop(self, grace: float = STOP_GRACE) -> None:
        """Stop looking for work; let the batches in hand finish for `grace`
        seconds (a rolling restart then leaves nothing to reclaim), then cancel
        the rest (their unacked texts go to the next worker after `min_idle`)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        busy = list(self._active.values())
        if busy:
            _, late = await asyncio.wait(busy, timeout=grace)
            for task in late:
                task.cancel()
            await asyncio.gather(*late, return_exceptions=True)

    def status(self) -> str:
        """For /healthz."""
        return "running" if self._task is not None and not self._task.done() else "stopped"

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        last_scan = loop.time()
        while True:
            scan = loop.time() - last_scan >= self.scan_every
            if scan:
                last_scan = loop.time()
            try:
                await self._spawn(scan=scan)
            except asyncio.CancelledError:
                raise
            except Exception:  # the store away for a moment: try again later
                log.exception("SMS delivery failed; trying again")
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.poll)
            self._wake.clear()

    async def _spawn(self, *, scan: bool = False) -> list[asyncio.Task[int]]:
        """A task per ready game that this worker is not delivering already: a
        game slowed by the sender's pace never holds up another's texts."""
        started = []
        for game_id in await self.store.outbox_ready(CHANNEL, scan=scan):
            if game_id in self._active:
                continue
            task = asyncio.create_task(self._game(game_id))
            self._active[game_id] = task
            task.add_done_callback(functools.partial(self._done, game_id))
            started.append(task)
        return started

    def _done(self, game_id: str, task: asyncio.Task[int]) -> None:
        self._active.pop(game_id, None)
        if not task.cancelled() and task.exception() is not None:
            log.error("SMS delivery of %s failed", game_id, exc_info=task.exception())
        elif not task.cancelled() and task.result():
            self._wake.set()  # a full batch may have more behind it

    async def once(self, *, scan: bool = False) -> int:
        """One pass, waited for: every ready game's next batch delivered (those
        this worker delivers already included). Returns how many entries the
        pass's new batches held."""
        await self._spawn(scan=scan)
        tasks = list(self._active.values())
        done = await asyncio.gather(*tasks, return_exceptions=True)
        for r in done:
            if isinstance(r, BaseException):
                raise r
        return sum(r for r in done if isinstance(r, int))

    async def drain(self, timeout: float = 60.0) -> None:
        """Deliver until nothing is ready (tests, and a graceful stop), also what
        another consumer holds (waited for); then wait for the in-memory queue
        of texts that belong to no game."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        try:
            while loop.time() < end:
                if not await self.once():
                    if not await self.store.outbox_ready(CHANNEL):
                        break
                    await asyncio.sleep(0.01)  # a batch out elsewhere: wait for its acks
        except Exception:  # the store gone: what is stored waits for the next worker
            log.exception("SMS delivery: drain stopped")
        await self.sender.drain()

    # -- one game ------------------------------------------------------------------

    async def _game(self, game_id: str) -> int:
        async with self.parallel:
            batch = await self.store.take(
                CHANNEL, game_id, self.consumer, count=BATCH, min_idle=self.min_idle
            )
            if not batch:
                return 0
            self.reclaimed += sum(1 for e in batch if e.attempts > 1)
            keeper = asyncio.create_task(self._keep(game_id))
            try:
                for e in batch:
                    await self._one(e)
            finally:
                keeper.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await keeper
            return len(batch)

    async def _keep(self, game_id: str) -> None:
        """Renew the batch's hold while it is delivered (pace and 429 waits)."""
        while True:
            await asyncio.sleep(self.min_idle / 3)
            with contextlib.suppress(Exception):
                await self.store.renew(CHANNEL, game_id, self.consumer)

    async def _one(self, e: OutboxEntry) -> None:
        p = e.payload
        player = str(p.get("player"))
        result: dict[str, Any] = {}
        body = p.get("body")
        sheet, closed = record_of(p)
        if sheet is not None or closed is not None:  # first: see the module doc
            await self.sheets.record(e.game_id, player, sheet, closed)
        if body:
            # Now, not at the batch's start: a STOP or a new number since counts.
            phone = (await self.directory.reachable([player])).get(player)
            if phone is None:  # opted out (or no number): skipped, not sent elsewhere
                self.skipped += 1
                result = {"skipped": True}
            else:
                m = OutMessage(phone, str(body), e.game_id, player, bool(p.get("secret")))
                sent = await self.sender.deliver(m)
                if sent.sid is None:
                    result = {"failed": sent.error}
                else:
                    self.delivered += 1
                    result = {"sid": sent.sid}
        await self.store.ack(CHANNEL, e.game_id, e.key, result)
