"""A fake Twilio REST API on 127.0.0.1, speaking Twilio's wire format.

`GET` on the same path lists the messages (`To`, `From`, `PageSize`), newest
first, as Twilio's list resource does. `POST /2010-04-01/Accounts/{AccountSid}/Messages.json`, form-encoded (`To`,
`From` or `MessagingServiceSid`, `Body`, `StatusCallback`), HTTP basic auth with
the account SID and auth token: 201 and the message resource as JSON (`sid`,
`status` "queued", `num_segments`, ...), or Twilio's error document (`code`,
`message`, `more_info`, `status`) for a bad request, a wrong password (20003)
or a recipient who has opted out (21610); while `throttle` > 0, each request
uses one up and gets 429 (Twilio's 20429, "Too Many Requests"). The real `twilio.rest.Client` talks
to it through `TWILIO_API_BASE_URL`; tests read `messages` to see what was sent.
"""

from __future__ import annotations

import base64
import json
import secrets
import sys
import threading
import time
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode

from adapters.sms.segments import segments

ACCOUNT_SID = "AC" + "0123456789abcdef" * 2
AUTH_TOKEN = "f00dfeedf00dfeedf00dfeedf00dfeed"


def inbound(url: str, sid: str, phone: str, to: str, body: str) -> tuple[bytes, dict[str, str]]:
    """The form body and headers of Twilio's inbound-text webhook to `url` (the
    public URL Twilio signs), signed with `AUTH_TOKEN` as Twilio signs it."""
    from twilio.request_validator import RequestValidator

    params = {
        "MessageSid": sid,
        "AccountSid": ACCOUNT_SID,
        "From": phone,
        "To": to,
        "Body": body,
        "NumMedia": "0",
    }
    headers = {
        "X-Twilio-Signature": RequestValidator(AUTH_TOKEN).compute_signature(url, params),
        "Content-Type": "application/x-www-form-urlencoded",
    }
    return urlencode(params).encode(), headers


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return  # the client went away (a worker killed mid-request): not our error
        super().handle_error(request, client_address)


