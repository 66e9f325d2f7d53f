"""Scale-out and failover: two `muldvarp serve` workers on one Redis.

Two real worker processes (uvicorn, the app, a scheduler candidate each) share
one Redis under a key prefix of this test's own. Many Station games run at once,
each driven by a client task that reads the legal actions and submits random
ones, alternating between the workers; the games have short phase timers, so
the scheduler leader ends phases by deadline while players act. Mid-run the
worker holding the scheduler lease is killed with SIGKILL. The client treats an
input that got no answer as unacknowledged and redelivers it, with the same
idempotency key, to the surviving worker (what Telegram and Twilio do).

Checked at the end, from Redis: every acknowledged input is in its game's log
exactly once, every log replays to its snapshot, every game finished, and the
survivor took over the scheduler lease.

The games are driven through the internal authenticated routes
(`bots.internal`, enabled by MULDVARP_INTERNAL_TOKEN), which call the same
`GameService.submit` as the Telegram and SMS webhooks, rather than through the
signed channel webhooks: those need the fake Bot API / Twilio servers and
per-channel identities, which would test the adapters rather than the scaling.
"""

from __future__ import annotations

import asyncio
import os
import random
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.store_helpers import drop_prefix, redis_url_or_fail, run, unique_prefix

pytestmark = pytest.mark.store

ROOT = Path(__file__).resolve().parent.parent
GAMES = int(os.environ.get("MULDVARP_SCALE_GAMES", "60"))
PLAYERS = 5
HOST = "int:host"
OPTIONS = {
    "mission_seconds": 3.0,
    "discussion_seconds": 0.5,
    "vote_seconds": 3.0,
    "reminder_before": 1.0,
}
SKIP_KINDS = {"pause", "end", "leave", "kick", "set_option", "set_language"}
BUDGET = 90.0  # seconds: the whole run must finish well inside this


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Worker:
    """One `muldvarp serve` process and the lines it printed."""

    def __init__(self, name: str, port: int, env: dict[str, str], cwd: Path) -> None:
        self.name = name
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.lines: list[str] = []
        cmd = [sys.executable, "-m", "bots.cli", "serve", "--port", str(port)]
        self.proc = subprocess.Popen(
            cmd,
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip())

    def said(self, word: str) -> bool:
        return any(line.split(" ", 1)[0] == word for line in self.lines)

    def wait_ready(self, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"{self.name} exited:\n" + "\n".join(self.lines))
            try:
                if httpx.get(self.url + "/healthz", timeout=1.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise AssertionError(f"{self.name} never became healthy:\n" + "\n".join(self.lines))

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.proc.wait()
        self._reader.join(5)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[dict[str, Any]]:
    url = redis_url_or_fail()
    prefix = unique_prefix()
    token = secrets.token_hex(16)
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("TELEGRAM_", "TWILIO_", "PUBLIC_BASE_URL", "MULDVARP_", "SMS_"))
    }
    env.update(
        REDIS_URL=url,
        MULDVARP_PREFIX=prefix,
        MULDVARP_INTERNAL_TOKEN=token,
        DATA_DIR=str(tmp_path / "data"),
        LOG_LEVEL="WARNING",
        PYTHONPATH=str(ROOT),
    )
    workers: list[Worker] = []
    try:
        first = Worker("w1", free_port(), env, tmp_path)
        workers.append(first)
        first.wait_ready()
        deadline = time.monotonic() + 10
        while not first.said("leader") and time.monotonic() < deadline:
            time.sleep(0.05)
        second = Worker("w2", free_port(), env, tmp_path)
        workers.append(second)
        second.wait_ready()
        yield {"url": url, "prefix": prefix, "token": token, "workers": workers}
    finally:
        for w in workers:
            w.stop()
        run(drop_prefix(url, prefix))


