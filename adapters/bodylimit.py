"""A request body limit per path, enforced before any route reads the body.

Without one, a POST of any size was read whole and parsed: a 400,000-field form
with a bogus signature to `/sms/twilio` held the event loop for seconds before
its 403, and every other request (`/healthz`, the webhooks) waited. `BodyLimit`
wraps the ASGI app: a declared `Content-Length` over the path's limit gets 413
before a byte of the body is read, a chunked body is counted as it arrives and
cut off with 413 as soon as it passes the limit, and a body within the limit is
read here and handed on to the route unchanged. The 413 closes the connection,
so the rest of an oversized body is never read. Limits (docs/operators.md):
Twilio's webhooks are small, a Telegram update gets more room, the rest little.
"""

from __future__ import annotations

from collections.abc import Sequence

from starlette.types import ASGIApp, Message, Receive, Scope, Send

KIB = 1024
# (path prefix, bytes): the first prefix that matches wins
LIMITS: tuple[tuple[str, int], ...] = (
    ("/sms/", 64 * KIB),  # Twilio's webhooks: a text or a status report, a few hundred bytes
    ("/telegram/", 256 * KIB),  # a Telegram update: at most tens of KiB in practice
)
DEFAULT_LIMIT = 64 * KIB  # everything else: the internal API's JSON, stray POSTs


class BodyLimit:
    """The ASGI app behind a per-path request body limit (413 past it)."""

    def __init__(
        self,
        app: ASGIApp,
        limits: Sequence[tuple[str, int]] = LIMITS,
        default: int = DEFAULT_LIMIT,
    ) -> None:
        self.app = app
        self.limits = tuple(limits)
        self.default = default

    def limit_for(self, path: str) -> int:
        for prefix, limit in self.limits:
            if path.startswith(prefix):
                return limit
        return self.default

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(str(scope.get("path", "")))
        declared: bytes | None = None
        chunked = False
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                declared = value
            elif name == b"transfer-encoding":
                chunked = True
        if declared is not None:
            if not declared.strip().isdigit():
                await refuse(send, 400, "bad Content-Length")
                return
            if int(declared) > limit:
                await refuse(send, 413, "request body too large")
                return
        if not chunked and not (declared and int(declared)):
            await self.app(scope, receive, send)  # no body to read
            return
        parts: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":  # the client left mid-body
                return
            part = bytes(message.get("body", b""))
            size += len(part)
            if size > limit:
                await refuse(send, 413, "request body too large")
                return
            parts.append(part)
            more = bool(message.get("more_body", False))
        body = b"".join(parts)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # what comes after the body: a disconnect

        await self.app(scope, replay, send)


async def refuse(send: Send, status: int, reason: str) -> None:
    """A short plain-text answer that closes the connection (the rest of the
    body, if any, is not read)."""
    text = reason.encode()
    headers = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(text)).encode()),
        (b"connection", b"close"),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": text, "more_body": False})
