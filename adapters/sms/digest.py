"""SMS talk digests (issue #33): a campaign's talk reaches an SMS player as
at most one text every `talk_digest_every` seconds, and at most
`talk_texts_per_day` such texts a local day, instead of a text a line.

The service writes each talk line to the outbox as it writes every text
(service/talk.py, adapters/sms/talk.py: one entry per recipient, marked
`talk`). The SMS delivery hands a campaign's talk entries here (`sift`)
instead of texting them: they are queued in the game's digest record (the
store attribute `ATTR`, swapped atomically, each entry once by its key) and
only then acked, so a worker that dies in between leaves the entry to be
queued by the next one, never lost nor queued twice. A recipient's queued
lines go out as one digest text (`flush`) once their time has come: the
gap since their last digest passed, outside quiet hours, and under the day's
cap (over it: held for the next day's first digest). A digest is made in
the record first (`out`, with the recipient's next digest number, so its
outbox key is fixed) and appended to the outbox after the swap; every later
flush appends the record's `out` again before it swaps it away (the outbox
keeps a key once), so a worker that dies between the swap and the append
loses no digest. A digest holds the oldest queued lines that fit in one
text (MAX_SEGMENTS), in order, and a last line counting those still waiting;
they stay queued for the next digest, so no line is ever dropped.

A player who turns talk texts off (`MUTE`, service/talk.py `texts`) gets
none of the talk queued for them before: `sift` acks such entries without
texting them, and a flush drops their queued lines.

What wakes a flush: every talk entry sifted, a timer of the worker that
queued the lines (at the first recipient's next time), and a sweep of every
active game's record (at start and every SWEEP seconds) for the timers of a
worker that died. Live games, and campaigns with `talk_digest_every` 0,
text each line as it comes.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
from collections.abc import Callable, Sequence
from typing import Any, Final

from adapters.sms.renderer import CHANNEL, MAX_SEGMENTS, split
from adapters.sms.segments import prepare, segments
from gameflow.core.campaign import DIGEST_EVERY, TEXTS_PER_DAY, fit, is_campaign
from gameflow.core.clock import at as clock_at
from gameflow.core.clock import local_day
from gameflow.core.state import Game
from gameflow.core.text import Msg, nmsg
from gameflow.i18n import render
from service.outbox import MAX_BATCH, OutboxEntry, OutboxMessage
from service.ports import GameStore
from service.talk import load_record, texts_off

log = logging.getLogger(__name__)

ATTR: Final = "sms_digest"  # the game's digest record (GameStore.swap_attr), JSON
# Talk entries queued lately, by a short hash of their outbox key: an entry
# handed out again (its worker died before the acks) is queued once; it comes
# back in the next batch, and a batch holds at most MAX_BATCH entries.
KEEP_KEYS: Final = MAX_BATCH
TRIES: Final = 50  # compare-and-set rounds before giving up (workers racing)
SWEEP: Final = 300.0  # seconds between sweeps of every active game's record


def every(game: Game) -> float:
    """Seconds between one SMS player's talk texts (0: a text a line)."""
    value = game.option("talk_digest_every", DIGEST_EVERY)
    return float(value) if isinstance(value, int | float) else DIGEST_EVERY


def per_day(game: Game) -> int:
    """Talk texts an SMS player gets a local day at most (0: no cap)."""
    value = game.option("talk_texts_per_day", TEXTS_PER_DAY)
    return int(value) if isinstance(value, int | float) else TEXTS_PER_DAY


def digesting(game: Game) -> bool:
    """Whether the game's SMS talk goes out as digests: a running campaign
    with a gap set."""
    return is_campaign(game) and bool(game.zone) and every(game) > 0


def more(n: int) -> Msg:
    return nmsg("(+{n} more line in the next text)", "(+{n} more lines in the next text)", n)


def load(raw: str | None) -> dict[str, Any]:
    return load_record(raw, "SMS digest record")


