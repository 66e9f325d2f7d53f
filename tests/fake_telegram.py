"""A fake Telegram Bot API server on 127.0.0.1, for the real PTB client to talk to.

It speaks the Bot API's HTTP wire format (`POST /bot<TOKEN>/<method>`, form or
JSON parameters, `{"ok": true, "result": ...}` answers), keeps the messages it
was asked to send or edit per chat, records every call in order, and can answer
the next calls of a method with 429 and a `retry_after` (Telegram's flood
control) on demand; each call keeps the time it arrived, so tests measure
the rates a bot kept. PTB is pointed at it with `ApplicationBuilder().base_url()`;
nothing in the client library is patched.

`Users` builds the updates simulated people send: commands (with the
`bot_command` entity PTB's CommandHandler looks for) and button presses
(callback queries carrying the pressed message).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import math
import re
import socket
import time
import urllib.parse
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from tests.store_helpers import VirtualTime

TOKEN = "123456:TEST-token"
BOT = {
    "id": 123456,
    "is_bot": True,
    "first_name": "Muldvarp",
    "username": "muldvarp_test_bot",
    "can_join_groups": True,
    "can_read_all_group_messages": False,
    "supports_inline_queries": False,
}
T0 = 1_800_000_000


@dataclass
class Call:
    method: str
    params: dict[str, Any]
    at: float = field(default_factory=time.monotonic)  # when it arrived (rate checks)

    @property
    def chat_id(self) -> int | None:
        chat = self.params.get("chat_id")
        return None if chat is None else int(chat)


@dataclass
class Failure:
    method: str
    times: int
    retry_after: int
    chat_id: int | None = None
    status: int = 429


@dataclass
class FakeBotApi:
    token: str = TOKEN
    calls: list[Call] = field(default_factory=list)
    messages: dict[int, dict[int, dict[str, Any]]] = field(default_factory=dict)
    answers: list[dict[str, Any]] = field(default_factory=list)
    updates: list[dict[str, Any]] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    refused: list[Call] = field(default_factory=list)
    menus: dict[str, Any] = field(default_factory=dict)  # language code -> commands
    port: int = 0
    # Telegram's flood control for groups: at most `group_limit` messages a
    # minute per group, by `clock` (0: no limit); over it, 429 and retry_after.
    group_limit: int = 0
    clock: Callable[[], float] | None = None
    flooded: int = 0  # group sends answered 429 by that limit
    # Like Telegram: a bot may not write first to a user who never wrote to it
    # in private (403). Off unless asked for; `started` holds who has.
    strict_dm: bool = False
    started: set[int] = field(default_factory=set)
    _ids: dict[int, itertools.count[int]] = field(default_factory=dict)
    _group_sends: dict[int, list[float]] = field(default_factory=dict)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/bot"

    # -- control ---------------------------------------------------------------

    def fail(
        self,
        method: str,
        times: int = 1,
        retry_after: int = 1,
        chat_id: int | None = None,
        status: int = 429,
    ) -> None:
        """Answer the next `times` calls of `method` (to `chat_id`) with 429
        (or `status`: 502 for a gateway error, 400 for a refused call)."""
        self.failures.append(Failure(method, times, retry_after, chat_id, status))

    def sent(self, method: str = "sendMessage", chat_id: int | None = None) -> list[Call]:
        return [
            c
            for c in self.calls
            if c.method == method and (chat_id is None or c.chat_id == chat_id)
        ]

    def texts(self, chat_id: int) -> list[str]:
        return [str(c.params.get("text", "")) for c in self.sent("sendMessage", chat_id)]

    def chat(self, chat_id: int) -> list[dict[str, Any]]:
        """The chat's messages as they look now (edits applied), oldest first."""
        return [self.messages[chat_id][k] for k in sorted(self.messages.get(chat_id, {}))]

    def last_with_buttons(self, chat_id: int) -> dict[str, Any] | None:
        for message in reversed(self.chat(chat_id)):
            markup: dict[str, Any] = message.get("reply_markup") or {}
            if markup.get("inline_keyboard"):
                found: dict[str, Any] = message
                return found
        return None

    # -- the wire ----------------------------------------------------------------

    def app(self) -> Starlette:
        return Starlette(
            routes=[Route("/bot{token}/{method}", self.endpoint, methods=["GET", "POST"])]
        )

    async def endpoint(self, request: Request) -> JSONResponse:
        if request.path_params["token"] != self.token:
            return JSONResponse(
                {"ok": False, "error_code": 401, "description": "Unauthorized"}, 401
            )
        method = request.path_params["method"]
        params = await self._params(request)
        call = Call(method, params)
        for failure in self.failures:
            if (
                failure.method == method
                and failure.times > 0
                and failure.chat_id in (None, call.chat_id)
            ):
                failure.times -= 1
                self.refused.append(call)
                if failure.status != 429:
                    text = {400: "Bad Request: chat not found", 502: "Bad Gateway"}
                    body: dict[str, Any] = {"ok": False, "error_code": failure.status}
                    body["description"] = text.get(failure.status, "Error")
                    return JSONResponse(body, failure.status)
                body = {
                    "ok": False,
                    "error_code": 429,
                    "description": f"Too Many Requests: retry after {failure.retry_after}",
                    "parameters": {"retry_after": failure.retry_after},
                }
                return JSONResponse(body, 429)
        chat = call.chat_id
        first = chat is not None and chat > 0 and chat not in self.started
        if method == "sendMessage" and self.strict_dm and first:
            self.refused.append(call)
            body = {
                "ok": False,
                "error_code": 403,
                "description": "Forbidden: bot can't initiate conversation with a user",
            }
            return JSONResponse(body, 403)
        if method == "sendMessage" and chat is not None and chat < 0 and self.group_limit:
            assert self.clock is not None
            now = self.clock()
            recent = [t for t in self._group_sends.get(chat, []) if now - t < 60.0]
            if len(recent) >= self.group_limit:
                self.flooded += 1
                wait = max(1, math.ceil(60.0 - (now - recent[0])))
                body = {
                    "ok": False,
                    "error_code": 429,
                    "description": f"Too Many Requests: retry after {wait}",
                    "parameters": {"retry_after": wait},
                }
                return JSONResponse(body, 429)
            self._group_sends[chat] = [*recent, now]
        self.calls.append(call)
        handler = getattr(self, f"do_{method}", None)
        if handler is None:
            return JSONResponse({"ok": False, "error_code": 404, "description": "Not Found"}, 404)
        result = handler(params)
        if isinstance(result, tuple):
            code, description = result
            return JSONResponse({"ok": False, "error_code": code, "description": description}, code)
        return JSONResponse({"ok": True, "result": result})

    async def _params(self, request: Request) -> dict[str, Any]:
        if request.headers.get("content-type", "").startswith("application/json"):
            data = await request.json()
            return dict(data) if isinstance(data, dict) else {}
        # PTB posts x-www-form-urlencoded fields, each value JSON where not a plain string
        body = (await request.body()).decode("utf-8")
        out: dict[str, Any] = {}
        for key, text in urllib.parse.parse_qsl(body, keep_blank_values=True):
            try:
                out[key] = json.loads(text)
            except ValueError:
                out[key] = text
        return out

    # -- methods -----------------------------------------------------------------

    def do_getMe(self, params: dict[str, Any]) -> Any:
        return BOT

    def do_setWebhook(self, params: dict[str, Any]) -> Any:
        return True

    def do_setMyCommands(self, params: dict[str, Any]) -> Any:
        commands = params.get("commands")
        if isinstance(commands, str):  # sent as a JSON-encoded field
            commands = json.loads(commands)
        self.menus[str(params.get("language_code") or "")] = commands
        return True

    def do_deleteWebhook(self, params: dict[str, Any]) -> Any:
        return True

    def do_getUpdates(self, params: dict[str, Any]) -> Any:
        offset = int(params.get("offset", 0) or 0)
        return [u for u in self.updates if u["update_id"] >= offset]

    def do_sendMessage(self, params: dict[str, Any]) -> Any:
        chat_id = int(params["chat_id"])
        ids = self._ids.setdefault(chat_id, itertools.count(1))
        message_id = next(ids)
        message: dict[str, Any] = {
            "message_id": message_id,
            "date": T0,
            "chat": {"id": chat_id, "type": "private" if chat_id > 0 else "group"},
            "from": {k: BOT[k] for k in ("id", "is_bot", "first_name", "username")},
            "text": str(params.get("text", "")),
        }
        if params.get("reply_markup"):
            message["reply_markup"] = params["reply_markup"]
        if params.get("protect_content"):
            message["has_protected_content"] = True
        self.messages.setdefault(chat_id, {})[message_id] = message
        return self._sent(message)

    @staticmethod
    def _sent(message: dict[str, Any]) -> dict[str, Any]:
        """The Message as the Bot API returns it: only an inline keyboard is
        part of a message (a reply field asked for is the client's business)."""
        markup = message.get("reply_markup") or {}
        if "inline_keyboard" in markup:
            return message
        return {k: v for k, v in message.items() if k != "reply_markup"}

    def _find(self, params: dict[str, Any]) -> dict[str, Any] | tuple[int, str]:
        chat_id, message_id = int(params["chat_id"]), int(params["message_id"])
        message = self.messages.get(chat_id, {}).get(message_id)
        if message is None:
            return 400, "Bad Request: message to edit not found"
        return message

    def _edit(self, params: dict[str, Any], text: str | None = None) -> Any:
        """The message edited in place: its text (if given) and its keyboard,
        which an edit without one removes."""
        message = self._find(params)
        if isinstance(message, tuple):
            return message
        if text is not None:
            message["text"] = text
        if params.get("reply_markup"):
            message["reply_markup"] = params["reply_markup"]
        else:
            message.pop("reply_markup", None)
        return message

    def do_editMessageText(self, params: dict[str, Any]) -> Any:
        return self._edit(params, str(params.get("text", "")))

    def do_editMessageReplyMarkup(self, params: dict[str, Any]) -> Any:
        return self._edit(params)

    def do_answerCallbackQuery(self, params: dict[str, Any]) -> Any:
        self.answers.append(params)
        return True


