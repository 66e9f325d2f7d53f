"""The SMS set-up of docs/hosts.md, step by step: `muldvarp serve` on a server
behind a tunnel (or a domain's reverse proxy) that gives it a public https
address, and Twilio texting it.

What runs is what a host runs: the real `muldvarp serve` in its own process,
the embedded store, settings from a `.env` file in its folder, listening on the
loopback only. In front of it sits what the world reaches:

- a **tunnel** (cloudflared's quick tunnel, ngrok): a forwarder on another
  loopback port that passes each request on as the tunnel's agent does: with the
  public host name in `Host`, `X-Forwarded-Proto: https`, `X-Forwarded-For` the
  caller's address (and cloudflared's `Cf-*` headers);
- a **domain with Caddy** (when `caddy` is installed): a real Caddy that
  terminates TLS (its internal CA standing in for Let's Encrypt) for
  `muldvarp.example.org` and reverse-proxies to `serve`, as deploy/Caddyfile does.

Twilio's side is played by the test: webhooks are signed with twilio's own
`RequestValidator.compute_signature` over the public URL (as Twilio signs them:
the URL configured in its console) and sent to the tunnel or the proxy, never to
`serve` directly; the replies go out through the real Twilio client to the fake
Twilio REST API on loopback (`TWILIO_API_BASE_URL`, the one line of the `.env`
a real host does not write).
"""

from __future__ import annotations

import http.client
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from twilio.request_validator import RequestValidator

from tests.fake_twilio import ACCOUNT_SID, AUTH_TOKEN, FakeTwilio

pytestmark = pytest.mark.sms

NUMBER = "+4759440000"  # the game's Twilio number
HOST_PHONE = "+4790000001"
PLAYER_PHONE = "+4790000002"
FORGED_PHONE = "+4790000666"
TWILIO_IP = "54.172.60.1"  # where Twilio's webhook calls come from
TUNNEL_HOST = "quiet-mole-sofa-lamp.trycloudflare.com"
DOMAIN = "muldvarp.example.org"
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "upgrade", "host"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# -- the server, as docs/hosts.md starts it ------------------------------------------


