"""Real scheduler processes (`python -m bots.scheduler`) on a real Redis.

The games live in Redis (the stand-in ports of `scheduler.redis_ports`), so every
process sees the same state, and every deadline that takes effect is appended to
`{prefix}applied` inside the same transaction as the state change. Each test
asserts on that list: the right deadlines, each exactly once. Phases here last a
few real seconds; nothing sleeps for minutes.
"""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import redis
from redis.asyncio import Redis
from store_helpers import seated
from test_scheduler_lease import drop, redis_or_fail, unique_prefix

from gameflow.core import actions as A
from gameflow.core.codec import decode_game
from gameflow.core.engine import new_game
from gameflow.core.state import Game
from scheduler.redis_ports import RedisGames

pytestmark = pytest.mark.scheduler

ROOT = Path(__file__).resolve().parent.parent
PLAYERS = ("ana", "bo", "cy", "dag", "eli")


def live_game(game_id: str, now: float, seconds: float) -> Game:
    """A started Station game whose mission phase ends `seconds` after `now`."""
    options = {"mission_seconds": seconds, "auto_advance": False}
    game = new_game("station", game_id, "host", game_id, lang="en", options=options)
    return seated(game, PLAYERS, now, "host")


class Proc:
    """One scheduler process; its stdout lines are collected with arrival times."""

    def __init__(self, url: str, prefix: str, log: Path, *extra: str) -> None:
        self.err = log.open("w")
        self.p = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "bots.scheduler",
                "--redis",
                url,
                "--prefix",
                prefix,
                "--resync",
                "0.5",
                "--ports",
                "scheduler.redis_ports:from_env",
                *extra,
            ],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=self.err,
            text=True,
        )
        self.lines: list[tuple[float, str]] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.p.stdout is not None
        for line in self.p.stdout:
            self.lines.append((time.time(), line.strip()))

    @property
    def pid(self) -> int:
        return self.p.pid

    def first(self, word: str) -> float | None:
        return next((t for t, line in self.lines if line.split(" ")[0] == word), None)

    def wait_for(self, word: str, timeout: float = 30.0) -> float:
        end = time.time() + timeout
        while time.time() < end:
            seen = self.first(word)
            if seen is not None:
                return seen
            if self.p.poll() is not None:
                break
            time.sleep(0.02)
        raise AssertionError(f"no {word!r} from pid {self.pid}: {self.lines}")

    def close(self, sig: int = signal.SIGTERM) -> None:
        if self.p.poll() is None:
            self.p.send_signal(sig)
        try:
            self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        self.reader.join(timeout=5)
        assert self.p.stdout is not None
        self.p.stdout.close()
        self.err.close()


class Board:
    """The test's view of the shared Redis state."""

    def __init__(self, url: str, prefix: str) -> None:
        self.url = url
        self.prefix = prefix
        self.r = redis.Redis.from_url(url)

    def save(self, *games: Game) -> None:
        async def main() -> None:
            client = Redis.from_url(self.url)
            try:
                board = RedisGames(client, self.prefix)
                for game in games:
                    await board.save(game)
            finally:
                await client.aclose()

        asyncio.run(main())

    def applied(self) -> list[dict[str, Any]]:
        return [json.loads(x) for x in self.r.lrange(f"{self.prefix}applied", 0, -1)]

    def game(self, game_id: str) -> Game:
        text = self.r.get(f"{self.prefix}game:{game_id}")
        assert text is not None
        return decode_game(text)

    def wait_applied(self, count: int, timeout: float) -> list[dict[str, Any]]:
        end = time.time() + timeout
        while time.time() < end and len(self.applied()) < count:
            time.sleep(0.05)
        return self.applied()

    def close(self) -> None:
        self.r.close()
        drop(self.prefix)


@pytest.fixture
def board() -> Any:
    b = Board(redis_or_fail(), unique_prefix())
    yield b
    b.close()


def test_a_killed_scheduler_restarted_fires_the_missed_deadline_once(
    board: Board, tmp_path: Path
) -> None:
    now = time.time()
    board.save(live_game("k1", now, 5.0))
    deadline = now + 5.0
    first = Proc(board.url, board.prefix, tmp_path / "first.log", "--ttl-ms", "1000")
    try:
        armed = first.wait_for("armed")
        assert armed < deadline - 0.5, "the machine is too slow for this test's timing"
        first.close(signal.SIGKILL)  # no clean-up: the lease lapses by itself
    finally:
        first.close()
    time.sleep(max(0.0, deadline + 0.5 - time.time()))
    assert board.applied() == []  # nobody was running at the deadline
    assert board.game("k1").phase.seq == 1
    second = Proc(board.url, board.prefix, tmp_path / "second.log", "--ttl-ms", "1000")
    try:
        applied = board.wait_applied(1, timeout=30)
        assert [(a["game"], a["seq"], a["by"]) for a in applied] == [("k1", 1, f"pid{second.pid}")]
        time.sleep(1.5)  # resyncs and retries must not fire it again
        assert len(board.applied()) == 1
        game = board.game("k1")
        assert (game.phase.name, game.phase.seq) == ("discussion", 2)
    finally:
        second.close()
    assert second.first("stopped") is not None


