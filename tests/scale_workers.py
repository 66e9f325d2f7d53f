"""Worker processes for tests/test_scale.py and bench/knee.py: `muldvarp serve`
as a child process, its environment, its printed lines kept, its readiness and
its CPU time."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import aiohttp

from tests.fake_twilio import ACCOUNT_SID, AUTH_TOKEN

ROOT = Path(__file__).resolve().parent.parent  # the checkout the workers run from


def worker_env(redis_url: str, prefix: str, **more: str) -> dict[str, str]:
    """A worker's whole environment: this process's, less every channel and
    project setting it may carry, then Redis at `redis_url` under `prefix`,
    and `more` (its channels)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("TELEGRAM_", "TWILIO_", "PUBLIC_BASE_URL", "MULDVARP_", "SMS_"))
    }
    env.update(
        REDIS_URL=redis_url, MULDVARP_PREFIX=prefix, LOG_LEVEL="WARNING", PYTHONPATH=str(ROOT)
    )
    env.update(more)
    return env


def sms_worker_env(
    redis_url: str, prefix: str, twilio_api: str, *, public: str, sender: str, id_key: str,
    **more: str,
) -> dict[str, str]:  # fmt: skip
    """`worker_env` with SMS through the fake Twilio at `twilio_api` (no pace
    to keep) as `sender`, signed for `public`, and `more` (a Telegram bot, say)."""
    return worker_env(
        redis_url,
        prefix,
        PUBLIC_BASE_URL=public,
        TWILIO_ACCOUNT_SID=ACCOUNT_SID,
        TWILIO_AUTH_TOKEN=AUTH_TOKEN,
        TWILIO_FROM=sender,
        TWILIO_API_BASE_URL=twilio_api,
        SMS_RATE="0",
        SMS_ID_KEY=id_key,
        **more,
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a live process (Linux), for the printed figures."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Worker:
    """One `muldvarp serve` process and the lines it printed. `env` is its whole
    environment; it gets a data directory of its own under `cwd`. `python` is
    the interpreter it runs on (bench/knee.py --python compares one with
    another under the same driver)."""

    def __init__(
        self, name: str, env: dict[str, str], cwd: Path, python: str = sys.executable
    ) -> None:
        self.name = name
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.lines: list[str] = []
        cmd = [python, "-m", "bots.cli", "serve", "--port", str(self.port)]
        env = {**env, "DATA_DIR": str(cwd / f"{name}-data")}  # nothing shared but Redis
        self.proc = subprocess.Popen(
            cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip())

    def token(self) -> str | None:
        """The lease token of this worker's last `leader` line."""
        for line in reversed(self.lines):
            head, _, tail = line.partition(" ")
            if head == "leader":
                return dict(p.split("=", 1) for p in tail.split() if "=" in p).get("token")
        return None

    async def ready(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        async with aiohttp.ClientSession() as client:
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    raise AssertionError(f"{self.name} exited:\n" + "\n".join(self.lines))
                try:
                    async with client.get(self.url + "/healthz") as r:
                        if r.status == 200:
                            return
                except aiohttp.ClientError:
                    pass
                await asyncio.sleep(0.1)
        raise AssertionError(f"{self.name} never became healthy:\n" + "\n".join(self.lines))

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(3)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.proc.wait()
        self._reader.join(5)
        if self.proc.stdout is not None:
            self.proc.stdout.close()