class Driver:
    """The clients of many games, spread over the workers, redelivering on failure."""

    def __init__(self, workers: list[Worker], token: str) -> None:
        self.workers = workers
        self.alive = list(workers)
        self.headers = {"Authorization": f"Bearer {token}"}
        self.acked: dict[str, list[str]] = {}  # game id -> acknowledged keys
        self.acks = 0
        self.redelivered = 0
        self.client = httpx.AsyncClient(
            timeout=15.0, limits=httpx.Limits(max_connections=200), headers=self.headers
        )

    async def call(self, n: int, method: str, path: str, body: Any = None) -> httpx.Response:
        """Send to worker n % alive, falling over to the others when one is gone."""
        for attempt in range(20):
            worker = self.alive[(n + attempt) % len(self.alive)]
            try:
                r = await self.client.request(method, worker.url + path, json=body)
            except httpx.TransportError:
                if worker.proc.poll() is not None and worker in self.alive:
                    self.alive.remove(worker)
                if method == "POST":
                    self.redelivered += 1
                await asyncio.sleep(0.05)
                continue
            if r.status_code >= 500:
                await asyncio.sleep(0.05)
                continue
            return r
        raise AssertionError(f"{method} {path}: no worker answered")

    async def submit(self, game_id: str, n: int, key: str, step: dict[str, Any]) -> dict[str, Any]:
        r = await self.call(
            n, "POST", f"/internal/games/{game_id}/inputs", {"key": key, "step": step}
        )
        assert r.status_code == 200, r.text
        out: dict[str, Any] = r.json()
        if out["status"] in ("accepted", "duplicate"):
            self.acked[game_id].append(key)
            self.acks += 1
        return out

    async def play(self, i: int) -> str:
        rng = random.Random(i)
        r = await self.call(
            i,
            "POST",
            "/internal/games",
            {
                "kind": "station",
                "host": HOST,
                "options": OPTIONS,
                "seed": f"s{i}",
                "key": f"new:{i}",
            },
        )
        assert r.status_code == 201, r.text
        game_id: str = r.json()["id"]
        self.acked[game_id] = []
        n = 0
        for p in range(PLAYERS):
            await self.submit(
                game_id, i + n, f"{game_id}:{n}", {"as": f"int:p{p}", "do": "join", "name": f"P{p}"}
            )
            n += 1
        await self.submit(game_id, i + n, f"{game_id}:{n}", {"as": HOST, "do": "start"})
        n += 1
        started = time.monotonic()
        state: dict[str, Any] | None = None
        while time.monotonic() - started < BUDGET:
            if state is None:
                state = (await self.call(i + n, "GET", f"/internal/games/{game_id}")).json()
            if state["over"]:
                return game_id
            choices = [
                (player, spec)
                for player, specs in state["legal"].items()
                for spec in specs
                if spec["do"] not in SKIP_KINDS
                and not (spec["do"] == "advance_early" and rng.random() < 0.7)
            ]
            if not choices:
                await asyncio.sleep(0.2)  # waiting for a deadline: the scheduler's turn
                state = None
                continue
            player, spec = rng.choice(choices)
            step = {"as": player, "do": spec["do"], "phase": spec["phase"]}
            for name, options in spec["fields"].items():
                step[name] = rng.choice(options)
            state = (await self.submit(game_id, i + n, f"{game_id}:{n}", step))["state"]
            n += 1
        raise AssertionError(f"{game_id} did not finish in {BUDGET} s")


async def scenario(cluster: dict[str, Any]) -> dict[str, Any]:
    workers: list[Worker] = cluster["workers"]
    leader = next(w for w in workers if w.said("leader"))
    survivor = next(w for w in workers if w is not leader)
    driver = Driver(workers, cluster["token"])
    started = time.monotonic()
    tasks = [asyncio.create_task(driver.play(i)) for i in range(GAMES)]
    while driver.acks < GAMES * 15 and not all(t.done() for t in tasks):
        await asyncio.sleep(0.05)
    finished_before = sum(t.done() for t in tasks)
    leader.proc.send_signal(signal.SIGKILL)
    killed_at = time.monotonic()
    game_ids = await asyncio.gather(*tasks)
    elapsed = time.monotonic() - started
    await driver.client.aclose()
    wait_until = killed_at + 10.0  # lease TTL 5 s + a standby's 1 s retry, with room
    while not survivor.said("leader") and time.monotonic() < wait_until:
        await asyncio.sleep(0.1)
    took_over = survivor.said("leader")
    return {
        "game_ids": game_ids,
        "acked": driver.acked,
        "acks": driver.acks,
        "redelivered": driver.redelivered,
        "finished_before_kill": finished_before,
        "killed_after": killed_at - started,
        "elapsed": elapsed,
        "survivor_leads": took_over,
        "survivor": survivor,
    }


async def check_store(url: str, prefix: str, result: dict[str, Any]) -> dict[str, int]:
    from adapters.store.redis_store import RedisStore
    from bots.service import GameService

    store = RedisStore.from_url(url, prefix=prefix)
    service = GameService(store)
    counts = {"games": 0, "inputs": 0, "deadlines": 0}
    try:
        for game_id in result["game_ids"]:
            game = await service.verify(game_id)  # the log replays to the snapshot
            assert game.over, game_id
            keys = [e.get("key") for e in await store.log(game_id)]
            logged = [k for k in keys if k is not None]
            assert len(logged) == len(set(logged)), f"{game_id}: an input applied twice"
            missing = set(result["acked"][game_id]) - set(logged)
            assert not missing, f"{game_id}: acknowledged but not stored: {sorted(missing)}"
            counts["games"] += 1
            counts["inputs"] += len(keys)
            counts["deadlines"] += sum(1 for k in logged if k.startswith("deadline:"))
    finally:
        await store.close()
    return counts


def test_two_workers_one_killed(cluster: dict[str, Any]) -> None:
    result = asyncio.run(scenario(cluster))
    assert result["finished_before_kill"] < GAMES, "the kill came after every game had ended"
    counts = run(check_store(cluster["url"], cluster["prefix"], result))
    assert counts["games"] == GAMES
    assert counts["deadlines"] > 0, "no phase ended by the scheduler's deadline"
    assert result["survivor_leads"], "the surviving worker never took the scheduler lease:\n" + (
        "\n".join(result["survivor"].lines)
    )
    print(
        f"\nscale: {GAMES} games, {counts['inputs']} logged inputs "
        f"({result['acks']} acknowledged, {counts['deadlines']} deadlines), "
        f"{result['redelivered']} redelivered after the kill at "
        f"{result['killed_after']:.1f} s, {result['elapsed']:.1f} s in all"
    )
