"""`muldvarp serve` stops at once with TVs watching.

A TV page keeps an event stream open. Without `bots.streams.EndStreams`,
uvicorn waited its whole grace time (10 s) for each open stream at SIGTERM,
then cancelled it with a traceback in the log: every restart behind a TV cost
ten seconds and a screenful of log. Here the real `serve` (embedded store,
settings from `.env`) hosts a game by SMS through a tunnel, as in
tests/test_setup_sms_server.py, two TVs open its event stream, and SIGTERM
must end the process within two seconds, with the streams ended cleanly and
nothing but INFO lines in the log.
"""

from __future__ import annotations

import re
import signal
import tempfile
import threading
import time
from pathlib import Path

import httpx
import pytest

from tests.fake_twilio import FakeTwilio
from tests.test_setup_sms_server import (
    HOST_PHONE,
    TUNNEL_HOST,
    Phone,
    Tunnel,
    _env_file,
    _free_port,
    _replies,
    spawn_serve,
    wait_healthy,
)

pytestmark = pytest.mark.statuspage


def test_serve_stops_at_once_with_tvs_watching() -> None:
    public = f"https://{TUNNEL_HOST}"
    with FakeTwilio() as fake, tempfile.TemporaryDirectory() as folder:
        port = _free_port()
        _env_file(Path(folder), public, port, fake.base_url)
        proc = spawn_serve(folder)
        out: list[str] = []
        assert proc.stdout is not None
        reader = threading.Thread(target=lambda: out.extend(proc.stdout or ()), daemon=True)
        reader.start()
        try:
            wait_healthy(proc, port, lambda: "".join(out))
            tunnel = Tunnel(TUNNEL_HOST, port)
            try:
                with tunnel.client() as client:
                    assert Phone(client, public).text(HOST_PHONE, "NEW STATION").status_code == 200
                    reply = "\n".join(_replies(fake, HOST_PHONE))
            finally:
                tunnel.close()
            found = re.search(r"/tv/([A-Za-z0-9_-]+)", reply)
            assert found, reply
            events = f"http://127.0.0.1:{port}/tv/{found.group(1)}/events"
            ended: list[str] = []
            opened = threading.Barrier(3)

            def watch() -> None:
                with httpx.stream("GET", events, timeout=30) as stream:
                    assert stream.status_code == 200
                    chunks = stream.iter_bytes()
                    next(chunks)  # the first screen: the stream is open
                    opened.wait(10)
                    for _ in chunks:
                        pass
                ended.append("clean")  # the body ended; no error

            watchers = [threading.Thread(target=watch, daemon=True) for _ in range(2)]
            for w in watchers:
                w.start()
            opened.wait(10)
            asked = time.monotonic()
            proc.send_signal(signal.SIGTERM)
            proc.wait(20)
            took = time.monotonic() - asked
            for w in watchers:
                w.join(5)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(5)
        reader.join(5)
        proc.stdout.close()
        log = "".join(out)
        assert took < 2.0, (took, log)
        assert ended == ["clean", "clean"], log
        assert "Traceback" not in log and "CancelledError" not in log, log
        assert "Application shutdown complete" in log