@contextlib.asynccontextmanager
async def serving(api: FakeBotApi) -> AsyncIterator[FakeBotApi]:
    """Run `api` on a free loopback port in this event loop."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # uvicorn (h11) writes headers and body apart: without this, Nagle and the
    # client's delayed ACK cost 40 ms a call on loopback
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    api.port = sock.getsockname()[1]
    config = uvicorn.Config(
        api.app(), log_level="warning", lifespan="off", ws="none", access_log=False
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        await asyncio.sleep(0.005)
    try:
        yield api
    finally:
        server.should_exit = True
        await task
        sock.close()


class Users:
    """Simulated Telegram users: the updates their taps and commands make."""

    def __init__(self, start: int = 1000) -> None:
        self._update = itertools.count(start)
        self._message = itertools.count(1)
        self._query = itertools.count(1)

    @staticmethod
    def user(uid: int, name: str, lang: str = "en") -> dict[str, Any]:
        return {"id": uid, "is_bot": False, "first_name": name, "language_code": lang}

    def command(
        self, uid: int, name: str, text: str, *, chat_id: int | None = None, lang: str = "en"
    ) -> dict[str, Any]:
        chat_id = uid if chat_id is None else chat_id
        chat: dict[str, Any] = {"id": chat_id, "type": "private" if chat_id > 0 else "group"}
        if chat_id < 0:
            chat["title"] = "Party"
        command = text.split()[0]
        return {
            "update_id": next(self._update),
            "message": {
                "message_id": next(self._message),
                "date": T0,
                "chat": chat,
                "from": self.user(uid, name, lang),
                "text": text,
                "entities": [{"type": "bot_command", "offset": 0, "length": len(command)}],
            },
        }

    def text(self, uid: int, name: str, text: str, *, lang: str = "en") -> dict[str, Any]:
        """A plain private message (no command)."""
        update = self.command(uid, name, text, lang=lang)
        del update["message"]["entities"]
        return update

    def press(
        self, uid: int, name: str, message: dict[str, Any], data: str, *, lang: str = "en"
    ) -> dict[str, Any]:
        return {
            "update_id": next(self._update),
            "callback_query": {
                "id": str(next(self._query)),
                "from": self.user(uid, name, lang),
                "chat_instance": "1",
                "data": data,
                "message": json.loads(json.dumps(message)),
            },
        }


def buttons(message: dict[str, Any]) -> list[tuple[str, str]]:
    """(text, callback data) of every button of a message, row by row."""
    rows = message.get("reply_markup", {}).get("inline_keyboard", [])
    return [(b["text"], b["callback_data"]) for row in rows for b in row]


SECRET = "s3cret-webhook-token"


class Harness:
    """The real adapter (PTB Application, webhook route, outbound queue, game
    service on the embedded store) against a running `FakeBotApi`."""

    def __init__(self, api: FakeBotApi, store: Any, clock: Any, users: Users | None = None) -> None:
        self.api = api
        self.store = store
        self.clock = clock
        self.time = VirtualTime()
        # Share one `Users` between instances of the bot (a restart, a second
        # worker), or their update ids collide and read as redeliveries.
        self.users = Users() if users is None else users
        self.setup: dict[str, Any] | None = None  # the fixed deal of the next /new
        self.settle: Callable[[], Awaitable[None]] | None = None
        self.outbound_options: dict[str, Any] = {}

    async def __aenter__(self) -> Harness:
        from starlette.applications import Starlette as App

        from adapters.telegram.webhook import build, routes, start
        from service.games import GameService

        self.service = GameService(self.store, clock=self.clock)

        async def tv_link(game: Any) -> str:
            return f"https://tv.test/{game.id}"

        self.application, self.tg = build(
            self.api.token,
            self.service,
            base_url=self.api.base_url,
            outbound_options={
                "clock": self.time.clock,
                "sleep": self.time.sleep,
                **self.outbound_options,
            },
            seed_for=lambda update: f"seed-{update.update_id}",  # the same deal every run
            setup_for=lambda update: self.setup,
            tv_link=tv_link,
        )
        await start(self.application, self.tg)
        asgi = App(routes=routes(self.application, self.tg, SECRET))
        self.http = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=asgi), base_url="http://muldvarp.test"
        )
        self.telegram = httpx.AsyncClient()  # Telegram's own calls for the bot
        return self

    async def __aexit__(self, *exc: object) -> None:
        from adapters.telegram.webhook import stop

        await self.http.aclose()
        await self.telegram.aclose()
        await stop(self.application, self.tg)

    async def post(self, update: dict[str, Any], secret: str = SECRET) -> int:
        """POST one update as Telegram does, and like Telegram make the Bot API
        call a 200 may carry (`{"method": ..., params}`) on the bot's behalf."""
        message = update.get("message") or {}
        if (message.get("chat") or {}).get("type") == "private":
            self.api.started.add(int(message["chat"]["id"]))  # they wrote to the bot
        headers = {"X-Telegram-Bot-Api-Secret-Token": secret} if secret else {}
        response = await self.http.post("/telegram/webhook", json=update, headers=headers)
        if response.status_code == 200 and response.content:
            params = response.json()
            method = params.pop("method")
            url = f"{self.api.base_url}{self.api.token}/{method}"
            done = await self.telegram.post(url, json=params)
            assert done.json()["ok"], done.text
        return response.status_code

    async def send(self, update: dict[str, Any]) -> None:
        """Deliver one update and wait until every message it caused is out
        (or, with `settle` set, until the queue is quiet on its own clock)."""
        status = await self.post(update)
        assert status == 200, status
        if self.settle is not None:
            await self.settle()
        else:
            await self.tg.settled()

    async def command(self, uid: int, name: str, text: str, *, chat_id: int | None = None) -> None:
        await self.send(self.users.command(uid, name, text, chat_id=chat_id))

    async def new(self, uid: int, kind: str, *, chat_id: int | None = None) -> tuple[str, str]:
        """Hana (`uid`) opens a `kind` game (in `chat_id`, else privately): its code, its id."""
        await self.command(uid, "Hana", f"/new {kind}", chat_id=chat_id)
        code = re.findall(r"start=([A-Z]+)", self.api.texts(chat_id or uid)[-1])[0]
        game_id = await self.store.game_for_code(code)
        assert game_id is not None
        return code, game_id

    async def press(self, uid: int, name: str, message: dict[str, Any], data: str) -> str | None:
        """Press a button; returns the callback answer's text, if any."""
        before = len(self.api.answers)
        await self.send(self.users.press(uid, name, message, data))
        answers = self.api.answers[before:]
        assert len(answers) == 1, answers  # every press is answered exactly once
        text = answers[0].get("text")
        return None if text is None else str(text)
