"""A `TVSource` over the game store: what `muldvarp serve` shows on TVs.

- Tokens: the store's TV directory maps a token's SHA-256 to its game
  (`GameStore.set_tv` / `game_for_tv`), so any worker process can open any TV
  link, and the plain token exists only in the host's message.
- Lobby details: the join code from the store's code directory, plus the
  service's own public contact points (bot username, SMS number: None while
  SMS is off, so the lobby shows no SMS line then).
- Changes: this process hears of its own commits at once (the source is also a
  service notifier: `notify` rings the game's bell), and of commits made by
  other worker processes by polling the store every `poll` seconds while
  someone watches. With the `Fanout` hub in front that is one load per watched
  game per interval per process, however many TVs watch it; a screen lags
  another worker's change by at most `poll` seconds.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol

from adapters.tv.source import Bells, JoinInfo
from adapters.tv.tokens import new_token, token_hash, well_formed
from gameflow.core.events import Event
from gameflow.core.state import Game


class _Store(Protocol):
    async def load(self, game_id: str) -> Game | None: ...

    async def code_for(self, game_id: str) -> str | None: ...

    async def set_tv(self, token_hash: str, game_id: str) -> None: ...

    async def game_for_tv(self, token_hash: str) -> str | None: ...


class StoreSource:
    """TV pages for the games in `store`; see the module doc."""

    def __init__(
        self,
        store: _Store,
        *,
        poll: float = 1.0,
        telegram_bot: str | None = None,
        sms_number: str | None = None,
    ) -> None:
        self.store = store
        self.poll = poll
        self.telegram_bot = telegram_bot
        self.sms_number = sms_number
        self._bells = Bells()

    async def issue(self, game_id: str) -> str:
        """A new TV token for `game_id`: only its hash is stored."""
        token = new_token()
        await self.store.set_tv(token_hash(token), game_id)
        return token

    async def game_for_token(self, token: str) -> Game | None:
        if not well_formed(token):
            return None
        game_id = await self.store.game_for_tv(token_hash(token))
        return None if game_id is None else await self.store.load(game_id)

    async def join_info(self, game_id: str) -> JoinInfo | None:
        game = await self.store.load(game_id)
        if game is None:
            return None
        code = await self.store.code_for(game_id) or ""
        bot = self.telegram_bot
        # No display name: the page names the game from the catalog, in the
        # game's language. The SMS join line is written in that language too.
        return JoinInfo(
            name="",
            code=code,
            telegram_url=f"https://t.me/{bot}?start={code}" if bot and code else None,
            sms_number=self.sms_number if code else None,
        )

    def changes(self, game_id: str, after_version: int) -> AsyncIterator[Game]:
        return self._bells.changes(game_id, after_version, self.store.load, self.poll)

    async def notify(self, game: Game, events: tuple[Event, ...]) -> None:
        """The service's notifier port: wake this process's viewers of `game`."""
        self._bells.ring(game.id)
