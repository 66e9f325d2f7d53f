"""The real `muldvarp serve` with a `REDIS_URL` it cannot use.

A malformed URL stops it at start with one line naming the setting (before,
a traceback from deep in redis-py). A Redis that does not answer leaves it
serving with `/healthz` at 503, naming the store only, while the scheduler's
candidate tries for the lease at doubling waits, a warning each (before, one
every second, forever), and says "standby" only once Redis has answered."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from datetime import datetime
from itertools import pairwise
from pathlib import Path

import httpx
import pytest

from tests.scale_workers import Worker, worker_env

pytestmark = pytest.mark.store

PASSWORD = "s3cret-pw-42"


def test_a_redis_url_with_a_bad_port_is_one_line_without_a_traceback(tmp_path: Path) -> None:
    env = worker_env(f"redis://:{PASSWORD}@127.0.0.1:notaport/0", "t:")
    out = subprocess.run(
        [sys.executable, "-m", "bots.cli", "serve"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert out.returncode == 2, out.stderr
    said = out.stdout + out.stderr
    assert "Traceback" not in said and PASSWORD not in said
    problems = [line for line in said.splitlines() if "REDIS_URL" in line]
    assert problems == [
        "  - REDIS_URL: the port must be a number from 1 to 65535 (redis://host:6379/0)"
    ]


def _stamp(line: str) -> float:
    return datetime.strptime(line[:23], "%Y-%m-%d %H:%M:%S,%f").timestamp()


def test_a_redis_nobody_answers_is_503_and_retried_at_growing_waits(tmp_path: Path) -> None:
    with socket.socket() as held:  # a port nobody listens on, for the whole test
        held.bind(("127.0.0.1", 0))
        port = held.getsockname()[1]
        env = worker_env(f"redis://:{PASSWORD}@127.0.0.1:{port}/0", "t:")
        worker = Worker("down", env, tmp_path)
        try:
            deadline = time.monotonic() + 30
            health: httpx.Response | None = None
            while time.monotonic() < deadline and worker.proc.poll() is None:
                try:
                    health = httpx.get(worker.url + "/healthz", timeout=5)
                    break
                except httpx.TransportError:
                    time.sleep(0.1)
            assert health is not None, worker.lines
            time.sleep(9)  # tries at about 0, 1, 3 and 7 s
            again = httpx.get(worker.url + "/healthz", timeout=5)
        finally:
            worker.stop()
    lines = worker.lines
    assert health.status_code == 503 and again.status_code == 503
    assert health.json() == {"ok": False, "store": "redis", "error": "store down"}
    tries = [line for line in lines if "taking the lease failed" in line]
    assert 3 <= len(tries) <= 5, lines  # one a second would be nine or ten
    gaps = [_stamp(b) - _stamp(a) for a, b in pairwise(tries)]
    assert all(later > earlier * 1.5 for earlier, later in pairwise(gaps))
    assert re.search(r"trying again in 4 s", "\n".join(tries)), tries
    assert not any(line.startswith("standby") for line in lines), lines
    said = "\n".join(lines)
    assert "Traceback" not in said and PASSWORD not in said
    assert sum("store: not answering" in line for line in lines) == 1  # once, not per probe


@pytest.mark.telegram
def test_with_a_channel_on_the_store_being_away_is_said_once_without_a_traceback(
    tmp_path: Path,
) -> None:
    """Telegram by long polling (its outbox delivered from Redis) and a Redis
    nobody answers: the delivery says so once, not a traceback every second."""
    from tests.fake_telegram import TOKEN, FakeBotApi
    from tests.rate_helpers import fake_in_thread

    with socket.socket() as held, fake_in_thread(FakeBotApi()) as api:
        held.bind(("127.0.0.1", 0))
        env = worker_env(
            f"redis://127.0.0.1:{held.getsockname()[1]}/0",
            "t:",
            TELEGRAM_BOT_TOKEN=TOKEN,
            TELEGRAM_API_BASE_URL=api.base_url,
        )
        worker = Worker("away", env, tmp_path)
        try:
            deadline = time.monotonic() + 30
            while not any("trying again in 2 s" in line for line in worker.lines):
                assert time.monotonic() < deadline and worker.proc.poll() is None, worker.lines
                time.sleep(0.1)
            time.sleep(4)  # four more of the delivery's looks
        finally:
            worker.stop()
    said = [line for line in worker.lines if "delivery" in line]
    assert len(said) == 1 and "the store does not answer" in said[0], worker.lines
    assert not any("Traceback" in line for line in worker.lines), worker.lines