def queue(rec: dict[str, Any], entries: Sequence[OutboxEntry]) -> int:
    """Add the talk entries' lines to their recipients' queues in `rec`
    (changed in place), each entry once by its key; how many were new. A
    line split over several texts (keys `...:1`, `...:2`) is joined again."""
    keys: list[str] = rec.setdefault("keys", [])
    known = set(keys)
    new = 0
    for e in entries:
        short = hashlib.blake2b(e.key.encode(), digest_size=6).hexdigest()
        if short in known:
            continue
        known.add(short)
        keys.append(short)
        new += 1
        player, body = str(e.payload.get("player")), str(e.payload.get("body") or "")
        q: list[list[Any]] = rec.setdefault("q", {}).setdefault(player, [])
        if not e.key.endswith(":0") and q:
            q[-1][0] += " " + body  # the rest of a line split at the last one's end
        else:
            q.append([body, bool(e.payload.get("secret"))])
    del keys[:-KEEP_KEYS]
    return new


def next_time(game: Game, rec: dict[str, Any], player: str, now: float) -> float:
    """The earliest instant, at or after `now`, at which `player` may get
    their next talk text: the gap after the last one, out of quiet hours,
    and on a day whose cap is not reached (else the next day's first)."""
    last = rec.get("last", {}).get(player)
    t = max(now, float(last) + every(game)) if last is not None else now
    t = fit(game, t)
    cap = per_day(game)
    day, count = rec.get("day", {}).get(player, [None, 0])
    for _ in range(3):  # at most once past the day; a quiet end lands in it again
        if not cap or local_day(game.zone, t) != day or int(count) < cap:
            break
        t = fit(game, clock_at(game.zone, local_day(game.zone, t) + 1, 0.0))
    return t


def waiting(rec: dict[str, Any]) -> list[str]:
    """The recipients with lines queued."""
    return sorted(p for p, q in rec.get("q", {}).items() if q)


def body_of(lines: Sequence[str], lang: str, sr_latin: bool) -> tuple[str, int]:
    """One text of the oldest `lines` that fit MAX_SEGMENTS (at least one),
    in order, with a last line counting those left for the next text; the
    text and how many lines it carries."""
    taken = 1
    while taken < len(lines):
        left = len(lines) - taken - 1
        tail = [prepare(render(more(left), lang), lang, sr_latin)] if left else []
        if segments("\n".join([*lines[: taken + 1], *tail])) > MAX_SEGMENTS:
            break
        taken += 1
    left = len(lines) - taken
    tail = [prepare(render(more(left), lang), lang, sr_latin)] if left else []
    return "\n".join([*lines[:taken], *tail]), taken


def make(game: Game, rec: dict[str, Any], now: float, sr_latin: bool) -> list[list[Any]]:
    """The digests due at `now` (changed in `rec`: the lines texted taken off
    the queues, the rest left for the next digest; times, counts and numbers
    moved on); each [player, number, body, secret]."""
    made: list[list[Any]] = []
    for player in waiting(rec):
        if next_time(game, rec, player, now) > now:
            continue
        q = rec["q"][player]
        n = int(rec.setdefault("n", {}).get(player, 0)) + 1
        rec["n"][player] = n
        rec.setdefault("last", {})[player] = now
        today = local_day(game.zone, now)
        day, count = rec.setdefault("day", {}).get(player, [None, 0])
        rec["day"][player] = [today, int(count) + 1 if day == today else 1]
        body, taken = body_of([str(line) for line, _ in q], game.lang, sr_latin)
        made.append([player, n, body, any(bool(s) for _, s in q[:taken])])
        del q[:taken]
        if not q:
            del rec["q"][player]
    return made


def messages(out: Sequence[Sequence[Any]]) -> list[OutboxMessage]:
    """The outbox messages of digests (keys `d:{player}:{number}:{text}`)."""
    result: list[OutboxMessage] = []
    for player, n, body, secret in out:
        for i, chunk in enumerate(split(str(body))):
            payload = {"player": player, "body": chunk, "secret": bool(secret), "digest": True}
            result.append(OutboxMessage(CHANNEL, f"d:{player}:{n}:{i}", payload))
    return result