@pytest.mark.parametrize("split_brain", [False, True], ids=["one-lease", "split-brain"])
def test_two_scheduler_processes_end_each_phase_once(
    board: Board, tmp_path: Path, split_brain: bool
) -> None:
    """With one lease only one process fires; with the lease defeated (each its own
    key, so both lead) both fire every deadline, and still each takes effect once."""
    now = time.time()
    games = [live_game(f"t{i}", now, 2.5 + 0.1 * i) for i in range(12)]
    board.save(*games)
    procs = [
        Proc(
            board.url,
            board.prefix,
            tmp_path / f"p{i}.log",
            "--ttl-ms",
            "2000",
            *(["--lease-key", f"{board.prefix}own{i}"] if split_brain else []),
        )
        for i in range(2)
    ]
    try:
        applied = board.wait_applied(12, timeout=30)
        time.sleep(1.5)
        applied = board.applied()
        assert sorted((a["game"], a["seq"]) for a in applied) == sorted((g.id, 1) for g in games)
        for g in games:
            assert board.game(g.id).phase.seq == 2
        leaders = [p for p in procs if p.first("leader") is not None]
        assert len(leaders) == (2 if split_brain else 1)
        if not split_brain:
            assert {a["by"] for a in applied} == {f"pid{leaders[0].pid}"}
    finally:
        for p in procs:
            p.close()


def test_a_standby_takes_over_within_ten_seconds(board: Board, tmp_path: Path) -> None:
    now = time.time()
    board.save(live_game("f1", now, 3.0))
    deadline = now + 3.0
    procs = [Proc(board.url, board.prefix, tmp_path / f"p{i}.log") for i in range(2)]
    try:  # the default TTL (5 s): the production setting
        end = time.time() + 10
        while time.time() < end and not any(p.first("armed") for p in procs):
            time.sleep(0.02)
        leader = next(p for p in procs if p.first("armed") is not None)
        standby = next(p for p in procs if p is not leader)
        killed = time.time()
        leader.close(signal.SIGKILL)
        assert board.applied() == []
        took_over = standby.wait_for("leader", timeout=12)
        applied = board.wait_applied(1, timeout=5)
        print(f"failover: standby led {took_over - killed:.2f} s after the kill")
        assert took_over - killed < 10.0, f"failover took {took_over - killed:.1f} s"
        assert [(a["game"], a["seq"], a["by"]) for a in applied] == [("f1", 1, f"pid{standby.pid}")]
        assert applied[0]["at"] >= deadline
    finally:
        for p in procs:
            p.close()


def test_the_runner_drives_the_real_store_and_service(board: Board, tmp_path: Path) -> None:
    """`--ports bots.scheduler:redis_service`: the deadline goes through
    `GameService.submit` with its key into the project's Redis store's log."""
    from adapters.store.redis_store import RedisStore
    from service.games import GameService

    async def setup() -> str:
        client = Redis.from_url(board.url, decode_responses=True)
        try:
            service = GameService(RedisStore(client, prefix=board.prefix))
            options = {"auto_advance": False, "mission_seconds": 2.0}
            created = await service.create_game(
                "station", "tg:host", lang="en", code=False, options=options
            )
            for p in PLAYERS:
                await service.submit(created.game.id, A.Join(p, None, p.title()))
            await service.submit(created.game.id, A.Start("tg:host"))
            return created.game.id
        finally:
            await client.aclose()

    async def result(game_id: str) -> tuple[Game | None, list[dict[str, Any]]]:
        client = Redis.from_url(board.url, decode_responses=True)
        try:
            store = RedisStore(client, prefix=board.prefix)
            return await store.load(game_id), await store.log(game_id)
        finally:
            await client.aclose()

    game_id = asyncio.run(setup())
    proc = Proc(
        board.url,
        board.prefix,
        tmp_path / "real.log",
        "--ports",
        "bots.scheduler:redis_service",
    )
    try:
        end = time.time() + 10
        while time.time() < end:
            game, log = asyncio.run(result(game_id))
            if game is not None and game.phase.seq > 1:
                break
            time.sleep(0.1)
        time.sleep(1.0)  # resyncs must not submit it again
        game, log = asyncio.run(result(game_id))
    finally:
        proc.close()
    assert game is not None and (game.phase.name, game.phase.seq) == ("discussion", 2)
    deadlines = [e for e in log if e.get("do") == "advance"]
    assert [(e["phase"], e["key"]) for e in deadlines] == [(1, f"deadline:{game_id}:1")]


