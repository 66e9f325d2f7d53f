"""The service's ports: what the game service needs from a store (`GameStore`)
and from whoever hears of its commits (`Notifier`), and nothing more.

They are declared here, beside the service, so that the service depends on no
adapter: the adapters implement them (`adapters.store`: Redis for several
worker processes, Redis Cluster ready, and SQLite, the embedded default: one
process, no server; the channels' and the scheduler's notifiers). One contract
test suite (tests/test_store_contract.py) runs against both stores, so the
service can never come to depend on one store's accidents.

The model: per game, the snapshot of the current state with its version, the
state it was created in, and an append-only log with one entry per accepted
input (entry i took the game from version initial+i to initial+i+1). The only
write after creation is `commit`, which is atomic: it appends the entry and
replaces the snapshot only if the stored version is still the one the caller
loaded, and it records the input's idempotency key (kept for `dedupe_ttl`
seconds) in the same step, so an input is either fully applied once or not at
all. A finished game is kept for `retention` seconds and then expires.

Beside the games, four small directories: join code -> game, channel identity
(Telegram user id, E.164 phone number) -> (game, player), TV token hash ->
game, and the set of active (not finished) games.

And the deadline index (issue #31): per game that has something to fire, its
next instant (the earliest of its deadline and its reminders, as the service's
`NextInstant` port works it out) and the version it belongs to, written by
`commit` in the same atomic step as the snapshot. The scheduler reads what
falls due soon (`due`) instead of loading and decoding every active game.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from types import EllipsisType
from typing import Any, NamedTuple, Protocol

from gameflow.core.events import Event
from gameflow.core.state import Game
from service.outbox import OutboxMessage, OutboxStore

DEFAULT_RETENTION = 7 * 24 * 3600.0  # finished games: one week for audits and bug reports
DEFAULT_DEDUPE_TTL = 24 * 3600.0  # Telegram and Twilio give up retrying well within a day

_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")


Forgetting = Callable[[str, list[str]], Awaitable[object]]
"""A game's id and the channel ids it held: forget them elsewhere too."""


def check_id(game_id: str) -> str:
    """Game ids go into key names (and Redis hash tags): keep them plain."""
    if not _ID.match(game_id):
        raise ValueError(f"bad game id {game_id!r}")
    return game_id


class Status(StrEnum):
    OK = "ok"  # appended and saved
    CONFLICT = "conflict"  # someone else committed first: reload and retry
    DUPLICATE = "duplicate"  # this idempotency key was applied already
    MISSING = "missing"  # no such game (never created, or expired)


@dataclass(frozen=True, slots=True)
class CommitResult:
    """`version`: the new version (OK), the stored one (CONFLICT), or the version
    the key's input produced (DUPLICATE); -1 when MISSING."""

    status: Status
    version: int


class Due(NamedTuple):
    """A deadline index entry: game `game_id`'s next instant `at`, as its
    commit of `version` wrote it. `version` is None when the store cannot
    vouch for it (a Redis Cluster's commit on its way): load the game."""

    game_id: str
    at: float
    version: int | None


# The port by which the service learns a state's next instant for the index:
# the scheduler's plan (scheduler.plan.next_instant), wired by bots/.
NextInstant = Callable[[Game], float | None]


def due_floor(game: Game) -> float | None:
    """An instant no later than anything a scheduler arms for `game` (the
    start of its running phase with a deadline: every reminder falls after
    it), None when nothing is pending (lobby, paused, over). A store's
    commit indexes this when its caller names no instant: early wakes a
    scheduler for nothing, late would lose a deadline."""
    phase = game.phase
    if not game.running or phase.paused or phase.deadline is None:
        return None
    return min(phase.started, phase.deadline)


class Commit(NamedTuple):
    """What a store's own atomic step writes (`GameStore._commit_step`):
    `commit`'s arguments with the contract's defaults worked out once here,
    `line` the log entry as JSON and `at` the instant to index."""

    game_id: str
    expected: int
    game: Game
    line: str
    key: str | None
    binds: Sequence[tuple[str, str]]
    outbox: Sequence[OutboxMessage]
    at: float | None