def wait_healthy(
    proc: subprocess.Popen[str], port: int, log: Callable[[], str], seconds: float = 20
) -> None:
    """Until `serve` on `port` answers /healthz (`seconds` at most, and never
    once it died; `log()` says why not)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline and proc.poll() is None, log()
        time.sleep(0.05)


def spawn_serve(
    cwd: Path | str, keep: tuple[str, ...] = ("PATH", "HOME", "LANG", "TMPDIR")
) -> subprocess.Popen[str]:
    """`muldvarp serve` in `cwd`, whose `.env` configures it: of this machine's
    environment only the variables `keep` names pass (no REDIS_URL, no bot
    token); unbuffered output, stderr with stdout on one text pipe."""
    env = {k: v for k, v in os.environ.items() if k in keep}
    env["PYTHONUNBUFFERED"] = "1"
    return subprocess.Popen(
        [sys.executable, "-m", "bots.cli", "serve"],  # `muldvarp serve`
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def stop_serve(proc: subprocess.Popen[str]) -> None:
    """Stop `serve` as a service manager does (SIGTERM; killed after 15 s)."""
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)
    if proc.stdout is not None:
        proc.stdout.close()


@dataclass
class Served:
    proc: subprocess.Popen[str]
    port: int
    banner: list[str]


def _env_file(folder: Path, public: str, port: int, twilio_api: str) -> None:
    """The `.env` of docs/hosts.md ("An SMS game on a server"), line for line."""
    (folder / ".env").write_text(
        f"PUBLIC_BASE_URL={public}\n"
        f"TWILIO_ACCOUNT_SID={ACCOUNT_SID}\n"
        f"TWILIO_AUTH_TOKEN={AUTH_TOKEN}\n"
        f"TWILIO_FROM={NUMBER}\n"
        f"MULDVARP_PORT={port}\n"
        "# the tests' own line: Twilio's REST API is the fake on loopback\n"
        f"TWILIO_API_BASE_URL={twilio_api}\n"
    )


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Any]:
    started: list[subprocess.Popen[str]] = []

    def start(public: str, twilio_api: str) -> Served:
        port = _free_port()
        _env_file(tmp_path, public, port, twilio_api)
        # Nothing of this machine's settings (REDIS_URL, a bot token) leaks in:
        # the `.env` is the whole configuration, as on a fresh server.
        proc = spawn_serve(tmp_path, ("PATH", "HOME", "LANG", "SYSTEMROOT", "TMPDIR"))
        started.append(proc)
        assert proc.stdout is not None
        banner: list[str] = []
        for line in proc.stdout:
            banner.append(line.rstrip())
            if line.lstrip().startswith("TV pages:"):
                break
        else:
            pytest.fail("serve ended: " + "\n".join(banner))
        threading.Thread(target=proc.stdout.read, daemon=True).start()  # keep draining
        wait_healthy(proc, port, lambda: "\n".join(banner))
        return Served(proc, port, banner)

    yield start
    for proc in started:
        stop_serve(proc)


# -- what the world reaches: a tunnel, or Caddy on a domain ---------------------------


class Tunnel:
    """The tunnel's edge and agent in one: what reaches it is passed on to
    `serve` with the headers cloudflared's agent adds (ngrok's are the same
    three X-Forwarded ones)."""

    def __init__(self, public_host: str, target_port: int) -> None:
        tunnel = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
                headers.update(
                    {
                        "Host": public_host,
                        "X-Forwarded-For": TWILIO_IP,
                        "X-Forwarded-Proto": "https",
                        "X-Forwarded-Host": public_host,
                        "Cf-Connecting-Ip": TWILIO_IP,
                        "Cf-Visitor": '{"scheme":"https"}',
                    }
                )
                conn = http.client.HTTPConnection("127.0.0.1", target_port, timeout=30)
                try:
                    conn.request(self.command, self.path, body=body, headers=headers)
                    answer = conn.getresponse()
                    data = answer.read()
                finally:
                    conn.close()
                tunnel.seen.append((self.command, self.path, headers))
                self.send_response(answer.status)
                for k, v in answer.getheaders():
                    if k.lower() not in HOP_BY_HOP and k.lower() != "content-length":
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = _forward

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.seen: list[tuple[str, str, dict[str, str]]] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.public_host = public_host

    def client(self) -> httpx.Client:
        port = self.server.server_address[1]
        return httpx.Client(
            base_url=f"http://127.0.0.1:{port}", headers={"Host": self.public_host}, timeout=30
        )

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


# -- Twilio's side --------------------------------------------------------------------


class Phone:
    """Texts as Twilio delivers them: the webhook's form fields, signed over the
    public URL with the account's auth token."""

    count = 0

    def __init__(self, client: httpx.Client, public: str) -> None:
        self.client = client
        self.public = public

    def fields(self, phone: str, body: str) -> dict[str, str]:
        Phone.count += 1
        sid = f"SM{Phone.count:032x}"
        return {
            "ToCountry": "NO",
            "ToState": "",
            "SmsMessageSid": sid,
            "NumMedia": "0",
            "ToCity": "",
            "FromZip": "",
            "SmsSid": sid,
            "FromState": "",
            "SmsStatus": "received",
            "FromCity": "",
            "Body": body,
            "FromCountry": "NO",
            "To": NUMBER,
            "ToZip": "",
            "NumSegments": "1",
            "MessageSid": sid,
            "AccountSid": ACCOUNT_SID,
            "From": phone,
            "ApiVersion": "2010-04-01",
        }

    def post(
        self, path: str, fields: dict[str, str], *, url: str | None = None, token: str = AUTH_TOKEN
    ) -> httpx.Response:
        signed_url = url if url is not None else self.public + path
        signature = RequestValidator(token).compute_signature(signed_url, fields)
        headers = {"X-Twilio-Signature": signature, "User-Agent": "TwilioProxy/1.1"}
        return self.client.post(path, data=fields, headers=headers)

    def text(self, phone: str, body: str, **kw: Any) -> httpx.Response:
        return self.post("/sms/twilio", self.fields(phone, body), **kw)


def _replies(fake: FakeTwilio, phone: str, n: int = 1, timeout: float = 20.0) -> list[str]:
    deadline = time.monotonic() + timeout
    while len(fake.to(phone)) < n:
        assert time.monotonic() < deadline, f"no text to {phone}: {fake.messages}"
        time.sleep(0.02)
    return fake.to(phone)


# -- the set-up, played through -------------------------------------------------------


def _play_the_set_up(served: Served, fake: FakeTwilio, client: httpx.Client, public: str) -> None:
    phone = Phone(client, public)
    # The start banner names the webhook URL to paste into Twilio's console.
    assert f"  sms:       webhook {public}/sms/twilio" in served.banner, served.banner
    assert f"  TV pages:  {public}/tv/<token>" in served.banner

    # Wrongly signed texts are refused and change nothing: signed for the
    # address `serve` listens on (a PUBLIC_BASE_URL that is not the console's
    # URL), signed with another account's token, or not signed at all.
    local = f"http://127.0.0.1:{served.port}/sms/twilio"
    assert phone.text(FORGED_PHONE, "NEW STATION", url=local).status_code == 403
    assert phone.text(FORGED_PHONE, "NEW STATION", token="0" * 32).status_code == 403
    unsigned = client.post("/sms/twilio", data=phone.fields(FORGED_PHONE, "NEW STATION"))
    assert unsigned.status_code == 403

    # The host texts NEW STATION: the signature (over the public URL) holds.
    answer = phone.text(HOST_PHONE, "NEW STATION")
    assert answer.status_code == 200 and "<Response></Response>" in answer.text
    reply = "\n".join(_replies(fake, HOST_PHONE))
    tv = re.search(re.escape(public) + r"/tv/[A-Za-z0-9_-]+", reply)
    code = re.search(r"JOIN ([A-Z0-9]{4,6}) ", reply)
    assert tv and code, reply
    assert "127.0.0.1" not in reply
    sent = fake.messages[-1]
    assert sent["from"] == NUMBER and sent["to"] == HOST_PHONE
    assert sent["status_callback"] == f"{public}/sms/twilio/status"

    # The TV link opens through the public address, on the lobby with the code.
    page = client.get(tv.group(0).removeprefix(public))
    assert page.status_code == 200 and code.group(1) in page.text

    # A player joins by text; the reply reaches the fake Twilio too.
    assert phone.text(PLAYER_PHONE, f"JOIN {code.group(1)} Ana").status_code == 200
    assert _replies(fake, PLAYER_PHONE)
    # Twilio's delivery report for the host's text, signed the same way.
    report = {"MessageSid": sent["sid"], "MessageStatus": "delivered", "To": HOST_PHONE}
    assert phone.post("/sms/twilio/status", report).status_code == 204
    assert phone.post("/sms/twilio/status", report, url=local + "/status").status_code == 403

    time.sleep(0.3)  # anything the forged texts had set off would have gone out by now
    assert fake.to(FORGED_PHONE) == []


