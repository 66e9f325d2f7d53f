"""The game service: the one path by which any input changes a game.

Telegram, SMS, the host's controls and the scheduler's deadlines all end up in
`GameService.submit(game_id, action, key=...)`:

1. load the game (or take this process's last copy), `apply` the action at the
   injected clock's `now`;
2. a refusal changes nothing and is returned as it is, unless the input's
   idempotency key (Telegram `update_id`, Twilio `MessageSid`, a deadline's
   `game:phase`) was applied already: then it is answered as a duplicate;
3. an acceptance is committed in one atomic store step (append the log entry,
   save the snapshot, remember the key; for a join, bind the player's identity
   to the game) only if the version is still the one loaded (and the key is
   new: else it is a duplicate); if another worker got there first, start
   again from its state;
   Before the commit, each composer port (`service.compose`: the channels'
   one composer) is asked, with the input's `Origin` (who made it), for the
   messages the transition causes, the reply to the input included, and they
   are written by the same atomic step (`outbox=`);
4. then the rest of the directories are brought up to date and the events go
   to the notifier ports (Telegram, the TV page, the scheduler; SMS only to
   wake its delivery).

Within one process a game's inputs take turns (a lock per game), so the
notifiers see one game's transitions in version order and local inputs don't
waste retries on each other; notifiers should therefore only enqueue.

Nothing is acknowledged before it is stored: when `submit` returns, the input is
durable, and a redelivery of the same key can never apply it a second time.
Composed messages are at least once: they are stored with the input and
delivered from the store by any worker (service/outbox.py). Notifications are
at most once: a crash after the commit and before the notifiers loses what
they would have sent (never the input); the players' views still show the state.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from gameflow.core import actions as A
from gameflow.core.engine import apply, new_game
from gameflow.core.events import Event
from gameflow.core.result import Accepted, Rejected
from gameflow.core.state import Game
from gameflow.replay import parse_step, step_of
from service import talk, zones
from service.compose import Composer, Origin, guarded
from service.outbox import OutboxMessage
from service.ports import (
    CommitResult,
    Forgetting,
    GameStore,
    NextInstant,
    Notifier,
    Status,
    due_floor,
)

if TYPE_CHECKING:
    from service.rematch import Inviter

log = logging.getLogger(__name__)

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ"  # no I, L, O: read aloud and typed on phones
CODE_LENGTH = 4


class GameNotFound(LookupError):
    """No such game (never created, or expired after it finished)."""


class Contention(RuntimeError):
    """The commit lost the version race too many times in a row."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """What became of one input. `game` is the state after it (accepted) or the
    current state (refused, duplicate); `rejected` says why it was refused."""

    game: Game
    events: tuple[Event, ...] = ()
    rejected: Rejected | None = None
    duplicate: bool = False
    attempts: int = 1
    # The messages the composers wrote with this commit (accepted only): a
    # channel's gateway sees whom the commit texts, on any worker.
    messages: tuple[OutboxMessage, ...] = ()

    @property
    def accepted(self) -> bool:
        return self.rejected is None and not self.duplicate


@dataclass(frozen=True, slots=True)
class Created:
    game: Game
    code: str | None
    duplicate: bool = False


def log_entry(game: Game, action: A.Action, now: float, key: str | None) -> dict[str, Any]:
    """The log entry for an accepted input: its script step, when, and its key."""
    entry = step_of(game, action)
    entry["at"] = now
    if key is not None:
        entry["key"] = key
    return entry


def _binds(action: A.Action) -> tuple[tuple[str, str], ...]:
    """The directory entries an input creates with its commit: a joining
    player's identity (their player id) points at the game from then on."""
    if isinstance(action, A.Join) and action.by is not None:
        return ((action.by, action.by),)
    return ()


def replay_log(initial: Game, entries: Sequence[Mapping[str, Any]]) -> Game:
    """The state a log leads to: every entry re-applied at its own time, with the
    game's own options (automatic advancing as it was live). Every entry was
    accepted once, so a refusal here means the log and the core disagree."""
    game = initial
    for i, entry in enumerate(entries):
        result = apply(game, parse_step(game, entry), float(entry["at"]))
        if isinstance(result, Rejected):
            raise ValueError(f"log entry {i} is refused on replay: {result.code}")
        game = result.state
    return game