class FakeTwilio:
    def __init__(self, account_sid: str = ACCOUNT_SID, auth_token: str = AUTH_TOKEN) -> None:
        self.account_sid = account_sid
        self.auth_token = auth_token
        self.messages: list[dict[str, Any]] = []
        self.requests = 0
        self.unsubscribed: set[str] = set()
        self.throttle = 0
        self.delay = 0.0  # seconds each request takes to be answered (a slow Twilio)
        # The next `stall` accepted messages are answered only after `stall_for`
        # seconds: Twilio took them, the client timed out waiting (ambiguous).
        self.stall = 0
        self.stall_for = 0.0
        self.lose = 0  # the next `lose` POSTs are not taken, answered after `stall_for` s
        self.lookups = 0  # GET Messages.json (the sender checking what was taken)
        # The game's clock, when a test runs one: each message is stamped with
        # it too ("clock"), so a test can tell when in the game it was sent.
        self.clock: Any = None
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            # Keep-alive, as Twilio's API does: the client reuses its connection
            # instead of opening one (and this server a thread) per message.
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go out in two writes

            def do_POST(self) -> None:
                if fake.delay > 0:
                    time.sleep(fake.delay)
                length = int(self.headers.get("Content-Length") or 0)
                form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
                with fake._lock:
                    lost = fake.lose > 0
                    if lost:
                        fake.lose -= 1
                if lost:
                    time.sleep(fake.stall_for)
                    status, doc = fake._error(500, 20500, "Internal Server Error")
                else:
                    status, doc = fake.handle(
                        self.path, self.headers.get("Authorization", ""), form
                    )
                with fake._lock:
                    stalled = status == 201 and fake.stall > 0
                    if stalled:
                        fake.stall -= 1
                if stalled:
                    time.sleep(fake.stall_for)
                self.reply(status, doc)

            def reply(self, status: int, doc: dict[str, Any]) -> None:
                raw = json.dumps(doc).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def do_GET(self) -> None:
                path, _, query = self.path.partition("?")
                params = {k: v[0] for k, v in parse_qs(query).items()}
                status, doc = fake.listing(path, self.headers.get("Authorization", ""), params)
                self.reply(status, doc)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = _Server(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def base_url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> FakeTwilio:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)

    def _basic(self) -> str:
        """The Authorization header Twilio's client sends (HTTP basic auth)."""
        pair = f"{self.account_sid}:{self.auth_token}".encode()
        return "Basic " + base64.b64encode(pair).decode()

    def _error(self, status: int, code: int, message: str) -> tuple[int, dict[str, Any]]:
        return status, {
            "code": code,
            "message": message,
            "more_info": f"https://www.twilio.com/docs/errors/{code}",
            "status": status,
        }

    def handle(self, path: str, auth: str, form: dict[str, str]) -> tuple[int, dict[str, Any]]:
        with self._lock:
            self.requests += 1
        if auth != self._basic():
            return self._error(401, 20003, "Authenticate")
        with self._lock:
            throttled, self.throttle = self.throttle > 0, max(0, self.throttle - 1)
        if throttled:
            return self._error(429, 20429, "Too Many Requests")
        if path != f"/2010-04-01/Accounts/{self.account_sid}/Messages.json":
            return self._error(404, 20404, "The requested resource was not found")
        to, body = form.get("To"), form.get("Body")
        if not to:
            return self._error(400, 21604, "A 'To' phone number is required.")
        if not body:
            return self._error(400, 21602, "Message body is required.")
        if not form.get("From") and not form.get("MessagingServiceSid"):
            return self._error(400, 21603, "A 'From' phone number is required.")
        if to in self.unsubscribed:
            return self._error(400, 21610, "Attempt to send to unsubscribed recipient")
        sid = "SM" + secrets.token_hex(16)
        now = formatdate(usegmt=True)
        doc = {
            "sid": sid,
            "account_sid": self.account_sid,
            "api_version": "2010-04-01",
            "body": body,
            "date_created": now,
            "date_updated": now,
            "date_sent": None,
            "direction": "outbound-api",
            "error_code": None,
            "error_message": None,
            "from": form.get("From"),
            "messaging_service_sid": form.get("MessagingServiceSid"),
            "num_media": "0",
            "num_segments": str(segments(body)),
            "price": None,
            "price_unit": "USD",
            "status": "queued" if form.get("MessagingServiceSid") is None else "accepted",
            "to": to,
            "uri": f"/2010-04-01/Accounts/{self.account_sid}/Messages/{sid}.json",
            "subresource_uris": {
                "media": f"/2010-04-01/Accounts/{self.account_sid}/Messages/{sid}/Media.json"
            },
        }
        with self._lock:
            # "received": when it reached Twilio (tests order texts against inputs)
            self.messages.append(
                {
                    **doc,
                    "status_callback": form.get("StatusCallback"),
                    "received": time.time(),
                    "clock": self.clock() if self.clock is not None else None,
                }
            )
        return 201, doc

    def listing(self, path: str, auth: str, params: dict[str, str]) -> tuple[int, dict[str, Any]]:
        """`GET .../Messages.json?To=&From=&PageSize=`: the messages, newest first."""
        if auth != self._basic():
            return self._error(401, 20003, "Authenticate")
        if path != f"/2010-04-01/Accounts/{self.account_sid}/Messages.json":
            return self._error(404, 20404, "The requested resource was not found")
        with self._lock:
            self.lookups += 1
            found = [
                {k: v for k, v in m.items() if k not in ("status_callback", "received", "clock")}
                for m in reversed(self.messages)
                if m["to"] == params.get("To", m["to"])
                and m["from"] == params.get("From", m["from"])
            ]
        size = int(params.get("PageSize", 50))
        uri = f"/2010-04-01/Accounts/{self.account_sid}/Messages.json"
        return 200, {
            "messages": found[:size],
            "end": min(size, len(found)) - 1,
            "first_page_uri": f"{uri}?PageSize={size}&Page=0",
            "next_page_uri": None,
            "page": 0,
            "page_size": size,
            "previous_page_uri": None,
            "start": 0,
            "uri": f"{uri}?PageSize={size}&Page=0",
        }

    def to(self, phone: str, before: float | None = None) -> list[str]:
        """The bodies sent to `phone`, in order (those received before `before`)."""
        with self._lock:
            return [
                m["body"]
                for m in self.messages
                if m["to"] == phone and (before is None or m["received"] < before)
            ]

    def clear(self) -> None:
        with self._lock:
            self.messages.clear()
