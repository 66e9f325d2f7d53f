"""The status page's HTTP side: `/tv/<token>` and `/tv/<token>/events`.

Read-only by construction: there is no route that writes. The page is rendered
on the server from the public view; the event stream (Server-Sent Events) sends
the same screen as HTML whenever the game's screen changes, with the screen's
tag (a digest of the screen itself) as the event id, so a reconnecting browser
(`Last-Event-ID`) gets the current screen at once if it has another one. The
tag, not the game's version, is what a browser ever sees: the version counts
every input, secret ones included, so its jump over a Traitors night would
tell the table how many traitors voted. One `Fanout` hub per watched game reads
the change feed and renders each version once for all its viewers. The token is never echoed into a page or a
stream (the script builds its events URL from the address bar).
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from cachetools import FIFOCache
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Mount, Route

from adapters.linkpages import TAG_LENGTH, gone, mount, stream, tag
from adapters.tv import ics, schedule
from adapters.tv.fanout import Fanout
from adapters.tv.screens import render_page, render_screen
from adapters.tv.source import TVSource
from adapters.tv.texts import TEXTS
from gameflow.core.state import Game
from gameflow.i18n import render

KEEPALIVE_SECONDS = 15.0
FRAME_CACHE = 256  # rendered frames kept, keyed by (game id, version)


class StatusPage:
    """The routes over one `TVSource`. `clock` gives the wall time for the timer."""

    def __init__(
        self,
        source: TVSource,
        *,
        clock: Callable[[], float] = time.time,
        keepalive: float = KEEPALIVE_SECONDS,
    ) -> None:
        self.source = source
        self.clock = clock
        self.keepalive = keepalive
        self._frames: FIFOCache[tuple[str, int], str] = FIFOCache(FRAME_CACHE)
        self.fanout = Fanout(source.changes, self._render, keepalive)

    def mount(self, path: str = "/tv") -> Mount:
        """A mount to put into the service's ASGI app."""
        routes = [
            Route("/{token}", self.page, methods=["GET"]),
            Route("/{token}/events", self.events, methods=["GET"]),
            Route("/{token}/campaign.ics", self.calendar, methods=["GET"]),
        ]
        return mount(path, "adapters.tv", routes)

    async def page(self, request: Request) -> Response:
        game = await self.source.game_for_token(request.path_params["token"])
        if game is None:
            return _gone()
        if "calendar" in request.query_params and ics.has_calendar(game):
            # The page's calendar link (`?calendar`, so the page never holds its
            # token): on to the calendar's own address, which can be copied.
            token = request.path_params["token"]
            return RedirectResponse(f"{token}/campaign.ics", status_code=303)
        if "story" in request.query_params:
            # The end screen's story link and QR code (`?story`, `?story=qr`, so
            # no screen holds a token): on to the game's story (adapters/story).
            qr = "/qr.svg" if request.query_params["story"] == "qr" else ""
            return RedirectResponse(f"../story/{request.path_params['token']}{qr}", 303)
        info = await self.source.join_info(game.id)
        # `calendar` is the page's own fact, not the core's: page.html shows the
        # calendar link with it (the screens never see it, so tags are unchanged).
        public = {**schedule.public(game), "calendar": ics.has_calendar(game)}
        html = render_page(public, info, self.clock(), tag(await self.screen(game)))
        return HTMLResponse(html)

    async def calendar(self, request: Request) -> Response:
        """A campaign's coming windows as iCalendar (adapters.tv.ics), made from
        the current state on each request; the same token check as the page.
        A game that is not a campaign has none (404)."""
        game = await self.source.game_for_token(request.path_params["token"])
        if game is None:
            return _gone()
        if not ics.has_calendar(game):
            return Response("Not Found", status_code=404, media_type="text/plain")
        info = await self.source.join_info(game.id)
        body = ics.calendar_for(game, self.clock(), name=info.name if info is not None else "")
        return Response(
            body,
            media_type=f"{ics.MEDIA_TYPE}; charset=utf-8",
            headers={"Content-Disposition": 'inline; filename="campaign.ics"'},
        )

    async def events(self, request: Request) -> Response:
        token = request.path_params["token"]
        game = await self.source.game_for_token(token)
        if game is None:
            return _gone()
        after = _tag(request.headers.get("last-event-id"))
        if after is None:
            after = _tag(request.query_params.get("after"))
        return StreamingResponse(
            self._stream(token, game, after or ""),
            media_type="text/event-stream",
            headers={"X-Accel-Buffering": "no"},
        )

    def _stream(self, token: str, game: Game, after: str) -> AsyncIterator[bytes]:
        return stream(self.fanout, game, after, lambda: self._still_valid(token, game.id))

    async def _still_valid(self, token: str, game_id: str) -> bool:
        game = await self.source.game_for_token(token)
        return game is not None and game.id == game_id

    async def screen(self, game: Game) -> str:
        """`game`'s screen as a JSON string, rendered once per version for all
        viewers. It depends on the public view alone (no clock), so two versions
        that look the same give the same string."""
        key = (game.id, game.version)
        cached = self._frames.get(key)
        if cached is not None:
            return cached
        info = await self.source.join_info(game.id)
        html = json.dumps(render_screen(schedule.public(game), info), ensure_ascii=False)
        self._frames[key] = html
        return html

    async def _render(self, game: Game) -> tuple[str, bytes]:
        return await self.screen(game), await self.frame(game)

    async def frame(self, game: Game) -> bytes:
        """The SSE event for `game`: the screen's tag as the id, the server time
        for the script's timer, and the screen."""
        html = await self.screen(game)
        mark = tag(html)
        head = json.dumps({"version": mark, "lang": game.lang, "now": round(self.clock(), 3)})
        body = f'{head[:-1]},"html":{html}}}'
        return f"id: {mark}\nevent: screen\ndata: {body}\n\n".encode()


def _tag(text: str | None) -> str | None:
    """A tag a browser sent back, if it is one (anything else counts as none)."""
    if text is None:
        return None
    text = text.strip()
    if len(text) != TAG_LENGTH or any(c not in "0123456789abcdef" for c in text):
        return None
    return text


def _gone() -> Response:
    """One 404 for unknown, malformed and revoked links: nothing to tell them apart."""
    return gone(lambda lang: render(TEXTS["link_gone"], lang))


def create_app(source: TVSource, **kwargs: Any) -> Starlette:
    """A stand-alone app with only the status page (tests, the demo, the benchmark)."""
    return Starlette(routes=[StatusPage(source, **kwargs).mount()])