class GameService:
    def __init__(
        self,
        store: GameStore,
        notifiers: Sequence[Notifier] = (),
        *,
        composers: Sequence[Composer] = (),
        clock: Callable[[], float] = time.time,
        max_attempts: int = 100,
        cache_size: int = 1024,
        next_instant: NextInstant = due_floor,
    ) -> None:
        self.store = store
        # The state's next instant for the store's deadline index, written by
        # the commit itself (the scheduler's plan, wired by bots/; the default
        # is never late, only early: service.ports.due_floor).
        self.next_instant = next_instant
        self.notifiers = list(notifiers)
        self.composers = list(composers)
        self.clock = clock
        self.max_attempts = max_attempts
        # One game's inputs queue up inside this process instead of racing each
        # other through the store; other processes still race, and lose safely.
        self._locks: dict[str, asyncio.Lock] = {}
        self._users: dict[str, int] = {}
        # The last state this process loaded or committed, per game: the next
        # input starts from it without a load (no round trip, no decoding). It
        # can only be behind, never wrong: the commit's version check catches a
        # stale copy, and a refusal computed on a copy is re-checked on a fresh load.
        self._cache: OrderedDict[str, Game] = OrderedDict()
        self.cache_size = cache_size
        # The channels' side of players' talk (service/talk.py), registered by
        # each channel adapter.
        self.talkers: list[talk.Talker] = []
        # The channels' invitations to a rematch (service/rematch.py).
        self.inviters: list[Inviter] = []

    async def _stored(self, game_id: str) -> Game:
        game = await self.store.load(game_id)
        if game is None:
            raise GameNotFound(game_id)
        return game

    async def load(self, game_id: str) -> Game:
        """The stored state. It also refreshes this process's copy when that is
        older: an adapter that read the game (another worker had moved it on)
        then saves the next input a stale apply and a failed commit."""
        game = await self._stored(game_id)
        self._newer(game)
        return game

    async def load_with(self, game_id: str, name: str) -> tuple[Game, str | None]:
        """`load`, and the game's attribute `name` read with it (one round trip
        on Redis: GameStore.load_with)."""
        game, value = await self.store.load_with(game_id, name)
        if game is None:
            raise GameNotFound(game_id)
        self._newer(game)
        return game, value

    def _newer(self, game: Game) -> None:
        """Keep `game` as this process's copy when the copy is older."""
        cached = self._cache.get(game.id)
        if cached is None or cached.version < game.version:
            self._remember(game)

    async def current(self, game_id: str) -> tuple[Game, bool]:
        """This process's last copy of the game (no round trip, no decoding) and
        False, else the stored state and True. A copy may be behind another
        worker's commit: good for checking a button or drawing a view, never
        for deciding (`submit` applies to the stored state)."""
        game = self._cache.get(game_id)
        if game is not None:
            return game, False
        return await self.load(game_id), True

    async def create_game(
        self,
        kind: str,
        host: str,
        *,
        lang: str = "nb",
        options: Mapping[str, Any] | None = None,
        setup: Mapping[str, Any] | None = None,
        seed: str | None = None,
        game_id: str | None = None,
        key: str | None = None,
        code: bool = True,
    ) -> Created:
        """A new game in its lobby, with a join code, the host's identity bound to
        it and a place in the active set. With `key`, a redelivered "new game"
        input returns the game the first delivery made."""
        zones.check_new(options)  # a zone the machine doesn't know: ValueError
        want = game_id or secrets.token_urlsafe(9)
        if key is not None:
            held = await self.store.claim(key, want)
            existing = await self.store.load(held)
            if existing is not None:
                return await self._completed(existing, code)
            want = held  # claimed earlier, but the game itself never got stored
        game = new_game(
            kind, want, host, seed or secrets.token_hex(16), lang=lang, options=options, setup=setup
        )
        if not await self.store.create(game):
            existing = await self.store.load(want) if key is not None else None
            if existing is None:
                raise ValueError(f"game id {want!r} is taken")
            # Two deliveries of one "new game" input raced: the other one made it.
            return await self._completed(existing, code)
        await self.store.bind(host, game.id, host)
        join_code = await self._claim_code(game.id) if code else None
        return Created(game, join_code)

    async def _completed(self, game: Game, code: bool) -> Created:
        """A redelivered "new game": the game the first delivery stored, with the
        steps that delivery may not have lived to do done now (a worker killed
        between storing the game and binding its host or claiming its code):
        the host is bound unless they have moved on to another game, and a lobby
        without a code gets one."""
        if await self.store.whereis(game.host) is None and not game.over:
            await self.store.bind(game.host, game.id, game.host)
        join_code = await self.store.code_for(game.id)
        if join_code is None and code and game.phase.name == "lobby":
            join_code = await self._claim_code(game.id)
        return Created(game, join_code, duplicate=True)

    async def _claim_code(self, game_id: str) -> str:
        rng = random.SystemRandom()
        for length in (CODE_LENGTH, CODE_LENGTH, CODE_LENGTH, CODE_LENGTH + 1, CODE_LENGTH + 2):
            candidate = "".join(rng.choice(CODE_ALPHABET) for _ in range(length))
            if await self.store.claim_code(candidate, game_id):
                return candidate
        raise Contention("no free join code")

    async def submit(
        self,
        game_id: str,
        action: A.Action,
        *,
        key: str | None = None,
        origin: Origin | None = None,
    ) -> Outcome:
        """Apply one input durably, at most once per `key`; see the module doc.
        `origin` says who made it, for the composers (service/compose.py)."""
        return await self._in_turn(game_id, action, key, origin)

    async def _in_turn(
        self, game_id: str, action: A.Action, key: str | None, origin: Origin | None
    ) -> Outcome:
        """`submit`, after this process's earlier inputs to the game (one lock
        per game, dropped when nobody holds or waits for it)."""
        lock = self._locks.setdefault(game_id, asyncio.Lock())
        self._users[game_id] = self._users.get(game_id, 0) + 1
        try:
            async with lock:
                return await self._submit(game_id, action, key, origin)
        finally:
            self._users[game_id] -= 1
            if not self._users[game_id]:
                del self._users[game_id], self._locks[game_id]

    async def _submit(
        self, game_id: str, action: A.Action, key: str | None, origin: Origin | None
    ) -> Outcome:
        # An input without a key of its own gets one for this call: a commit
        # that reached the store but whose reply was lost (and is retried, or
        # raced by our own retry) then reads as "already applied, by us".
        own = key is None
        if key is None:
            key = f"auto:{secrets.token_hex(8)}"
        # No separate duplicate check up front: the commit checks the key
        # atomically, and a refusal checks it before answering (a redelivered
        # input is usually refused by the state it made, and must read as a duplicate).
        for attempt in range(1, self.max_attempts + 1):
            game = self._cache.pop(game_id, None)
            fresh = game is None
            if game is None:
                game = await self._stored(game_id)
            now = self.clock()
            ready = zones.prepare(game, action, now)  # a start gets the zone table
            if isinstance(ready, Rejected):
                result: Accepted[Game] | Rejected = ready
                ready = action
            else:
                result = apply(game, ready, now)
            if isinstance(result, Rejected):
                if not fresh:
                    continue  # maybe refused only because our copy is behind: reload
                self._remember(game)
                if not own and await self.store.applied(game_id, key) is not None:
                    return Outcome(game, duplicate=True, attempts=attempt)
                return Outcome(game, rejected=result, attempts=attempt)
            new = result.state
            entry = log_entry(game, ready, now, key)
            messages = self._compose(game, new, result.events, origin)
            done = await self.store.commit(
                game_id, game.version, new, entry, key,
                binds=_binds(action), outbox=messages, due=self._due(new),
            )  # fmt: skip
            if done.status is Status.DUPLICATE and own and done.version == new.version:
                done = CommitResult(Status.OK, new.version)  # it was this very commit
            if done.status is Status.OK:
                self._remember(new)
                await self._after(game, new, action)
                await self._notify(new, result.events)
                return Outcome(new, result.events, attempts=attempt, messages=messages)
            if done.status is Status.DUPLICATE:
                return Outcome(await self.load(game_id), duplicate=True, attempts=attempt)
            if done.status is Status.MISSING:
                raise GameNotFound(game_id)
            if not fresh:
                continue  # our copy was behind: reload at once, no back-off
            # CONFLICT: another input got in first. Back off a little (with
            # jitter, so the losers don't collide again in lockstep) and retry.
            await asyncio.sleep(random.uniform(0, min(0.05, 0.0005 * 2 ** min(attempt, 7))))
        raise Contention(f"{game_id}: gave up after {self.max_attempts} conflicting attempts")

    def _due(self, game: Game) -> float | None:
        """`game`'s next instant for the deadline index; a port that fails
        costs an early wake-up (`due_floor`), never a deadline."""
        try:
            return self.next_instant(game)
        except Exception:
            log.exception("next instant of %s v%d failed", game.id, game.version)
            return due_floor(game)

    def _remember(self, game: Game) -> None:
        if game.over or self.cache_size <= 0:
            return
        self._cache[game.id] = game
        self._cache.move_to_end(game.id)
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)

    async def _after(self, old: Game, new: Game, action: A.Action) -> None:
        """Directory upkeep: a player's identity points at the game they are in.
        A join's binding is part of its commit (`_binds`); a finished game's
        bindings are dropped by the store's commit."""
        if isinstance(action, A.Leave | A.Kick):
            gone = action.by if isinstance(action, A.Leave) else action.target
            if gone is not None and new.seat(gone) < 0 and gone != new.host:
                await self.store.unbind(gone, new.id)

    def _compose(
        self, before: Game, after: Game, events: tuple[Event, ...], origin: Origin | None
    ) -> tuple[OutboxMessage, ...]:
        """The messages this commit causes, from every composer. A composer that
        raises is a bug: it costs that channel's lines of this commit (logged),
        never the input nor the other channels' messages; its `recover` then
        gives every player their open question afresh, so nobody waits on a
        question that was never sent (only when that fails too, nothing)."""
        out: list[OutboxMessage] = []
        for c in self.composers:
            make = partial(c.compose, before, after, events, origin)
            out.extend(guarded(c, after, make, partial(c.recover, after)))
        return tuple(out)

    async def _notify(self, game: Game, events: tuple[Event, ...]) -> None:
        for notifier in self.notifiers:
            try:
                await notifier.notify(game, events)
            except Exception:  # one broken port must not stop the others
                log.exception("notifier %r failed for %s v%d", notifier, game.id, game.version)

    async def talk(self, game_id: str, player: str, text: str, *, key: str) -> talk.Said:
        """Relay a line `player` says through the bot, at most once per
        inbound `key` (service/talk.py): no game action, nothing logged."""
        return await talk.say(
            self.store, self.talkers, await self.load(game_id), player, text,
            key=key, now=self.clock(),
        )  # fmt: skip

    async def sweep(self) -> list[str]:
        """Repair after a crash: active games that are over (or gone) leave the
        active set. Returns the games it looked at that are still active.

        A store that can name the only active games that may be over
        (`unsettled`: SQLite, those with no instant in the deadline index)
        is asked for those, so a start with many idle campaigns decodes none
        of them (issue #31); any other store is asked for every active game."""
        unsettled = getattr(self.store, "unsettled", None)
        ids = await (unsettled() if unsettled is not None else self.store.active_games())
        still: list[str] = []
        for game_id in ids:
            game = await self.store.load(game_id)
            if game is None or game.over:
                await self.store.finish(game_id)
            else:
                still.append(game_id)
        return still

    async def forget_contacts(self, after: float, first: Forgetting | None = None) -> list[str]:
        """Forget the contacts of the games that ended `after` seconds ago or
        more (`CONTACTS_RETENTION_HOURS`; GameStore.forget_contacts, `first`
        for the channels' own records). The copies this process keeps are of
        running games only (`_remember`)."""
        return await self.store.forget_contacts(self.clock() - after, first)

    async def verify(self, game_id: str) -> Game:
        """Replay the game's log from its initial state and check it leads to the
        saved snapshot (audits, tests, suspicion of a corrupt store)."""
        initial = await self.store.initial(game_id)
        if initial is None:
            raise GameNotFound(game_id)
        game = await self.load(game_id)
        entries = await self.store.log(game_id)
        replayed = replay_log(initial, entries)
        if replayed != game:
            fields = [f for f in Game._fields if getattr(replayed, f) != getattr(game, f)]
            raise ValueError(
                f"{game_id}: the log replays to version {replayed.version}, the snapshot "
                f"is version {game.version}; they differ in {', '.join(fields)}"
            )
        return game
