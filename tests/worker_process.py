"""Delivery workers as processes of their own, for the outbox kill tests.

A worker script (tests/sms_outbox_worker.py, tests/telegram_outbox_worker.py)
takes its config as one JSON argument, prints `{"ready": CONSUMER}` once it
delivers, and runs until it is killed. `WorkerProcess` starts one, waits for
that line, and SIGKILLs it (no chance to ack, flush or say goodbye) or stops
it; `wait_for` polls a condition (plain or awaitable) with a deadline."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


class WorkerProcess:
    def __init__(self, script: str, cfg: dict[str, Any]) -> None:
        consumer = cfg["consumer"]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.proc = subprocess.Popen(
            [sys.executable, str(ROOT / "tests" / script), json.dumps(cfg)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert json.loads(line) == {"ready": consumer}, line + self.proc.stderr.read()

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()


async def wait_for(predicate: Any, timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        done = predicate()
        if not isinstance(done, bool):
            done = await done
        if done:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")
