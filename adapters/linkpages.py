"""What the pages behind a secret link share: the TV's (adapters/tv), the
console's (adapters/console) and the story's (adapters/story).

Each is a mount of its own routes with its package's static files, behind
private headers on every response (pages, streams, 404s, static files), so no
route can forget them; each renders Jinja2 templates that extend one head
(adapters/tv/templates/base.html: language, viewport, no indexing); and each
answers a bad link with the same 404, in every language. A page that writes
(the console) adds its own headers to the private ones. The live pages (the
TV's, the console's) stream their screen to each viewer the same way, from
their `Fanout`, with the screen's tag as the event id.
"""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence

from jinja2 import ChoiceLoader, Environment, PackageLoader, StrictUndefined, select_autoescape
from starlette.middleware import Middleware
from starlette.responses import HTMLResponse, Response
from starlette.routing import BaseRoute, Mount
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from adapters.tv.fanout import Fanout
from gameflow.core.state import Game
from gameflow.i18n import LANGUAGES

PRIVATE = {
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
    "X-Robots-Tag": "noindex, nofollow",
    "X-Content-Type-Options": "nosniff",
}
BASE_TEMPLATES = ("adapters.tv", "templates")  # base.html, the pages' shared head
RETRY_MS = 3000
TAG_LENGTH = 16


class PrivateHeaders:
    """Sets `headers` on every response of `app`, replacing any the route set."""

    def __init__(self, app: ASGIApp, headers: Mapping[str, str] = PRIVATE) -> None:
        self.app = app
        self.raw = [(k.lower().encode(), v.encode()) for k, v in headers.items()]
        self.lower = {k.lower() for k in headers}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                raw = [
                    (k, v)
                    for k, v in message.get("headers", [])
                    if k.decode("latin-1").lower() not in self.lower
                ]
                message = {**message, "headers": [*raw, *self.raw]}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def mount(
    path: str, package: str, routes: Sequence[BaseRoute], headers: Mapping[str, str] = PRIVATE
) -> Mount:
    """`routes` under `path`, after `package`'s static files at `static/`, all
    behind `headers`."""
    static = Mount(
        "/static",
        app=StaticFiles(packages=[(package, "static")]),
        name=f"{package.rpartition('.')[2]}-static",
    )
    middleware = [Middleware(PrivateHeaders, headers=headers)]
    return Mount(path, routes=[static, *routes], middleware=middleware)


def templates(package: str) -> Environment:
    """The Jinja2 environment of `package`'s templates, which can extend the
    shared base.html."""
    loaders = [PackageLoader(package, "templates")]
    if package != BASE_TEMPLATES[0]:
        loaders.append(PackageLoader(*BASE_TEMPLATES))
    return Environment(
        loader=ChoiceLoader(loaders),
        autoescape=select_autoescape(["html"]),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def gone(text: Callable[[str], str]) -> Response:
    """One 404 for unknown, malformed and revoked links (nothing tells them
    apart), with the page's `text(lang)` in every language."""
    lines = "".join(f"<p lang='{lang}'>{text(lang)}</p>" for lang in LANGUAGES)
    html = f"<!DOCTYPE html><meta charset='utf-8'><title>404</title><body>{lines}</body>"
    return HTMLResponse(html, status_code=404)


def tag(screen: str) -> str:
    """The tag of a rendered screen: equal screens, equal tags; it says nothing
    else about the game (not how many inputs led to it)."""
    return hashlib.sha256(screen.encode("utf-8")).hexdigest()[:TAG_LENGTH]


async def stream(
    fanout: Fanout, game: Game, after: str, still_valid: Callable[[], Awaitable[bool]]
) -> AsyncIterator[bytes]:
    """One viewer: the current screen if theirs (tag `after`) is another, then each
    changed screen and a keep-alive (with a link re-check, `still_valid`, so a
    revoked link stops within the keep-alive) on every tick of the game's hub.
    Versions that leave the screen unchanged send nothing: a viewer cannot
    tell from the timing that, say, the traitors acted at night."""
    yield f"retry: {RETRY_MS}\n\n".encode()
    hub = await fanout.join(game)
    try:
        screen, frame = await fanout.render(game)
        if tag(screen) != after:
            yield frame
        last = screen  # shown (or already on their screen); newer ones follow
        sent = game.version
        tick = hub.tick
        while True:
            bell = hub.event  # taken before looking, so no ring is missed
            if hub.gone:
                yield b"event: gone\ndata: {}\n\n"
                return
            if hub.version > sent:
                sent = hub.version
                if hub.screen != last:
                    last = hub.screen
                    yield hub.frame
                    continue
            if hub.tick != tick:
                tick = hub.tick
                if not await still_valid():
                    yield b"event: gone\ndata: {}\n\n"
                    return
                yield b": keep-alive\n\n"
                continue
            await bell.wait()
    finally:
        fanout.leave(game.id, hub)
