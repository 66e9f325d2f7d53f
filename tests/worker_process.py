"""Delivery workers as processes of their own, for the outbox kill tests.

A worker script (tests/sms_outbox_worker.py, tests/telegram_outbox_worker.py)
takes its config as one JSON argument, prints `{"ready": CONSUMER}` once it
delivers, and runs until it is killed. `WorkerProcess` starts one, waits for
that line, and SIGKILLs it (no chance to ack, flush or say goodbye) or stops
it; `wait_for` polls a condition (plain or awaitable) with a deadline.

A worker's stderr goes to a file, never to a pipe nobody reads while it runs:
a worker that logs more than a pipe's buffer (64 KiB: a few dozen
tracebacks) would block on its next write and deliver nothing more, and the
test would time out without saying why. `said()` is that file's tail, which
`wait_for` adds to its timeout message (`about`)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from service.ports import GameStore

ROOT = Path(__file__).resolve().parents[1]

TAIL = 3000  # characters of a worker's stderr shown when a wait times out


class WorkerProcess:
    def __init__(self, script: str, cfg: dict[str, Any]) -> None:
        self.consumer = consumer = cfg["consumer"]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        # closed in stop(), after the test's last look at it
        self.errors = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, str(ROOT / "tests" / script), json.dumps(cfg)],
            stdout=subprocess.PIPE,
            stderr=self.errors,
            text=True,
            env=env,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert json.loads(line or "null") == {"ready": consumer}, line + self.said()

    def said(self) -> str:
        """The tail of what the worker wrote to stderr so far."""
        self.errors.seek(0)
        text = self.errors.read()
        return text[-TAIL:]

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self.errors.close()


def about(workers: Iterable[WorkerProcess], store: GameStore, channel: str) -> Callable[[], Any]:
    """For `wait_for`: the games still flagged ready (on Redis with their
    stream's length and who holds what, how long idle), then what each worker
    said on stderr and whether it runs."""

    async def text() -> str:
        ready = await store.outbox_ready(channel)
        parts = [f"games still ready: {ready}"]
        client = getattr(store, "client", None)
        stream = getattr(store, "_stream", None)
        if client is not None and stream is not None:
            for game_id in ready[:5]:
                key = stream(game_id, channel)
                summary = await client.xpending(key, "send")
                first = await client.xpending_range(key, "send", "-", "+", 1)
                idle = [(p["consumer"], p["time_since_delivered"]) for p in first]
                parts.append(
                    f"{game_id}: {await client.xlen(key)} in stream, pending by consumer "
                    f"{summary.get('consumers')}, the first's idle ms {idle}"
                )
        for w in workers:
            state = "running" if w.proc.poll() is None else f"exited {w.proc.returncode}"
            parts.append(f"--- worker {w.consumer} ({state}), stderr:\n{w.said() or '(nothing)'}")
        return "\n".join(parts)

    return text


async def wait_for(
    predicate: Any, timeout: float, what: str, about: Callable[[], Any] | None = None
) -> None:
    """Poll `predicate` until it holds; on timeout, fail with `what` and what
    `about` (sync or async) tells of the state."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        done = predicate()
        if not isinstance(done, bool):
            done = await done
        if done:
            return
        await asyncio.sleep(0.02)
    detail = ""
    if about is not None:
        found = about()
        if not isinstance(found, str):
            found = await found
        detail = "\n" + found
    raise AssertionError(f"timed out waiting for {what}{detail}")