def test_sms_on_a_server_behind_a_tunnel(serve: Any) -> None:
    public = f"https://{TUNNEL_HOST}"
    with FakeTwilio() as fake:
        served = serve(public, fake.base_url)
        tunnel = Tunnel(TUNNEL_HOST, served.port)
        try:
            with tunnel.client() as client:
                _play_the_set_up(served, fake, client, public)
        finally:
            tunnel.close()
    # Everything came through the tunnel, with the headers a tunnel sets.
    assert tunnel.seen and all(h["X-Forwarded-Proto"] == "https" for _, _, h in tunnel.seen)
    assert all(h["Host"] == TUNNEL_HOST for _, _, h in tunnel.seen)


CADDY = shutil.which("caddy")
ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(CADDY is None and not os.environ.get("CI"), reason="caddy is not installed")
def test_sms_on_a_server_with_a_domain_behind_caddy(serve: Any, tmp_path: Path) -> None:
    assert CADDY is not None, "CI needs caddy (apt-get install caddy)"
    public = f"https://{DOMAIN}"
    https_port, http_port = _free_port(), _free_port()
    with FakeTwilio() as fake:
        served = serve(public, fake.base_url)
        caddyfile = tmp_path / "Caddyfile"
        caddyfile.write_text(_caddyfile(served.port, http_port, https_port, tmp_path / "caddy"))
        env = {**os.environ, "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "xdg")}
        caddy = subprocess.Popen(
            [CADDY, "run", "--config", str(caddyfile), "--adapter", "caddyfile"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        transport = httpx.HTTPTransport(verify=False, retries=0)
        try:
            with httpx.Client(
                base_url=f"https://127.0.0.1:{https_port}",
                headers={"Host": DOMAIN},
                transport=_Sni(transport, DOMAIN),
                timeout=30,
            ) as client:
                deadline = time.monotonic() + 30
                while True:
                    try:
                        if client.get("/healthz").status_code == 200:
                            break
                    except httpx.TransportError:
                        pass
                    assert caddy.poll() is None and time.monotonic() < deadline, (
                        caddy.stderr.read() if caddy.stderr and caddy.poll() is not None else ""
                    )
                    time.sleep(0.1)
                assert client.get("/metrics").status_code == 404  # kept private
                _play_the_set_up(served, fake, client, public)
        finally:
            caddy.terminate()
            caddy.wait(15)
            if caddy.stderr is not None:
                caddy.stderr.close()


def _caddyfile(port: int, http_port: int, https_port: int, storage: Path) -> str:
    """deploy/Caddyfile as docs/hosts.md has a host use it (their domain, `serve`
    on its port), with Caddy's own CA instead of Let's Encrypt (no network in
    the tests) and unprivileged ports."""
    text = (ROOT / "deploy" / "Caddyfile").read_text()
    upstreams = re.search(r"^\s*to (127\.0\.0\.1:\d+ ?)+$", text, re.M)
    site = f"\n{DOMAIN} {{\n"
    assert upstreams and site in text, "deploy/Caddyfile changed: update this test"
    # One `serve`, as on a one-process server: the file's second upstream
    # stays in, on a port where nothing listens (the docs say it gets nothing).
    text = text.replace(upstreams.group(0), f"\tto 127.0.0.1:{port} 127.0.0.1:{_free_port()}")
    text = text.replace(site, site + "\ttls internal\n")
    options = (
        "{\n\tadmin off\n"
        f"\thttp_port {http_port}\n\thttps_port {https_port}\n"
        f"\tskip_install_trust\n\tstorage file_system {storage}\n}}\n"
    )
    return options + text


class _Sni(httpx.BaseTransport):
    """Connect to the loopback, but say the domain in TLS (SNI), as a phone
    that resolved the domain to this server would."""

    def __init__(self, inner: httpx.HTTPTransport, name: str) -> None:
        self.inner = inner
        self.name = name

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        request.extensions = {**request.extensions, "sni_hostname": self.name}
        return self.inner.handle_request(request)

    def close(self) -> None:
        self.inner.close()
