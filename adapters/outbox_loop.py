"""The outbox delivery loop shared by the channels: any worker sends what any
commit decided (issue #19; the port is service/outbox.py).

A commit writes its messages to the store's outbox before anything is sent, so
a worker that dies mid-send loses nothing: the loop here takes each game's next
batch, hands it to the channel, and a batch left unacked by a dead worker goes
to the next one. Games are delivered in parallel, so one game's slow chats never
hold up another's, and a campaign's messages wait out its quiet hours (issue
#21). The `OutboxLoop` class says how.
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
import functools
import logging
import os
import secrets
import socket
import time
from collections.abc import Callable, Iterable

from cachetools import LRUCache

from gameflow.core.campaign import is_campaign, quiet_ahead
from gameflow.core.state import LOBBY, Game
from service.outbox import DEFAULT_CLAIM_IDLE, MAX_BATCH, OutboxEntry
from service.ports import GameStore

log = logging.getLogger(__name__)


def _unreachable(exc: BaseException) -> bool:
    """A store that does not answer (refused, timed out), as opposed to a bug:
    one line for the outage instead of a traceback a second."""
    from redis.exceptions import ConnectionError as Refused
    from redis.exceptions import TimeoutError as TimedOut

    return isinstance(exc, OSError | TimeoutError | Refused | TimedOut)


POLL = 1.0  # seconds between looks for other workers' commits
SCAN_EVERY = 60.0  # seconds between backstop scans of every active game
SCAN_RETRY = 5.0  # seconds after a failed scan before the next try
PARALLEL = 32  # games delivered at once
BATCH = 100
QUIET_CACHE = 10_000  # games whose quiet hours a worker keeps in mind
STOP_GRACE = 5.0  # seconds a stopping worker lets its batches in hand finish


def consumer_name() -> str:
    """Unique per process start: a restarted worker is a new consumer, so the
    batch its dead predecessor held is claimed, never silently resumed."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