class Swap(NamedTuple):
    """An attribute swap (`GameStore.swap_attr`'s arguments)."""

    game_id: str
    name: str
    old: str | None
    new: str


class GameStore(OutboxStore, Protocol):
    """The store port; its outbox side (the messages commits cause, and their
    delivery) is `service.outbox.OutboxStore`. The stores subclass it: the
    calls with defaults or a common shape are kept here, once, over each
    store's own steps (`_commit_step`, `_swap_step`, `_ack_swap_step`)."""

    retention: float
    dedupe_ttl: float

    async def create(self, game: Game) -> bool:
        """Store a new game (its initial state); False if the id is taken."""
        ...

    async def load(self, game_id: str) -> Game | None:
        """The current state, or None if there is no such game."""
        ...

    async def load_with(self, game_id: str, name: str) -> tuple[Game | None, str | None]:
        """`load` and `get_attr(name)` in one read (one round trip on Redis):
        an input that needs both (the SMS gateway: the game and the record of
        the sheet last texted) does not pay for two."""
        ...

    async def initial(self, game_id: str) -> Game | None:
        """The state the game was created in: the log replays from it."""
        ...

    async def commit(
        self,
        game_id: str,
        expected: int,
        game: Game,
        entry: Mapping[str, Any],
        key: str | None = None,
        binds: Sequence[tuple[str, str]] = (),
        outbox: Sequence[OutboxMessage] = (),
        due: float | EllipsisType | None = ...,
    ) -> CommitResult:
        """Atomically: unless `key` was applied already, and only if the stored
        version is `expected`, append `entry` (JSON-able) to the log, save `game`
        as the snapshot and remember `key`. When `game` is over, the game's data
        starts to expire and it leaves the active set.

        `due`: `game`'s next instant for the deadline index (None: nothing
        to fire; unnamed: `due_floor(game)`), written in the same
        atomic step with the new version (a Redis Cluster: see its store).

        `binds` are the directory entries the input creates, (identity, player)
        pairs that `bind` to this game: a join. They are written only if the
        commit is OK, in the same atomic step where the store can (SQLite's
        transaction, the Redis script), so an acknowledged join always has its
        binding, even when the process dies right after; where it can't (Redis
        Cluster: the identity keys live in other slots) right after the commit.

        `outbox`: the messages the input causes (computed before the commit),
        written in the same atomic step, only if the commit is OK (never on
        CONFLICT or DUPLICATE): after every message of earlier commits, in
        the order given, skipping keys already written (service/outbox.py)."""
        at = due_floor(game) if due is ... else due
        line = json.dumps(entry, ensure_ascii=False, separators=(",", ":"))
        return await self._commit_step(
            Commit(game_id, expected, game, line, key, binds, outbox, at)
        )

    async def _commit_step(self, c: Commit) -> CommitResult:
        """The store's own atomic commit."""
        ...

    async def log(self, game_id: str, start: int = 0) -> list[dict[str, Any]]:
        """The log entries from index `start` on."""
        ...

    async def applied(self, game_id: str, key: str) -> int | None:
        """The version that the input with idempotency `key` produced, if any."""
        ...

    async def expires_in(self, game_id: str) -> float | None:
        """Seconds until a finished game expires; None while it is kept."""
        ...

    async def claim(self, key: str, value: str) -> str:
        """Store `value` under a global idempotency `key` unless one is stored;
        return what is stored (for inputs that create games)."""
        ...

    # -- directories ------------------------------------------------------------

    async def claim_code(self, code: str, game_id: str) -> bool:
        """Reserve a join code for a game; False if another game holds it."""
        ...

    async def game_for_code(self, code: str) -> str | None: ...

    async def game_last_with_code(self, code: str) -> str | None:
        """The game that holds join code `code`, else the last one that held
        it and has ended (while the store keeps it): `muldvarp export CODE`."""
        ...

    async def code_for(self, game_id: str) -> str | None:
        """The join code a game holds now, if any."""
        ...

    async def release_code(self, code: str, game_id: str) -> None:
        """Free a join code, if it still belongs to `game_id`."""
        ...

    async def bind(self, identity: str, game_id: str, player: str) -> None:
        """Channel identity -> the game and player it is in now."""
        ...

    async def whereis(self, identity: str) -> tuple[str, str] | None: ...

    async def unbind(self, identity: str, game_id: str) -> bool:
        """Forget `identity`'s game, if it is still `game_id`."""
        ...

    async def set_tv(self, token_hash: str, game_id: str) -> None:
        """The TV status page's token (its hash) -> game; expires with the game."""
        ...

    async def game_for_tv(self, token_hash: str) -> str | None: ...

    async def set_attr(self, game_id: str, name: str, value: str) -> None:
        """A channel's own small fact about a game (e.g. the Telegram group it was
        created in), kept exactly as long as the game itself."""
        ...

    async def get_attr(self, game_id: str, name: str) -> str | None:
        """The fact stored by `set_attr`; None if unset or the game is gone."""
        ...

    async def swap_attr(self, game_id: str, name: str, old: str | None, new: str) -> bool:
        """Atomically set attribute `name` to `new` only if it still holds `old`
        (None: only if unset); False, changing nothing, if it holds something
        else or there is no such game. A channel's small state that several
        workers update (read, change, swap, and read again on False) never
        loses one worker's change to another's."""
        return await self._swap_step(Swap(game_id, name, old, new), ())

    async def swap_attr_and_append(
        self,
        game_id: str,
        name: str,
        old: str | None,
        new: str,
        messages: Sequence[OutboxMessage],
    ) -> bool:
        """`swap_attr(game_id, name, old, new)` and, if it holds,
        `append_outbox(game_id, messages)` in one atomic step: both or
        neither (issue #33: a talk line's record and its messages land
        together, whatever dies in between). False, writing nothing, as
        `swap_attr` is False."""
        return await self._swap_step(Swap(game_id, name, old, new), messages)

    async def _swap_step(self, swap: Swap, messages: Sequence[OutboxMessage]) -> bool:
        """The store's own atomic `swap_attr_and_append` (no messages:
        `swap_attr`)."""
        ...

    async def ack_and_swap(
        self,
        channel: str,
        game_id: str,
        key: str,
        result: Mapping[str, Any] | None,
        name: str,
        old: str | None,
        new: str,
    ) -> tuple[bool, bool]:
        """`ack(channel, game_id, key, result)` and then `swap_attr(game_id,
        name, old, new)` of the same game in one step (one round trip on
        Redis); what each returned. The SMS delivery acks a text together with
        the record of the sheet the next text carries."""
        return await self._ack_swap_step(channel, key, result, Swap(game_id, name, old, new))

    async def _ack_swap_step(
        self, channel: str, key: str, result: Mapping[str, Any] | None, swap: Swap
    ) -> tuple[bool, bool]:
        """The store's own `ack_and_swap` (of `swap.game_id`): here the two
        steps in turn (an in-process store has no round trip to save)."""
        return await self.ack(channel, swap.game_id, key, result), await self._swap_step(swap, ())

    async def active_games(self) -> list[str]:
        """Games not finished yet (sorted), for the scheduler to re-arm."""
        ...

    async def due(self, until: float) -> list[Due]:
        """The deadline index's entries whose instant is at or before `until`,
        earliest first."""
        ...

    async def forget_contacts(
        self, ended_before: float, first: Forgetting | None = None
    ) -> list[str]:
        """Forget the contacts of the games that ended at or before
        `ended_before` and still have them (service/forget.py: the players'
        channel ids in the snapshot, initial state and log replaced by neutral
        ones, the channels' attributes and the game's outbox, undelivered and
        delivered, dropped). The games stay, until they expire. `first(game,
        channel ids)` runs before each game's step (the channels' own records:
        the SMS numbers); a game whose `first` fails is tried again next time.
        Idempotent; returns the games done."""
        ...

    async def finish(self, game_id: str) -> None:
        """Leave the active set and start expiring (commit does this for a game
        that ends; callable again to repair after a crash)."""
        ...

    async def close(self) -> None: ...


class Notifier(Protocol):
    """A port that turns a committed transition's events into messages, screen
    refreshes or timers. Called after the commit, once per accepted input;
    `game` is the state the events belong to (check `game.version` to order)."""

    async def notify(self, game: Game, events: tuple[Event, ...]) -> None: ...
