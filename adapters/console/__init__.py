"""The game master's console (issue #32): a private, live web page per game.

`Console(service, changes).mount()` gives the `/console` routes to put into the
service's ASGI app; `Console.issue(game)` makes a fresh link token (the host
gets it only in a private chat or text). See app.py for the page and its
protections, tokens.py for the links, view.py for what each kind of console
shows and controls.py for the controls.
"""

from __future__ import annotations

from adapters.console.app import Console
from adapters.console.tokens import ConsoleTokens

__all__ = ["Console", "ConsoleTokens"]