def test_a_game_started_later_is_armed_through_the_wake_channel(
    board: Board, tmp_path: Path
) -> None:
    # resync once a minute: only the wake-up can arm the new game in time
    proc = Proc(board.url, board.prefix, tmp_path / "wake.log", "--resync", "60")
    try:
        proc.wait_for("armed")
        assert proc.lines[-1][1].startswith("armed games=0")
        now = time.time()
        board.save(live_game("w1", now, 1.5))
        applied = board.wait_applied(1, timeout=6)
        assert [(a["game"], a["seq"]) for a in applied] == [("w1", 1)]
        assert applied[0]["at"] - (now + 1.5) < 10.0  # long before the next resync
    finally:
        proc.close()


def test_a_leader_change_under_the_index_window_fires_each_deadline_once(
    board: Board, tmp_path: Path
) -> None:
    """The real store and service, two processes, the deadline index seen
    through a 1 s window (tests/index_ports.py): every game is armed only as
    its deadline comes near. The leader is killed midway; the standby takes
    over, and each deadline takes effect exactly once, none lost, the ones
    after the takeover on time."""
    from adapters.store.redis_store import RedisStore
    from scheduler.plan import next_instant
    from service.games import GameService

    async def setup(now: float) -> dict[str, float]:
        client = Redis.from_url(board.url, decode_responses=True)
        try:
            service = GameService(
                RedisStore(client, prefix=board.prefix), next_instant=next_instant
            )
            deadlines = {}
            for i in range(8):
                options = {"auto_advance": False, "mission_seconds": 3.0 + 0.8 * i}
                created = await service.create_game(
                    "station", "tg:host", lang="en", code=False, options=options
                )
                gid = created.game.id
                for p in PLAYERS:
                    await service.submit(gid, A.Join(f"{gid}{p}", None, p.title()))
                game = (await service.submit(gid, A.Start("tg:host"))).game
                deadlines[gid] = game.phase.deadline
            return deadlines
        finally:
            await client.aclose()

    async def logs(ids: list[str]) -> dict[str, list[dict[str, Any]]]:
        client = Redis.from_url(board.url, decode_responses=True)
        try:
            store = RedisStore(client, prefix=board.prefix)
            return {g: [e for e in await store.log(g) if e.get("do") == "advance"] for g in ids}
        finally:
            await client.aclose()

    extra = ("--ports", "tests.index_ports:narrow", "--resync", "0.25", "--ttl-ms", "1500")
    procs = [Proc(board.url, board.prefix, tmp_path / f"i{i}.log", *extra) for i in range(2)]
    try:
        end = time.time() + 10
        while time.time() < end and not any(p.first("armed") for p in procs):
            time.sleep(0.02)
        leader = next(p for p in procs if p.first("armed") is not None)
        standby = next(p for p in procs if p is not leader)
        deadlines = asyncio.run(setup(time.time()))
        assert leader.lines[-1][1].startswith("armed games=0")
        time.sleep(max(0.0, min(deadlines.values()) + 1.2 - time.time()))
        leader.close(signal.SIGKILL)
        killed = time.time()
        took_over = standby.wait_for("leader", timeout=10)
        end = time.time() + 20
        while time.time() < end:
            fired = asyncio.run(logs(list(deadlines)))
            if all(fired.values()):
                break
            time.sleep(0.1)
        time.sleep(1.0)  # resyncs and retries must not fire any again
        fired = asyncio.run(logs(list(deadlines)))
    finally:
        for p in procs:
            p.close()
    assert {g: [(e["phase"], e["key"]) for e in es] for g, es in fired.items()} == {
        g: [(1, f"deadline:{g}:1")] for g in deadlines
    }
    assert any(d < killed for d in deadlines.values()), "the leader fired none before the kill"
    for g, es in fired.items():
        assert es[0]["at"] >= deadlines[g]
        if deadlines[g] > took_over + 1.0:  # armed by the new leader's window: on time
            assert es[0]["at"] - deadlines[g] < 1.0, (g, es[0]["at"] - deadlines[g])
