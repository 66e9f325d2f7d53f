"""The status page's port: where it reads games from, and how it hears of changes.

The page never writes. It needs three things from the rest of the system: the
game a token opens, the public lobby details the core does not hold (display
name, join code, join links), and a feed of new versions. `TVSource` names them;
`MemorySource` implements them in memory for tests, the demo and the benchmark.
A store-backed source (Redis pub/sub, or the embedded store's notifications)
implements the same three methods.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import NamedTuple, Protocol

from adapters.tv.tokens import TokenBook
from gameflow.core.state import Game


class JoinInfo(NamedTuple):
    """What the lobby screen shows besides the core's view. All public: the SMS
    number is the service's own number, never a player's."""

    name: str  # the game's display name; "" for the game's name from the catalog
    code: str
    telegram_url: str | None = None  # e.g. https://t.me/<bot>?start=<code>
    sms_number: str | None = None  # set only while SMS is on
    # Unused by the page (the lobby writes `JOIN CODE name` in the game's
    # language from the catalog); kept so that existing callers still build.
    sms_text: str | None = None


class TVSource(Protocol):
    async def game_for_token(self, token: str) -> Game | None:
        """The game `token` opens, or None (unknown, malformed or revoked)."""
        ...

    async def join_info(self, game_id: str) -> JoinInfo | None: ...

    def changes(self, game_id: str, after_version: int) -> AsyncIterator[Game]:
        """Versions newer than `after_version`, as they happen. A screen only
        needs the latest state, so a slow reader may skip intermediate versions
        (they are coalesced, never reordered). Ends if the game disappears."""
        ...


class Bells:
    """A source's viewers per game, woken by one `asyncio.Event` per game:
    `ring` sets it and drops it (the next wait makes a fresh one), so all
    waiting streams wake in the same loop iteration."""

    def __init__(self) -> None:
        self._bells: dict[str, asyncio.Event] = {}

    def ring(self, game_id: str) -> None:
        bell = self._bells.pop(game_id, None)
        if bell is not None:
            bell.set()

    async def changes(
        self,
        game_id: str,
        after: int,
        load: Callable[[str], Awaitable[Game | None]],
        poll: float | None = None,
    ) -> AsyncIterator[Game]:
        """`TVSource.changes` over `load`: newer versions as they are rung
        (or, every `poll` seconds, as `load` finds them). The bell is taken
        before the load, so a ring while it loads is not missed."""
        while True:
            bell = self._bells.get(game_id)
            if bell is None:
                bell = self._bells[game_id] = asyncio.Event()
            game = await load(game_id)
            if game is None:
                return
            if game.version > after:
                after = game.version
                yield game
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(bell.wait(), poll)


class MemorySource:
    """Games, join details and TV tokens in memory; `publish` wakes every
    viewer (`Bells`)."""

    def __init__(self) -> None:
        self.tokens = TokenBook()
        self._games: dict[str, Game] = {}
        self._info: dict[str, JoinInfo] = {}
        self._bells = Bells()

    def publish(self, game: Game, info: JoinInfo | None = None) -> None:
        """Store `game` (and its lobby details) and wake its viewers."""
        self._games[game.id] = game
        if info is not None:
            self._info[game.id] = info
        self._bells.ring(game.id)

    def remove(self, game_id: str) -> None:
        self._games.pop(game_id, None)
        self._info.pop(game_id, None)
        self.tokens.revoke_game(game_id)
        self._bells.ring(game_id)

    def issue(self, game_id: str) -> str:
        """A new TV token for `game_id` (shown to the host once)."""
        return self.tokens.issue(game_id)

    async def game_for_token(self, token: str) -> Game | None:
        game_id = self.tokens.game_id(token)
        return None if game_id is None else self._games.get(game_id)

    async def join_info(self, game_id: str) -> JoinInfo | None:
        return self._info.get(game_id)

    def changes(self, game_id: str, after_version: int) -> AsyncIterator[Game]:
        return self._bells.changes(game_id, after_version, self._load)

    async def _load(self, game_id: str) -> Game | None:
        return self._games.get(game_id)
