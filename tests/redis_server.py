"""The tests' own Redis: started by the tests, never the machine's by accident.

A developer's machine often runs a Redis of its own on 127.0.0.1:6379, holding
someone's data; tests that wrote to it (even under a prefix of their own) could
fill or slow it, and with `REDIS_URL` set in the shell (as the README suggests
for `muldvarp serve`) they would follow the product's setting. So the tests use:

- the Redis named by `MULDVARP_TEST_REDIS_URL`, when someone gives one for tests
  explicitly (a CI service container, say); else
- a throw-away `redis-server` this test process starts on a free loopback port,
  in a temporary folder, keeping nothing on disk, and stops when it exits. Child
  processes (the packaging test's compiled run, the scale test's workers) are
  handed its URL through `MULDVARP_TEST_REDIS_URL`, so they share it.

Without `redis-server` on the PATH the Redis tests skip locally and FAIL when
`CI` is set (`.ci/run` installs Debian's redis-server).
"""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import subprocess
import tempfile
import time

import pytest

ENV = "MULDVARP_TEST_REDIS_URL"

_started: dict[str, object] = {}


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _missing(why: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"CI needs a Redis for the tests: {why}")
    pytest.skip(f"{why} (set CI=1 to make this a failure)")


def _ping(url: str) -> bool:
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=1)
    try:
        return bool(client.ping())
    except redis.RedisError:
        return False
    finally:
        client.close()


def start_server(*extra: str) -> tuple[str, subprocess.Popen[bytes], str]:
    """A fresh `redis-server` on a free loopback port: (url, process, folder).
    The caller stops it (`stop_server`)."""
    binary = shutil.which("redis-server")
    if binary is None:
        _missing("redis-server is not installed")
        raise AssertionError("unreachable")
    folder = tempfile.mkdtemp(prefix="muldvarp-test-redis-")
    for _ in range(5):
        port = _free_port()
        proc = subprocess.Popen(
            [binary, "--bind", "127.0.0.1", "--port", str(port), "--save", "",
             "--appendonly", "no", "--dir", folder, "--protected-mode", "yes", *extra],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        url = f"redis://127.0.0.1:{port}/0"
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and proc.poll() is None:
            if _ping(url):
                return url, proc, folder
            time.sleep(0.05)
        proc.kill()
        proc.wait()
    shutil.rmtree(folder, ignore_errors=True)
    _missing("the tests' redis-server did not start")
    raise AssertionError("unreachable")


def stop_server(proc: subprocess.Popen[bytes], folder: str) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    shutil.rmtree(folder, ignore_errors=True)


def test_redis_url() -> str:
    """The URL of the tests' Redis (given, or started once for this process)."""
    given = os.environ.get(ENV)
    if given:
        if not _ping(given):
            _missing(f"no Redis answers at {ENV}={given}")
        return given
    url = _started.get("url")
    if isinstance(url, str):
        return url
    url, proc, folder = start_server()
    _started.update(url=url, proc=proc, folder=folder)
    atexit.register(stop_server, proc, folder)
    os.environ[ENV] = url  # children of this process share it
    return url


def started_here() -> bool:
    """Whether this process started the tests' Redis (else it was given)."""
    return "proc" in _started


test_redis_url.__test__ = False  # type: ignore[attr-defined]  # a helper, not a test