class Digests:
    """The digests of the SMS delivery (adapters/sms/delivery.py)."""

    def __init__(
        self,
        store: GameStore,
        *,
        sr_latin: bool,
        clock: Callable[[], float],
        wake: Callable[[str], None] | None = None,
    ) -> None:
        self.store = store
        self.sr_latin = sr_latin
        self.clock = clock
        self.wake = wake
        self.sent = 0  # digests made here (tests, bench)
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._sweeper: asyncio.Task[None] | None = None

    async def sift(self, game_id: str, batch: list[OutboxEntry]) -> list[OutboxEntry]:
        """The batch without the talk entries of a digesting game, which are
        queued and acked here (see the module doc); the rest is to text."""
        talk = [e for e in batch if e.payload.get("talk")]
        if not talk:
            return batch
        off = await texts_off(self.store, game_id)
        stale = [e for e in talk if e.payload.get("player") in off]
        if stale:  # talk of players who sent MUTE since the lines were queued
            for e in stale:
                await self.store.ack(CHANNEL, game_id, e.key, {"skipped": "talk texts off"})
            batch = [e for e in batch if e not in stale]
            talk = [e for e in talk if e not in stale]
            if not talk:
                return batch
        game = await self.store.load(game_id)
        if game is None or not digesting(game):
            return batch
        for _ in range(TRIES):
            raw = await self.store.get_attr(game_id, ATTR)
            rec = load(raw)
            if not queue(rec, talk):
                break  # queued before (a worker died before its acks)
            if await self.store.swap_attr(game_id, ATTR, raw, json.dumps(rec)):
                break
        else:
            raise RuntimeError(f"{game_id}: SMS digest record contended {TRIES} times")
        for e in talk:
            await self.store.ack(CHANNEL, game_id, e.key, {"queued": True})
        await self._guarded(self.flush(game))  # queued: a failure here waits for the sweep
        return [e for e in batch if not e.payload.get("talk")]

    async def flush(self, game: Game) -> float | None:
        """Append the digests due now to the outbox (see the module doc);
        when the next one is due (a timer is set for it here), if any."""
        now = self.clock()
        off = await texts_off(self.store, game.id)
        for _ in range(TRIES):
            raw = await self.store.get_attr(game.id, ATTR)
            rec = load(raw)
            dropped = off & set(waiting(rec))  # MUTE since their lines were queued
            for player in dropped:
                del rec["q"][player]
            old = rec.get("out", [])
            made = make(game, rec, now, self.sr_latin)
            if not made and not old and not dropped:
                break
            if old:  # made by an earlier swap: appended (again) before it goes
                await self.store.append_outbox(game.id, messages(old))
            rec["out"] = made
            if not await self.store.swap_attr(game.id, ATTR, raw, json.dumps(rec)):
                continue
            if made:
                await self.store.append_outbox(game.id, messages(made))
                self.sent += len(made)
            if self.wake is not None:
                self.wake(game.id)
            break
        else:
            raise RuntimeError(f"{game.id}: SMS digest record contended {TRIES} times")
        times = [next_time(game, rec, p, now) for p in waiting(rec)]
        at = min(times) if times else None
        if at is not None:
            self._arm(game.id, at)
        return at

    async def flush_id(self, game_id: str) -> float | None:
        """`flush` of the stored game (a timer, the sweep)."""
        game = await self.store.load(game_id)
        if game is None or not digesting(game):
            return None
        return await self.flush(game)

    async def sweep(self) -> int:
        """Flush every active game with lines queued (or a digest of the last
        swap, appended again); how many had some."""
        found = 0
        for game_id in await self.store.active_games():
            rec = load(await self.store.get_attr(game_id, ATTR))
            if waiting(rec) or rec.get("out"):
                found += 1
                await self.flush_id(game_id)
        return found

    def _arm(self, game_id: str, at: float) -> None:
        """A timer of this worker for the game's next digest (the latest wins)."""
        with contextlib.suppress(RuntimeError):  # no running loop: the sweep's
            loop = asyncio.get_running_loop()
            old = self._timers.pop(game_id, None)
            if old is not None:
                old.cancel()
            delay = max(0.0, at - self.clock()) + 0.5
            self._timers[game_id] = loop.call_later(delay, self._fire, game_id)

    def _fire(self, game_id: str) -> None:
        self._timers.pop(game_id, None)
        task = asyncio.create_task(self._guarded(self.flush_id(game_id)))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _guarded(self, work: Any) -> None:
        try:
            await work
        except Exception:  # the store away: the sweep tries again
            log.exception("SMS digest flush failed")

    def start(self) -> None:
        if self._sweeper is None or self._sweeper.done():
            self._sweeper = asyncio.create_task(self._sweeping(), name="sms-digests")

    async def stop(self) -> None:
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
            self._sweeper = None

    async def _sweeping(self) -> None:
        while True:
            await self._guarded(self.sweep())
            await asyncio.sleep(SWEEP)
