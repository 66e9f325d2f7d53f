"""Console links: a 256-bit secret per game, stored only as its SHA-256.

A console link is a bearer secret like a TV link, but it opens the host's
controls (and, for a game master who plays no role, every secret), so it is
kept apart from the TV's tokens: its hash sits in the game's own attribute
`console:hash` (kept exactly as long as the game), never in the TV directory,
and a TV token can never open a console or the other way round. The link
names its game (`<game id>.<secret>`): the lookup is one attribute read and a
constant-time compare, and a link of one game cannot open another. Since only
hashes are kept, each ask makes a new link: the game keeps the last
`KEEP_LINKS` of them (a phone and a laptop), and rotating drops them all but
the new one, so an old link stops working at once and an open page's stream
ends at its next keep-alive.

The console's kind is the game's `game_master` option, chosen at creation
(gameflow/core/gamemaster.py): `watches` shows the game's secret view (a game
master who plays no role), `plays` only what the table sees. A game without
the option (made before it) gets `gm` where its definition has a secret view.
Secrets are shown only while the host holds no seat: a host who joined as a
player never sees them, whatever the option says.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from typing import Protocol

from gameflow.core import gamemaster, registry
from gameflow.core.state import Game

SECRET_BYTES = 32  # 256 bits; `token_urlsafe` makes 43 URL-safe characters
HASH_ATTR = "console:hash"
GM, HOST = "gm", "host"
KEEP_LINKS = 3
TOKEN_RE = re.compile(r"^([A-Za-z0-9_.:-]{1,64})\.([A-Za-z0-9_-]{43})$")


class _Attrs(Protocol):
    async def set_attr(self, game_id: str, name: str, value: str) -> None: ...

    async def get_attr(self, game_id: str, name: str) -> str | None: ...

    async def swap_attr(self, game_id: str, name: str, old: str | None, new: str) -> bool: ...


def digest(secret: str) -> str:
    """The stored form: hex SHA-256 (the secret has 256 bits: nothing to brute-force)."""
    return hashlib.sha256(b"muldvarp-console:" + secret.encode("utf-8")).hexdigest()


def default_mode(game: Game) -> str:
    """`gm` for a game with a secret game-master view, else `host`: the kind of
    a game that has no `game_master` option."""
    definition = registry.find(game.kind)
    return GM if definition is not None and definition.gm_view is not None else HOST


def mode(game: Game) -> str:
    """The console's kind, as the game's `game_master` option chose it."""
    fallback = gamemaster.WATCHES if default_mode(game) == GM else gamemaster.PLAYS
    return GM if gamemaster.chosen(game, fallback) == gamemaster.WATCHES else HOST


def shows_secrets(game: Game) -> bool:
    """Whether the console may show `game`'s secrets: a game master who
    watches (`game_master` is `watches`), holds no seat in the game, of a
    game that has a secret view."""
    definition = registry.find(game.kind)
    return (
        mode(game) == GM
        and definition is not None
        and definition.gm_view is not None
        and game.seat(game.host) < 0
    )


class ConsoleTokens:
    """Console links over the store's game attributes; see the module doc."""

    def __init__(self, store: _Attrs) -> None:
        self.store = store

    async def issue(self, game: Game, rotate: bool = False) -> str:
        """A fresh link token for `game`; with `rotate` every earlier one stops
        working, else the last `KEEP_LINKS` links work."""
        secret = secrets.token_urlsafe(SECRET_BYTES)
        mine = digest(secret)
        for _ in range(16):  # another worker's link in between: read again
            old = await self.store.get_attr(game.id, HASH_ATTR)
            kept = [] if rotate or not old else old.split(",")[-(KEEP_LINKS - 1) :]
            if await self.store.swap_attr(game.id, HASH_ATTR, old, ",".join([*kept, mine])):
                return f"{game.id}.{secret}"
        raise RuntimeError(f"no console link for {game.id}: the game is gone or too busy")

    async def game_id(self, token: str) -> str | None:
        """The game `token` opens, or None (malformed, unknown, rotated)."""
        found = TOKEN_RE.match(token)
        if found is None:
            return None
        game_id, secret = found.group(1), found.group(2)
        stored = await self.store.get_attr(game_id, HASH_ATTR)
        mine = digest(secret)
        if stored is None or not any(hmac.compare_digest(h, mine) for h in stored.split(",")):
            return None
        return game_id

    @staticmethod
    def secret_of(token: str) -> str:
        """The secret part of a well-formed token (the CSRF key is derived from it)."""
        found = TOKEN_RE.match(token)
        return found.group(2) if found is not None else ""
