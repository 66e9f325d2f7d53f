"""The game's story page (issue #32, item 6): `/story/<token>` replays an
ended game round by round with every secret, for the table to watch together.

Read-only, like the TV page, and reached with the same secret: the TV link's
token (adapters/tv/tokens.py) opens its game's story, so only the table that
had the TV link finds it. The story holds every secret, so it exists only once
the game is over: before that, and for an unknown, malformed or revoked token,
the same 404. `/story/<token>/qr.svg` is the story's own link as a QR code, for
the TV's end screen. The same private headers as the TV page (no caching, no
referrer, no indexing).
"""

from __future__ import annotations

import io
from typing import Any, Protocol

import segno
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Mount, Route

from adapters.linkpages import gone, mount
from adapters.story.page import render_page, text
from gameflow.core import registry
from gameflow.core.definition import Story
from gameflow.core.state import Game


class GameForToken(Protocol):
    """What the page needs of the TV's source (adapters/tv/source.py TVSource)."""

    async def game_for_token(self, token: str) -> Game | None: ...


def story_of(game: Game | None) -> Story | None:
    """`game`'s story: only for a game that is over and has one (its definition's)."""
    if game is None or not game.over:
        return None
    definition = registry.find(game.kind)
    if definition is None or definition.story is None:
        return None
    return definition.story(game)


class StoryPage:
    """The routes over a source of games by TV token. `base_url` is the
    public address the QR code names ("https://example.org/story/"); without
    it, the request's own."""

    def __init__(self, source: GameForToken, *, base_url: str | None = None) -> None:
        self.source = source
        self.base_url = base_url

    def mount(self, path: str = "/story") -> Mount:
        """A mount to put into the service's ASGI app."""
        routes = [
            Route("/{token}", self.page, methods=["GET"]),
            Route("/{token}/qr.svg", self.qr, methods=["GET"]),
        ]
        return mount(path, "adapters.story", routes)

    async def _story(self, token: str) -> tuple[Game, Story] | None:
        game = await self.source.game_for_token(token)
        story = story_of(game)
        return None if game is None or story is None else (game, story)

    async def page(self, request: Request) -> Response:
        found = await self._story(request.path_params["token"])
        if found is None:
            return _gone()
        game, story = found
        return HTMLResponse(render_page(story, game.kind, game.lang))

    async def qr(self, request: Request) -> Response:
        token = request.path_params["token"]
        if await self._story(token) is None:
            return _gone()
        if self.base_url:
            url = f"{self.base_url.rstrip('/')}/{token}"
        else:
            url = str(request.url.replace(query="")).removesuffix("/qr.svg")
        return Response(qr_svg(url), media_type="image/svg+xml")


def qr_svg(url: str) -> bytes:
    """`url` as a QR code, a stand-alone SVG document (an `<img>` loads it)."""
    out = io.BytesIO()
    segno.make(url, error="m").save(
        out, kind="svg", border=2, dark="#000", light="#fff", xmldecl=False, omitsize=True
    )
    return out.getvalue()


def _gone() -> Response:
    """One 404 for unknown, malformed and revoked links and running games."""
    return gone(lambda lang: text("link_gone", lang))


def create_app(source: GameForToken, **kwargs: Any) -> Starlette:
    """A stand-alone app with only the story page (tests)."""
    return Starlette(routes=[StoryPage(source, **kwargs).mount()])
