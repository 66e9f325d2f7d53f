"""Request body limits on the real `muldvarp serve` (issue #35, item 1).

An unsigned POST of a 400,000-field form to `/sms/twilio` used to be read whole,
parsed and validated twice on the event loop before its 403: about 6 s in which
`/healthz` (and every webhook) waited. Here `serve` runs in its own process
(embedded store, SMS against the fake Twilio, settings from `.env`), the huge
form goes to it over a raw socket, and `/healthz`, asked meanwhile, must answer
at once while the form gets a prompt 413. A chunked body is counted as it
arrives; a genuine signed text still works.
"""

from __future__ import annotations

import http.client
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.fake_twilio import FakeTwilio, inbound
from tests.test_setup_sms_server import (
    NUMBER,
    PLAYER_PHONE,
    _env_file,
    _free_port,
    spawn_serve,
    stop_serve,
    wait_healthy,
)

pytestmark = pytest.mark.sms

PUBLIC = "https://muldvarp.example.org"
HUGE_FORM = "&".join(f"f{i}=v{i}" for i in range(400_000)).encode()  # about 6 MB


@pytest.fixture
def served(tmp_path: Path) -> Iterator[int]:
    """`muldvarp serve` on a free loopback port, with SMS on the fake Twilio."""
    with FakeTwilio() as fake:
        port = _free_port()
        _env_file(tmp_path, PUBLIC, port, fake.base_url)
        proc = spawn_serve(tmp_path)
        out: list[str] = []
        threading.Thread(target=lambda: out.extend(proc.stdout or ()), daemon=True).start()
        try:
            wait_healthy(proc, port, lambda: "".join(out))
            yield port
        finally:
            stop_serve(proc)
        assert "Traceback" not in "".join(out), "".join(out)


def post_raw(
    port: int, path: str, head: dict[str, str], chunks: Iterator[bytes]
) -> tuple[int, float]:
    """POST over a raw socket: the body is sent by a thread of its own (the
    server may answer and close before taking it all); returns the status and
    the seconds from the end of the headers to the answer's first line."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    try:
        lines = [f"POST {path} HTTP/1.1", "Host: muldvarp.example.org"]
        lines += [f"{k}: {v}" for k, v in head.items()]
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        started = time.monotonic()

        def send_body() -> None:
            try:
                for chunk in chunks:
                    sock.sendall(chunk)
            except OSError:
                pass  # answered and closed early: the point

        sender = threading.Thread(target=send_body, daemon=True)
        sender.start()
        answer = b""
        while b"\r\n" not in answer:
            got = sock.recv(4096)
            assert got, f"closed without an answer: {answer!r}"
            answer += got
        elapsed = time.monotonic() - started
        sender.join(30)
        return int(answer.split(b" ", 2)[1]), elapsed
    finally:
        sock.close()


def post_into(
    result: list[tuple[int, float]], port: int, path: str, head: dict[str, str], body: list[bytes]
) -> None:
    result.append(post_raw(port, path, head, iter(body)))


def healthz(port: int) -> int:
    """GET /healthz on a connection of its own (nothing client-side to set up
    that could be mistaken for the server's time)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", "/healthz")
        answer = conn.getresponse()
        answer.read()
        return answer.status
    finally:
        conn.close()


def chunked(chunk: bytes, n: int) -> Iterator[bytes]:
    """`n` times `chunk` in HTTP/1.1 chunked encoding, a little at a time."""
    for _ in range(n):
        yield b"%x\r\n%s\r\n" % (len(chunk), chunk)
        time.sleep(0.001)
    yield b"0\r\n\r\n"


def test_a_huge_unsigned_form_is_refused_at_once_and_holds_nothing_up(served: int) -> None:
    port = served
    for path in ("/sms/twilio", "/sms/twilio/status"):
        result: list[tuple[int, float]] = []
        head = {
            "Content-Type": "application/x-www-form-urlencoded",
            "Content-Length": str(len(HUGE_FORM)),
            "X-Twilio-Signature": "bogus",
        }
        big = threading.Thread(target=post_into, args=(result, port, path, head, [HUGE_FORM]))
        big.start()
        time.sleep(0.3)  # the form is on its way (or parsed, without a limit)
        slowest = 0.0
        for _ in range(5):
            started = time.monotonic()
            assert healthz(port) == 200
            slowest = max(slowest, time.monotonic() - started)
            time.sleep(0.1)
        big.join(60)
        assert slowest < 0.5, f"/healthz took {slowest:.2f} s while {path} got a huge form"
        assert result, "the huge form got no answer"
        status, seconds = result[0]
        assert status == 413 and seconds < 0.5, (path, status, seconds)


def test_a_chunked_body_is_counted_as_it_arrives(served: int) -> None:
    port = served
    chunk = b"x" * 8192
    # 64 KiB for Twilio, 256 KiB for Telegram's path, 64 KiB elsewhere: each cut short
    for path, limit in (
        ("/sms/twilio", 64 * 1024),
        ("/telegram/webhook", 256 * 1024),
        ("/healthz", 64 * 1024),
    ):
        head = {"Transfer-Encoding": "chunked", "X-Twilio-Signature": "bogus"}
        status, _ = post_raw(port, path, head, chunked(chunk, 2 * limit // len(chunk)))
        assert status == 413, path


def test_every_route_has_a_limit_and_a_signed_text_still_goes_through(served: int) -> None:
    port = served
    base = f"http://127.0.0.1:{port}"
    with httpx.Client(base_url=base, timeout=30) as client:
        for path, size in (
            ("/sms/twilio/status", 64 * 1024 + 1),
            ("/telegram/webhook", 256 * 1024 + 1),
            ("/internal/games", 64 * 1024 + 1),
            ("/tv/anything", 64 * 1024 + 1),
            ("/nowhere", 1024 * 1024),
        ):
            answer = client.post(path, content=b"x" * size)
            assert answer.status_code == 413, (path, answer.status_code)
            assert answer.text == "request body too large"
        # just within Twilio's limit, unsigned: read, and refused for the signature
        answer = client.post("/sms/twilio", content=b"x" * (64 * 1024))
        assert answer.status_code == 403
        body, headers = inbound(f"{PUBLIC}/sms/twilio", "SM" + "1" * 32, PLAYER_PHONE, NUMBER, "HI")
        answer = client.post("/sms/twilio", content=body, headers=headers)
        assert answer.status_code == 200 and "<Response>" in answer.text
