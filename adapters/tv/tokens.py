"""TV links: unguessable tokens, stored only as their SHA-256.

A TV link is a bearer secret: whoever holds it sees the table. It is made with
`secrets.token_urlsafe` (256 bits), handed to the host once, and only its hash is
kept, so a leaked store or log line cannot be turned back into a working link.
Revoking a link drops its hash: the page refuses it at once, and an open event
stream ends at its next keep-alive tick, where it re-checks its token.
"""

from __future__ import annotations

import hashlib
import re
import secrets

TOKEN_BYTES = 32
"""256 bits of entropy; `token_urlsafe` turns them into 43 URL-safe characters."""

TOKEN_RE = re.compile(r"^[A-Za-z0-9_-]{20,128}$")
"""What a token may look like: anything else is refused before any lookup."""


def new_token() -> str:
    """A fresh TV token (the only time the plain value exists on the server)."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_hash(token: str) -> str:
    """The stored form of a token: hex SHA-256. A fast hash is enough because the
    token has 256 bits of entropy; there is nothing to brute-force."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def well_formed(token: str) -> bool:
    return bool(TOKEN_RE.match(token))


class TokenBook:
    """Token hashes and the game each opens (in memory; a store keeps the same map).

    One game may have several live links (a second TV); `revoke_game` drops them all.
    """

    def __init__(self) -> None:
        self._games: dict[str, str] = {}

    def issue(self, game_id: str) -> str:
        token = new_token()
        self._games[token_hash(token)] = game_id
        return token

    def game_id(self, token: str) -> str | None:
        if not well_formed(token):
            return None
        return self._games.get(token_hash(token))

    def revoke(self, token: str) -> bool:
        return self._games.pop(token_hash(token), None) is not None

    def revoke_game(self, game_id: str) -> int:
        gone = [h for h, g in self._games.items() if g == game_id]
        for h in gone:
            del self._games[h]
        return len(gone)

    def hashes(self) -> dict[str, str]:
        """A copy of the stored map (hash -> game id), for tests and stores."""
        return dict(self._games)
