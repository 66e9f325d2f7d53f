"""The console's HTTP side: `/console/<token>` (GET the page, POST a control)
and `/console/<token>/events` (the live part, as Server-Sent Events).

Like the TV page (adapters/tv/app.py) the live part is rendered on the server
and streamed whenever it changes, one `Fanout` hub per watched game; an open
stream re-checks its token at every keep-alive, so a rotated link goes dark
within `keepalive` seconds. Unlike the TV it writes: a control is a POST to the
page's own address, applied through the game service with the request id as
its idempotency key (`console:<rid>`: a double tap or a resent form applies
once). A POST must carry the page's CSRF token (a fresh nonce per page, signed
with a key derived from the link's secret, so it cannot be made without the
link), and is refused when the browser says it comes from another site
(`Sec-Fetch-Site`, `Origin`). No cookie carries any authority (the link is
the bearer), so there is nothing for another site to ride on; the pages may
not be framed (`frame-ancestors 'none'`). The token is never echoed into a
page or a stream.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
from collections.abc import AsyncIterator, Callable
from urllib.parse import parse_qs, urlsplit

from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route

from adapters.console.controls import build, label_of, talk_control
from adapters.console.texts import TEXTS
from adapters.console.tokens import ConsoleTokens
from adapters.console.view import live
from adapters.linkpages import PRIVATE, gone, mount, stream, tag, templates
from adapters.tv.fanout import Fanout
from adapters.tv.screens import HTML_LANG
from gameflow.core.state import Game
from gameflow.core.text import msg
from gameflow.i18n import render
from service.games import GameService

HEADERS = {
    **PRIVATE,
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
        "img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
}
KEEPALIVE_SECONDS = 15.0
RID_RE = re.compile(r"^[A-Za-z0-9_-]{8,64}$")

_env = templates("adapters.console")


def csrf_token(secret: str) -> str:
    """A fresh per-page CSRF token: a nonce and its MAC under the link's secret."""
    nonce = secrets.token_urlsafe(16)
    return f"{nonce}.{_mac(secret, nonce)}"


def csrf_ok(secret: str, token: str) -> bool:
    nonce, _, mac = token.partition(".")
    return bool(secret and nonce and mac) and hmac.compare_digest(mac, _mac(secret, nonce))


def _mac(secret: str, nonce: str) -> str:
    key = hashlib.sha256(b"muldvarp-console-csrf:" + secret.encode()).digest()
    return hmac.new(key, nonce.encode(), hashlib.sha256).hexdigest()[:32]


def same_site(request: Request) -> bool:
    """False when the browser says the request comes from another site."""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return False
    origin = request.headers.get("origin")
    if origin is not None:
        host = request.headers.get("host", "").lower()
        if origin == "null" or urlsplit(origin).netloc.lower() != host:
            return False
    return True


def _gone() -> Response:
    """One 404 for unknown, malformed and rotated links."""
    return gone(lambda lang: render(TEXTS["link_gone"], lang))