class OutboxLoop(abc.ABC):
    """The loop; a channel subclasses it and implements `deliver`.

    Every worker runs one loop per channel. It finds the games with messages to
    send (`outbox_ready(channel)`), takes a game's next batch (`take`: one batch
    per game and channel at a time, in commit order), hands it to the channel's
    `deliver`, which sends and acks entry by entry once the platform accepted
    it. While a batch is out its hold is renewed (`renew`), so a long wait on a
    platform's rate limit is not taken for death; a batch its worker held unacked
    for `min_idle` seconds (the worker died) is handed to the next worker that
    asks, its unacked rest first, with `attempts` > 1.

    Games are delivered in parallel (`parallel` at once); a game slowed by its
    chats' pace never holds up another game's messages. The loop sleeps on a
    wake-up (this worker's own commits: `wake`) or until its next look, `poll`
    seconds after the last (other workers' commits). A commit here names its
    game (`wake(game_id)`): that game is taken at once without asking the store
    which games are ready (one round trip fewer a commit); the store is asked
    at the looks, and asks with `scan=True`, the backstop for a hint lost
    on a Redis Cluster, on its first pass (a worker starting after a crash is when
    hints were lost) and then every `scan_every` seconds; a scan that failed (the
    store away for a moment) is tried again `scan_retry` seconds later, not a
    whole `scan_every` later, with the ordinary looks in between. It runs as a
    task of its own, never on a webhook handler's path.

    Nobody is woken up (issue #21): a campaign's messages are not sent in its
    quiet hours (`quiet_hours`, default 23:00-07:00 in the game's zone;
    gameflow/core/campaign.py's `quiet_ahead`). A game found in them is not taken: its messages wait in
    the outbox and go when the quiet hours end, together with what else is due by
    then (Telegram merges the news, and a question replaced overnight is never
    sent; SMS joins each player's texts of the night: `released`). Live games are never held, nor a
    lobby (people are joining: their answers come at once)."""

    channel = ""

    def __init__(
        self,
        store: GameStore,
        *,
        consumer: str | None = None,
        min_idle: float = DEFAULT_CLAIM_IDLE,
        poll: float = POLL,
        scan_every: float = SCAN_EVERY,
        parallel: int = PARALLEL,
        batch: int = BATCH,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.wall = wall  # the games' clock (quiet hours are clock times)
        self.consumer = consumer or consumer_name()
        self.min_idle = min_idle
        self.poll = poll
        self.scan_every = scan_every
        self.scan_retry = min(SCAN_RETRY, scan_every)
        self.batch = batch
        self.parallel = asyncio.Semaphore(parallel)
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._active: dict[str, asyncio.Task[int]] = {}  # game -> its delivery here
        self._again: set[str] = set()  # active games found ready again meanwhile
        self._local: set[str] = set()  # games a commit here made ready, not taken yet
        self._look = False  # a wake-up that asks the store (not only for `_local`)
        self._handing: set[str] = set()  # games whose batch is not all handed on yet
        self._looking = False  # asking the store which games have messages
        self.reclaimed = 0  # entries handed out again after a dead consumer
        self.lost_holds = 0  # batches stopped here because another worker took them
        # Quiet hours (a campaign's night): each started game seen, as read
        # once (None: never held), and the games held until when.
        self._quiet: LRUCache[str, Game | None] = LRUCache(maxsize=QUIET_CACHE)
        self.held: dict[str, float] = {}
        self.released: set[str] = set()  # held games whose quiet hours just ended

    @abc.abstractmethod
    async def deliver(self, game_id: str, batch: list[OutboxEntry]) -> None:
        """Send the batch (in order per recipient) and ack each entry."""

    def wake(self, game_id: str | None = None) -> None:
        """Look for work now: `game_id`'s (a commit here; taken without asking
        the store which games are ready), or, without one, whatever the store
        says is ready."""
        if game_id is None:
            self._look = True
        else:
            self._local.add(game_id)
        self._wake.set()

    @property
    def idle(self) -> bool:
        """No batch in hand here (tests that settle on a virtual clock)."""
        return not self._active

    @property
    def handing(self) -> bool:
        """Woken, looking for work, or holding a batch not yet all handed to
        the channel's sender: what a test on a virtual clock waits out before it
        moves the clock (a batch whose sends only wait for their pace is not
        handing any more)."""
        return self._wake.is_set() or self._looking or bool(self._handing)

    def handed(self, game_id: str) -> None:
        """`deliver` says the batch's messages are all queued to be sent."""
        self._handing.discard(game_id)

    # -- running -----------------------------------------------------------------

    def start(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name=f"{self.channel}-delivery")

    async def stop(self, grace: float = STOP_GRACE) -> None:
        """Stop looking for work; let the batches in hand finish for `grace`
        seconds (a rolling restart then leaves nothing to reclaim), then cancel
        the rest (their unacked entries go to the next worker after `min_idle`)."""
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
        next_scan = next_look = loop.time()  # the first pass scans
        away = False  # the store does not answer: said once, not every look
        while True:
            now = loop.time()
            scan = now >= next_scan
            if scan:
                next_scan = now + self.scan_every
            look = scan or self._look or now >= next_look
            if look:
                next_look = now + self.poll
            local, self._local, self._look = self._local, set(), False
            try:
                await self._spawn(scan=scan, look=look, mine=local)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the store away for a moment: try again later
                if not _unreachable(exc):
                    log.exception("%s delivery failed; trying again", self.channel)
                elif not away:
                    log.warning(
                        "%s delivery: the store does not answer (%s: %s); trying again"
                        " at every look, and saying so once it answers",
                        self.channel, type(exc).__name__, exc,
                    )  # fmt: skip
                away = away or _unreachable(exc)
                self._local |= local
                if scan:  # the backstop must not wait a whole round for the next try
                    next_scan = loop.time() + self.scan_retry
            else:
                if away:
                    log.info("%s delivery: the store answers again", self.channel)
                    away = False
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._wake.wait(), max(0.0, next_look - loop.time()))
            self._wake.clear()

    async def _spawn(
        self, *, scan: bool = False, look: bool = True, mine: Iterable[str] = ()
    ) -> list[asyncio.Task[int]]:
        """A task per ready game that this worker is not delivering already:
        those the store lists (when `look`) and those `mine` names (its
        commits here)."""
        started = []
        ready: list[str] = []
        if look:
            self._looking = True
            try:
                ready = list(await self.store.outbox_ready(self.channel, scan=scan))
            finally:
                self._looking = False
        ready.extend(g for g in mine if g not in ready)
        now = self.wall()
        for game_id in ready:
            if game_id in self._active:
                self._again.add(game_id)  # more came meanwhile: look again when done
                continue
            if self._held(game_id, now):
                continue
            if self.held.pop(game_id, None) is not None:
                self.released.add(game_id)  # its first batch holds the night's messages
            self._handing.add(game_id)
            task = asyncio.create_task(self._game(game_id))
            self._active[game_id] = task
            task.add_done_callback(functools.partial(self._done, game_id))
            started.append(task)
        return started

    def _done(self, game_id: str, task: asyncio.Task[int]) -> None:
        self._active.pop(game_id, None)
        self._handing.discard(game_id)
        again = game_id in self._again
        self._again.discard(game_id)
        if not task.cancelled() and task.exception() is not None:
            log.error("%s delivery of %s failed", self.channel, game_id, exc_info=task.exception())
        elif not task.cancelled() and (again or task.result() >= min(self.batch, MAX_BATCH)):
            # Found ready while its batch was out (a commit since), or a full
            # batch that may have more behind it: look again now. Otherwise the
            # batch was all there was (issue #20: no look that finds nothing).
            self.wake(game_id)

    async def once(self, *, scan: bool = False) -> int:
        """One pass, waited for: every ready game's next batch delivered (those
        this worker delivers already included). Returns how many entries the
        pass's batches held."""
        await self._spawn(scan=scan)
        tasks = list(self._active.values())
        done = await asyncio.gather(*tasks, return_exceptions=True)
        for r in done:
            if isinstance(r, BaseException):
                raise r
        return sum(r for r in done if isinstance(r, int))

    async def drain(self, timeout: float = 60.0) -> None:
        """Deliver until nothing is ready (tests, and a graceful stop), also what
        another consumer holds (waited for)."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        try:
            while loop.time() < end:
                if not await self.once():
                    if await self.only_held():
                        break  # nothing left, or only what waits for morning
                    await asyncio.sleep(0.01)  # a batch out elsewhere: wait for its acks
        except Exception:  # the store gone: what is stored waits for the next worker
            log.exception("%s delivery: drain stopped", self.channel)

    def _held(self, game_id: str, now: float) -> bool:
        """The game waits out its quiet hours at `now`."""
        return self.held.get(game_id, 0.0) > now

    async def only_held(self) -> bool:
        """Nothing ready here but what waits out quiet hours (or nothing)."""
        now = self.wall()
        return all(self._held(g, now) for g in await self.store.outbox_ready(self.channel))

    # -- one game ------------------------------------------------------------------

    async def _until(self, game_id: str) -> float | None:
        """When the game's quiet hours end, if it is in them now (its calendar
        read once per game while it runs: its options are fixed by then)."""
        if game_id in self._quiet:
            game = self._quiet[game_id]
        else:
            game = await self.store.load(game_id)
            if game is not None and game.phase.name == LOBBY:
                return None  # people are joining (and a lobby has no zone yet)
            if game is not None and not is_campaign(game):
                game = None  # a live game: never held
            self._quiet[game_id] = game  # (a long-running worker forgets the oldest)
        return None if game is None else quiet_ahead(game, self.wall()).ends

    def _hold(self, game_id: str, until: float) -> None:
        """Nothing to this game's players before `until` (its quiet hours end):
        its messages wait in the outbox, merged with whatever else is due by
        then, and this loop wakes up when they may go."""
        self.held[game_id] = until
        with contextlib.suppress(RuntimeError):
            asyncio.get_running_loop().call_later(max(0.0, until - self.wall()) + 0.5, self.wake)

    async def _game(self, game_id: str) -> int:
        async with self.parallel:
            until = await self._until(game_id)
            if until is not None:
                self._hold(game_id, until)
                return 0
            batch = await self.store.take(
                self.channel, game_id, self.consumer, count=self.batch, min_idle=self.min_idle
            )
            if not batch:
                return 0
            self.reclaimed += sum(1 for e in batch if e.attempts > 1)
            work = asyncio.create_task(self.deliver(game_id, batch))
            keeper = asyncio.create_task(self._keep(game_id, work))
            try:
                await work
            except asyncio.CancelledError:
                if not keeper.done() or keeper.cancelled() or not keeper.result():
                    raise  # stopped from outside, not for a lost hold
                # the hold was lost (_keep): the rest is another worker's now
            finally:
                if not work.done():
                    work.cancel()
                keeper.cancel()
                await asyncio.gather(work, keeper, return_exceptions=True)
            return len(batch)

    async def _keep(self, game_id: str, work: asyncio.Task[None]) -> bool:
        """Renew the batch's hold while it is delivered (pace and 429 waits).
        When the store says this worker holds none of it any more while the
        delivery is still going (it stalled past `min_idle`, and another worker
        took the batch over), stop delivering it: the rest is theirs, and
        sending it here as well would send it twice. True when so stopped."""
        while True:
            await asyncio.sleep(self.min_idle / 3)
            try:
                held = await self.store.renew(self.channel, game_id, self.consumer)
            except Exception:  # the store away for a moment: the hold may lapse
                continue
            if held == 0 and not work.done():
                self.lost_holds += 1
                log.warning(
                    "%s delivery of %s: its hold passed to another worker; stopping here",
                    self.channel,
                    game_id,
                )
                work.cancel()
                return True
