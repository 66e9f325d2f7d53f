"""Arming deadlines and reminders on APScheduler 3 from the games' state.

`DeadlineScheduler` holds one `AsyncIOScheduler` job per pending deadline and
per pending reminder, computed by `scheduler.plan` from the game state. Jobs live
in APScheduler's memory store only: on start, and every resync, the games that
fall due within `lookahead` seconds are read from the store's deadline index
(each commit writes its game's next instant there, atomically with the
snapshot), and of those only the games whose version moved since this
scheduler last synced them are loaded and decoded (issue #31: an idle campaign
costs an index entry, not a decoding every few seconds). Nothing depends on a
job store surviving (APScheduler's FAQ forbids sharing one between processes).

Why the job options: APScheduler's default `misfire_grace_time` is 1 s, which
silently drops a one-off job whose time passed while the process was down or the
loop was busy. Deadlines use `misfire_grace_time=None` (always run, however late)
and `coalesce=True` (a job due several times runs once).

Firing never trusts the job: it reloads the game and submits only if the phase
the job was armed for is still current, running and due; otherwise it re-arms
from the fresh state (a resume moved the deadline, the phase moved on). The
service dedupes on `deadline:{game}:{seq}` and the core refuses stale or early
deadlines, so a double firing (two leaders for a moment, a retry) changes nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import time
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any

from apscheduler.jobstores.base import JobLookupError  # type: ignore[import-untyped]
from apscheduler.schedulers.asyncio import AsyncIOScheduler  # type: ignore[import-untyped]
from apscheduler.triggers.date import DateTrigger  # type: ignore[import-untyped]

from gameflow.core.away import present
from gameflow.core.events import Event
from gameflow.core.rules import rules_for
from gameflow.core.state import Game
from scheduler.plan import DEADLINE, DEFAULT, Pending, Policy, Schedule, fire_time, jobs, schedule
from scheduler.ports import DeadlineSink, GameSource, deadline_key
from service.backoff import doubled

log = logging.getLogger("scheduler")

JOB_DEFAULTS = {"misfire_grace_time": None, "coalesce": True, "max_instances": 1}
RETRY_FIRST = 2.0  # seconds before re-submitting a deadline the state still shows
RETRY_MAX = 60.0
MAX_IN_FLIGHT = 64  # deadlines and reminders loading at once (the Redis pool has 128)
LOAD_AT_ONCE = 10  # concurrent loads in a resync: a few of the store's connections
# Seconds ahead a resync arms: well over the resync period (the runner takes
# the larger of this and 3 periods), so a job is held before it is due.
LOOKAHEAD = 900.0


def _utc(t: float) -> datetime:
    return datetime.fromtimestamp(t, UTC)


class CoalescingScheduler(AsyncIOScheduler):  # type: ignore[misc]
    """AsyncIOScheduler whose wake-ups coalesce: APScheduler wakes up (scans its
    store, resets its timer) after every added job, which for a firing that arms
    the next phase means several scans per deadline. Here many wake-up requests
    in one loop iteration become one."""

    _wake_pending = False

    def wakeup(self) -> None:
        if self._wake_pending or self._eventloop is None:
            return
        self._wake_pending = True
        self._eventloop.call_soon_threadsafe(self._wake)

    def _wake(self) -> None:
        self._wake_pending = False
        if not self.running:
            return
        self._stop_timer()
        self._start_timer(self._process_jobs())


class DeadlineScheduler:
    """Deadlines and reminders of many games on one AsyncIOScheduler.

    `may_fire` is asked right before every submission; the runner wires it to
    "my leader lease is still valid", so a leader that lost its lease goes quiet
    even before it has noticed.
    """

    def __init__(
        self,
        source: GameSource,
        sink: DeadlineSink,
        *,
        policy: Policy = DEFAULT,
        clock: Callable[[], float] = time.time,
        may_fire: Callable[[], bool] = lambda: True,
        aps: AsyncIOScheduler | None = None,
        lookahead: float = LOOKAHEAD,
    ) -> None:
        self.source = source
        self.lookahead = lookahead
        self.sink = sink
        self.policy = policy
        self.clock = clock
        self.may_fire = may_fire
        self.aps = aps or CoalescingScheduler(timezone=UTC, job_defaults=JOB_DEFAULTS)
        self._armed: dict[str, dict[str, float]] = {}  # game id -> job id -> instant
        self._retry: dict[tuple[str, int], tuple[float, float]] = {}  # (game, seq) -> (at, wait)
        self._inflight: set[str] = set()  # deadline jobs firing now: a resync must not re-add
        # reminders already sent, per game, for its current phase: never twice
        self._reminded: dict[str, tuple[int, set[str]]] = {}
        # the schedule each armed game's jobs were made from: a wake-up that
        # carries the same one needs no load (`refresh`)
        self._schedules: dict[str, Schedule] = {}
        # the version each game was last synced from: a resync loads a game of
        # the index's window only when its entry names another (or none)
        self._versions: dict[str, int] = {}
        self._stopped = False
        # Deadlines and reminders loading at once: a burst (10,000 missed while no
        # scheduler ran) would otherwise start every load together, exhaust the
        # store's connection pool and fail most of them, again at every re-arm.
        self._slots = asyncio.Semaphore(MAX_IN_FLIGHT)
        self.stats = {
            "submitted": 0,
            "reminded": 0,
            "stale": 0,
            "early": 0,
            "errors": 0,
            "held": 0,
            "unchanged": 0,
            "loaded": 0,  # games a resync loaded (its index entry had moved)
        }

    # -- life cycle ---------------------------------------------------------------

    async def start(self) -> int:
        """Arm every game due within the look-ahead, then start the timing
        engine (must run inside the event loop). Jobs already due fire at once.
        Returns the games of the window."""
        count = await self.rearm_all()
        self.aps.start()
        return count

    def stop(self) -> None:
        """Stop firing and forget every job. An instance serves one leadership
        term: the next term builds a new one, which re-arms from state."""
        self._stopped = True
        if self.aps.running:
            self.aps.shutdown(wait=False)
        self._armed.clear()
        self._retry.clear()
        self._reminded.clear()
        self._schedules.clear()
        self._versions.clear()

    @property
    def running(self) -> bool:
        return bool(self.aps.running) and not self._stopped

    def job_count(self) -> int:
        return sum(len(jobs) for jobs in self._armed.values())

    def armed(self, game_id: str) -> dict[str, float]:
        """The jobs held for a game (job id -> instant), for tests and status pages."""
        return dict(self._armed.get(game_id, {}))

    # -- arming -------------------------------------------------------------------

    async def rearm_all(self) -> int:
        """The resync: arm what falls due within `lookahead` from the store's
        deadline index, loading only the games whose entry names a version
        this scheduler has not synced (or none). A game further off costs
        nothing here: it is loaded when it comes into the window, or armed by
        the wake-up of its commit. Jobs held for a game whose entry moved on
        (a lost wake-up) fire, reload and re-arm from the state (`_deadline`).

        Loads `LOAD_AT_ONCE` games at a time, yielding to the event loop
        between them: a takeover's window may hold thousands."""
        entries = await self.source.due(self.clock() + self.lookahead)
        window = {e.game_id for e in entries}
        stale = [
            e.game_id
            for e in entries
            if e.version is None or self._versions.get(e.game_id) != e.version
        ]
        for start in range(0, len(stale), LOAD_AT_ONCE):
            chunk = stale[start : start + LOAD_AT_ONCE]
            loaded = await asyncio.gather(
                *(self.source.load(g) for g in chunk), return_exceptions=True
            )
            self.stats["loaded"] += len(chunk)
            for game_id, game in zip(chunk, loaded, strict=True):
                try:
                    if isinstance(game, BaseException):
                        raise game
                    if game is None:
                        self.forget(game_id)
                    else:
                        self.sync(game)
                except Exception:  # one broken game must not keep the others unarmed
                    log.exception("arming %s failed", game_id)
        # Only the window's versions are kept: a game that leaves it (its next
        # instant moved further off) is loaded again when it comes back.
        for game_id in [g for g in self._versions if g not in window]:
            del self._versions[game_id]
        return len(entries)

    async def refresh(
        self, game_id: str, said: Schedule | None = None, version: int | None = None
    ) -> None:
        """Re-arm one game from the store (a wake-up from the service). `said`:
        the schedule of the state that woke us, as the committing worker worked
        it out with the default policy; when it is the one this game's jobs
        were made from, they stand as they are and nothing is loaded. Every
        commit sends its own wake-up, so one skipped this way loses nothing,
        even when it comes late: the jobs already fit its state, and a newer
        state's wake-up carries that state's schedule. `version`: the state's,
        noted so that a resync does not load the game for it either."""
        if said is not None and self.policy == DEFAULT and self._schedules.get(game_id) == said:
            self.stats["unchanged"] += 1
            if version is not None and version > self._versions.get(game_id, -1):
                self._versions[game_id] = version
            return
        game = await self.source.load(game_id)
        if game is None:
            self.forget(game_id)
        else:
            self.sync(game)

    def on_transition(self, game: Game, events: Iterable[Event] = ()) -> None:
        """The service's hook after an accepted transition. TIMER and REMINDER events
        say what the core wants armed; the plan derives exactly that from `game`
        (and also covers pause, which emits no timer, and the end of the game)."""
        self.sync(game)

    def sync(self, game: Game) -> None:
        """Hold exactly the jobs that `plan(game)` lists (cheap when nothing changed)."""
        if self._stopped:
            return  # a firing that finished after stop(): the next term re-arms
        now = self.clock()
        sent = self._sent(game.id, game.phase.seq)
        made = schedule(game, self.policy)
        self._versions[game.id] = game.version
        wanted: dict[str, Pending] = {}
        for job in jobs(game.id, made, now, self.policy):
            if job.job_id in self._inflight:
                continue  # its firing re-syncs the game when it is done
            if job.kind != DEADLINE and job.job_id in sent:
                continue
            if job.kind == DEADLINE:
                retry = self._retry.get((game.id, job.seq))
                if retry is not None:
                    job = job._replace(at=max(job.at, retry[0]))
            wanted[job.job_id] = job
        if self._retry:
            for key in [k for k in self._retry if k[0] == game.id and k[1] != game.phase.seq]:
                del self._retry[key]
        held = self._armed.get(game.id, {})
        for job_id in [j for j in held if j not in wanted]:
            self._remove(job_id)
        if not wanted:
            self._armed.pop(game.id, None)
            self._schedules.pop(game.id, None)
            return
        armed: dict[str, float] = {}
        for job_id, job in wanted.items():
            if held.get(job_id) != job.at:
                self._add(game.id, job)
            armed[job_id] = job.at
        self._armed[game.id] = armed
        self._schedules[game.id] = made

    def forget(self, game_id: str) -> None:
        self._reminded.pop(game_id, None)
        self._versions.pop(game_id, None)
        self._schedules.pop(game_id, None)
        for job_id in self._armed.pop(game_id, {}):
            self._remove(job_id)

    def _sent(self, game_id: str, seq: int) -> set[str]:
        """The reminders sent in phase `seq` of a game (older phases forgotten)."""
        held = self._reminded.get(game_id)
        if held is None or held[0] != seq:
            if held is None and not self._reminded:
                return set()  # nothing sent anywhere: the common case, no allocation kept
            held = (seq, set())
            self._reminded[game_id] = held
        return held[1]

    def _add(self, game_id: str, job: Pending) -> None:
        func = _deadline_job if job.kind == DEADLINE else _reminder_job
        args: tuple[Any, ...] = (self, game_id, job.seq, job.job_id, job.at)
        run_date = _utc(job.at)
        # Every job option is given, so APScheduler has no defaults to fill in later.
        self.aps.add_job(
            func,
            DateTrigger(run_date=run_date),
            args=args,
            id=job.job_id,
            name=job.job_id,
            replace_existing=True,
            misfire_grace_time=None,
            coalesce=True,
            max_instances=1,
            executor="default",
            jobstore="default",
            next_run_time=run_date,
        )

    def _remove(self, job_id: str) -> None:
        with contextlib.suppress(JobLookupError):  # it may have just run
            self.aps.remove_job(job_id)

    def _ran(self, game_id: str, job_id: str) -> None:
        held = self._armed.get(game_id)
        if held is not None:
            held.pop(job_id, None)
            if not held:
                del self._armed[game_id]

    # -- firing -------------------------------------------------------------------

    async def _fire_deadline(self, game_id: str, seq: int, job_id: str, at: float) -> None:
        self._ran(game_id, job_id)
        self._inflight.add(job_id)
        try:
            async with self._slots:
                game = await self._deadline(game_id, seq)
        finally:
            self._inflight.discard(job_id)
        if game is None:
            self.forget(game_id)
        else:
            self.sync(game)  # the next phase, a later time, or a retry

    async def _deadline(self, game_id: str, seq: int) -> Game | None:
        """Submit the deadline if it is still current and due; the state to re-arm from."""
        game = await self.source.load(game_id)
        if game is None:
            return None
        due = fire_time(game) if game.phase.seq == seq else None
        if due is None:
            self.stats["stale"] += 1  # the phase moved on, was paused or ended
            return game
        now = self.clock()
        if now < due:
            self.stats["early"] += 1  # resumed or snapped later: arm the real time
            return game
        if not self.may_fire():
            # The lease is in doubt: hold back (the runner stops us if it is lost,
            # and a new leader fires it); try again after the backoff otherwise.
            self.stats["held"] += 1
        else:
            try:
                await self.sink.submit_deadline(game_id, seq, deadline_key(game_id, seq))
            except Exception:
                self.stats["errors"] += 1
                log.exception("submitting deadline %s/%s failed; retrying", game_id, seq)
            else:
                self.stats["submitted"] += 1
        # Until the state shows the next phase, try again later (with backoff): the
        # service may have queued the input, or lost it; the key makes repeats harmless.
        _, last = self._retry.get((game_id, seq), (0.0, None))
        wait = doubled(last, RETRY_FIRST, RETRY_MAX)
        self._retry[(game_id, seq)] = (now + wait, wait)
        return await self.source.load(game_id)

    async def _fire_reminder(self, game_id: str, seq: int, job_id: str, at: float) -> None:
        self._ran(game_id, job_id)
        sent = self._reminded.setdefault(game_id, (seq, set()))
        if sent[0] != seq:
            sent = self._reminded[game_id] = (seq, set())
        if job_id in sent[1]:
            return
        sent[1].add(job_id)
        async with self._slots:
            game = await self.source.load(game_id)
            if game is None or game.phase.seq != seq or fire_time(game) is None:
                return
            if self.clock() - at > self.policy.reminder_grace or not self.may_fire():
                return
            # Players away (gameflow.core.away) are not chased while they are.
            seats = present(game, rules_for(game.kind).awaiting(game), self.clock())
            if seats:
                await self.sink.send_reminder(game_id, seq, seats)
                self.stats["reminded"] += 1


# APScheduler checks every job's arguments against `inspect.signature(func)`, which
# costs ~200 us for a bound method: most of the re-arm time for 10,000 games. Plain
# module functions with a precomputed `__signature__` make that check cheap.


async def _deadline_job(
    sched: DeadlineScheduler, game_id: str, seq: int, job_id: str, at: float
) -> None:
    await sched._fire_deadline(game_id, seq, job_id, at)


async def _reminder_job(
    sched: DeadlineScheduler, game_id: str, seq: int, job_id: str, at: float
) -> None:
    await sched._fire_reminder(game_id, seq, job_id, at)


for _job in (_deadline_job, _reminder_job):
    _job.__signature__ = inspect.signature(_job)  # type: ignore[attr-defined]