class Console:
    """The console's routes over the game service; `changes` is the store's
    change feed (the TV's source has one: `StoreSource.changes`)."""

    def __init__(
        self,
        service: GameService,
        changes: Callable[[str, int], AsyncIterator[Game]],
        *,
        clock: Callable[[], float] | None = None,
        keepalive: float = KEEPALIVE_SECONDS,
    ) -> None:
        self.service = service
        self.tokens = ConsoleTokens(service.store)
        self.clock = clock or service.clock
        self.keepalive = keepalive
        self.fanout = Fanout(changes, self._render, keepalive)

    def mount(self, path: str = "/console") -> Mount:
        routes = [
            Route("/{token}", self.page, methods=["GET"]),
            Route("/{token}", self.act, methods=["POST"]),
            Route("/{token}/events", self.events, methods=["GET"]),
        ]
        return mount(path, "adapters.console", routes, HEADERS)

    async def issue(self, game: Game, rotate: bool = False) -> str:
        """A fresh console token for `game` (the host gets it privately);
        `rotate`: every earlier link stops working."""
        return await self.tokens.issue(game, rotate)

    async def open(self, token: str) -> Game | None:
        game_id = await self.tokens.game_id(token)
        return None if game_id is None else await self.service.store.load(game_id)

    async def live_html(self, game: Game, csrf: str = "") -> str:
        """The live part; without `csrf` (event frames) its forms are left for
        the page's script to fill, so that one frame serves every viewer."""
        ctx = live(game, self.clock())
        ctx["csrf"] = csrf
        ctx["rid"] = (lambda: secrets.token_urlsafe(12)) if csrf else (lambda: "")
        return _env.get_template("live.html").render(ctx)

    async def page(self, request: Request, notice: str = "", status: int = 200) -> Response:
        token = request.path_params["token"]
        game = await self.open(token)
        if game is None:
            return _gone()
        csrf = csrf_token(ConsoleTokens.secret_of(token))
        html = _env.get_template("page.html").render(
            html_lang=HTML_LANG.get(game.lang, "en"),
            t=lambda key, **p: render(msg(TEXTS[key], **p), game.lang),
            csrf=csrf,
            now=round(self.clock(), 3),
            notice=notice,
            live=Markup(await self.live_html(game, csrf)),
        )
        return HTMLResponse(html, status_code=status)

    async def act(self, request: Request) -> Response:
        token = request.path_params["token"]
        game = await self.open(token)
        if game is None:
            return _gone()
        wants_json = "application/json" in request.headers.get("accept", "")

        async def answer(text: str, status: int, ok: bool) -> Response:
            if wants_json:
                return JSONResponse({"ok": ok, "notice": text}, status_code=status)
            return await self.page(request, text, status)

        form = parse_qs((await request.body()).decode("utf-8", "replace"))
        sent_csrf = next(iter(form.get("csrf", [])), None)
        if not same_site(request) or not (
            isinstance(sent_csrf, str) and csrf_ok(ConsoleTokens.secret_of(token), sent_csrf)
        ):
            return Response("Forbidden", status_code=403, media_type="text/plain")
        lang = game.lang
        rid, kind = next(iter(form.get("rid", [])), None), next(iter(form.get("kind", [])), None)
        if not (isinstance(rid, str) and RID_RE.match(rid) and isinstance(kind, str)):
            return await answer(render(TEXTS["bad_request"], lang), 400, False)
        key = f"console:{rid}"
        if await self.service.store.applied(game.id, key) is not None:
            return await answer(render(TEXTS["duplicate"], lang), 200, True)
        values = {k[2:]: v for k, v in form.items() if k.startswith("f:")}
        talked = await talk_control(self.service, game, kind, values, key)  # mute, unmute
        if talked is not None:
            return await answer(talked[0], 200 if talked[1] else 409, talked[1])
        action = build(game, self.clock(), kind, values)
        if action is None:
            return await answer(render(TEXTS["bad_request"], lang), 409, False)
        outcome = await self.service.submit(game.id, action, key=key)
        lang = outcome.game.lang
        if outcome.duplicate:
            return await answer(render(TEXTS["duplicate"], lang), 200, True)
        if outcome.rejected is not None:
            why = render(outcome.rejected.message, lang)
            return await answer(render(msg(TEXTS["refused"], why=why), lang), 409, False)
        what = label_of(outcome.game, kind, lang)[0]
        return await answer(render(msg(TEXTS["done"], what=what), lang), 200, True)

    async def events(self, request: Request) -> Response:
        token = request.path_params["token"]
        game = await self.open(token)
        if game is None:
            return _gone()
        after = request.headers.get("last-event-id", "")
        return StreamingResponse(
            self._stream(token, game, after),
            media_type="text/event-stream",
            headers={"X-Accel-Buffering": "no"},
        )

    def _stream(self, token: str, game: Game, after: str) -> AsyncIterator[bytes]:
        return stream(self.fanout, game, after, lambda: self._still_valid(token, game.id))

    async def _still_valid(self, token: str, game_id: str) -> bool:
        return await self.tokens.game_id(token) == game_id

    async def _render(self, game: Game) -> tuple[str, bytes]:
        html = await self.live_html(game)
        mark = tag(html)
        data = json.dumps({"now": round(self.clock(), 3), "html": html}, ensure_ascii=False)
        return html, f"id: {mark}\nevent: live\ndata: {data}\n\n".encode()
