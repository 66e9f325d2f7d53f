"""The TV status page: a live, read-only view of one game for the whole table.

`StatusPage(source).mount()` gives the `/tv` routes to put into the service's
ASGI app; `create_app(source)` is a stand-alone app. `source` implements the
`TVSource` port (`MemorySource` in memory). `logfilter.install()` keeps tokens
out of uvicorn's logs.
"""

from __future__ import annotations

from adapters.tv.app import StatusPage, create_app
from adapters.tv.source import JoinInfo, MemorySource, TVSource
from adapters.tv.tokens import TokenBook, new_token, token_hash

__all__ = [
    "JoinInfo",
    "MemorySource",
    "StatusPage",
    "TVSource",
    "TokenBook",
    "create_app",
    "new_token",
    "token_hash",
]
