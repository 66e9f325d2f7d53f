"""Many processes, one game: nothing lost, nothing applied twice, and the log
always replays to the saved state. Also SIGKILLed workers and a restarted Redis.

The workers are real processes (tests/store_worker.py) running the real
service against a real Redis (and the SQLite store on one shared file, which
its BEGIN IMMEDIATE commits make safe across processes too).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from bench.loopback import free_port
from gameflow.core import actions as A
from gameflow.core.engine import apply
from gameflow.core.state import Game
from gameflow.replay import record, step_of
from service.games import GameService
from tests.store_helpers import HOST, T0, lobby, ok, random_action, run, store_fixture

pytestmark = pytest.mark.store

WORKER = Path(__file__).resolve().parent / "store_worker.py"
PROCESSES = 4

make_store = store_fixture()


def config(make: Any, tmp_path: Path, **extra: Any) -> dict[str, Any]:
    return {
        "kind": make.kind,
        "url": make.url,
        "prefix": make.prefix,
        "path": str(tmp_path / "games.sqlite3"),
        "game": "g1",
        **extra,
    }


def run_workers(cfgs: list[dict[str, Any]], go: Path) -> list[dict[str, Any]]:
    procs = [
        subprocess.Popen(
            [sys.executable, str(WORKER), json.dumps(c)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for c in cfgs
    ]
    time.sleep(0.5)  # let every worker load and wait at the start line
    go.touch()
    lines: list[dict[str, Any]] = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        lines.extend(json.loads(line) for line in out.splitlines())
    return lines


def submit_at_once(
    make: Any, tmp_path: Path, jobs: list[tuple[str, dict[str, Any]]]
) -> list[dict[str, Any]]:
    """`jobs` (key, step) dealt round among PROCESSES workers that submit them
    all at once: every worker's results."""
    go = tmp_path / "go"
    cfgs = [
        config(make, tmp_path, job="submit", go=str(go), jobs=jobs[i::PROCESSES])
        for i in range(PROCESSES)
    ]
    return run_workers(cfgs, go)


async def seed_lobby(make: Any, game: Game) -> None:
    async with make() as store:
        assert await store.create(game)


async def check_log(make: Any) -> tuple[Game, list[dict[str, Any]]]:
    """The saved game, after checking that its log replays to it exactly."""
    async with make() as store:
        service = GameService(store)
        game = await service.verify("g1")
        return game, await store.log("g1")


def test_200_concurrent_submissions_from_4_processes(make_store: Any, tmp_path: Path) -> None:
    game = lobby(5, options={"auto_advance": True})
    run(seed_lobby(make_store, game))
    jobs: list[tuple[str, dict[str, Any]]] = [
        (f"join:{i}", {"as": f"q{i}", "do": "join", "name": f"Q{i}"}) for i in range(10)
    ]
    jobs += [
        (f"opt:{n}", {"as": HOST, "do": "set_option", "name": "vote_seconds", "value": float(n)})
        for n in range(190)
    ]
    random.Random(1).shuffle(jobs)
    results = submit_at_once(make_store, tmp_path, jobs)
    assert len(results) == 200
    assert all(r["accepted"] for r in results), [r for r in results if not r["accepted"]][:3]
    attempts = Counter(r["attempts"] for r in results)
    print("attempts per accepted submission:", sorted(attempts.items()))
    assert max(attempts) > 1  # the processes really did collide
    saved, log = run(check_log(make_store))
    assert saved.version == game.version + 200
    keys = [e["key"] for e in log]
    assert Counter(keys) == Counter(k for k, _ in jobs)  # none lost, none twice
    assert len(saved.players) == 15
    # Every accepted submission saw its own version: the versions form 1..200.
    assert sorted(r["version"] for r in results) == list(
        range(game.version + 1, game.version + 201)
    )


def test_each_key_delivered_5_times_across_processes_applies_once(
    make_store: Any, tmp_path: Path
) -> None:
    game = lobby(5)
    run(seed_lobby(make_store, game))
    keys = [
        (f"upd:{n}", {"as": HOST, "do": "set_option", "name": "mission_seconds", "value": float(n)})
        for n in range(40)
    ]
    deliveries = [k for k in keys for _ in range(5)]
    random.Random(2).shuffle(deliveries)
    results = submit_at_once(make_store, tmp_path, deliveries)
    assert len(results) == 200
    accepted = Counter(r["key"] for r in results if r["accepted"])
    assert accepted == Counter({k: 1 for k, _ in keys})
    assert sum(r["duplicate"] for r in results) == 160
    saved, log = run(check_log(make_store))
    assert saved.version == game.version + 40
    assert sorted(e["key"] for e in log) == sorted(k for k, _ in keys)


def test_everyone_acting_at_once_ends_the_phase_exactly_once(
    make_store: Any, tmp_path: Path
) -> None:
    game = ok(apply(lobby(15), A.Start(HOST), T0))
    run(seed_lobby(make_store, game._replace(id="g1")))
    jobs = [(f"c:{p}", {"as": p, "do": "choose", "plan": 1, "job": "radio"}) for p in game.players]
    jobs += [
        (f"c2:{p}", {"as": p, "do": "choose", "plan": 2, "job": "guard"}) for p in game.players
    ]  # a second choice each: always refused as locked
    results = submit_at_once(make_store, tmp_path, jobs)
    assert sum(r["accepted"] for r in results) == 15
    assert {r["code"] for r in results if not r["accepted"]} <= {"locked", "wrong_phase"}
    saved, log = run(check_log(make_store))
    assert saved.version == game.version + 15 and len(log) == 15
    assert saved.phase.seq == game.phase.seq + 1 and saved.phase.name == "discussion"


# -- crashes ------------------------------------------------------------------------

FAST = {
    "mission_seconds": 0.0,
    "discussion_seconds": 0.0,
    "vote_seconds": 0.0,
    "auto_advance": True,
}


def scripted_game(
    seed: int, players: int = 7
) -> tuple[Game, list[tuple[str, dict[str, Any]]], Game]:
    """A started game, a whole game's inputs as (key, step), and the final state
    they lead to. Phases last 0 s, so every deadline step is due whenever it comes."""
    rng = random.Random(seed)
    t0 = time.time() - 3600  # the workers' clock is real: every deadline lies behind it
    start = ok(apply(lobby(players, options=FAST, seed=f"k{seed}"), A.Start(HOST), t0))
    game, now, jobs = start, t0, []
    while not game.over and len(jobs) < 300:
        now += 1
        action = random_action(game, rng)
        if action is None or isinstance(action, A.End | A.Pause) or rng.random() < 0.02:
            action = A.Deadline(None, game.phase.seq)
        result = apply(game, action, now)
        if not result.ok:
            continue
        jobs.append((f"in:{len(jobs)}", step_of(game, action)))
        game = ok(result)
    return start, jobs, game


def play_worker(
    cfg: dict[str, Any], kill_after: int | None, delay: float, errfile: Path
) -> tuple[list[dict[str, Any]], bool]:
    """Run a "play" worker; SIGKILL it `delay` s after its `kill_after`-th ack.
    Returns the JSON lines it printed and whether it was killed."""
    killed = False
    with (
        errfile.open("w") as err,
        subprocess.Popen(
            [sys.executable, str(WORKER), json.dumps(cfg)],
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
        ) as proc,
    ):
        assert proc.stdout is not None
        text: list[str] = []
        seen = 0
        while kill_after is not None and seen < kill_after:
            got = proc.stdout.readline()
            if not got:
                break
            text.append(got)
            seen += '"ack"' in got
        if kill_after is not None:
            time.sleep(delay)
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
                killed = True
        text.append(proc.stdout.read())
        proc.wait(timeout=120)
    assert killed or proc.returncode == 0, errfile.read_text()
    return [json.loads(x) for x in "".join(text).splitlines() if x.endswith("}")], killed


def test_workers_killed_at_random_points_lose_no_acknowledged_input(
    make_store: Any, tmp_path: Path
) -> None:
    start, jobs, expected = scripted_game(0, players=10)  # 85 inputs
    run(seed_lobby(make_store, start._replace(id="g1")))
    rng = random.Random(3)
    acked: list[str] = []
    kills = redelivered = 0
    while True:
        cfg = config(make_store, tmp_path, job="play", jobs=jobs, start=len(acked))
        # Kill it a random few inputs in, at a random instant of the next one
        # (before, during or after its commit).
        kill_after = rng.randint(1, 8) if kills < 8 else None
        lines, killed = play_worker(cfg, kill_after, rng.uniform(0, 0.004), tmp_path / "err")
        kills += killed
        for line in lines:
            if "ack" in line:
                assert line["accepted"] or line["duplicate"], line
                acked.append(line["ack"])
                redelivered += line["duplicate"]
        if any("done" in line for line in lines):
            break
    assert kills == 8
    print(f"killed 8 times; {redelivered} inputs were stored but not acknowledged when killed")
    assert acked == [k for k, _ in jobs]
    saved, log = run(check_log(make_store))
    assert [e["key"] for e in log] == [k for k, _ in jobs]  # each exactly once, in order
    assert saved.over and record(saved, []) == record(expected, [])
    assert saved.version == expected.version


class RedisServer:
    """A private redis-server with AOF (appendfsync everysec) in a temp dir."""

    def __init__(self, tmp: Path) -> None:
        self.tmp, self.port = tmp, free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        exe = shutil.which("redis-server")
        assert exe, "redis-server is needed for the restart test"
        self.proc = subprocess.Popen(
            [
                exe,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.tmp),
                "--appendonly",
                "yes",
                "--appendfsync",
                "everysec",
                "--save",
                "",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.1).close()
                return
            except OSError:
                time.sleep(0.05)
        raise AssertionError("redis-server did not start")

    def kill(self, sig: int = signal.SIGKILL) -> None:
        assert self.proc is not None
        self.proc.send_signal(sig)
        self.proc.wait(timeout=30)


def test_a_restarted_redis_loses_no_game(tmp_path: Path) -> None:
    from adapters.store.redis_store import RedisStore

    if shutil.which("redis-server") is None:
        if os.environ.get("CI"):
            pytest.fail("CI needs redis-server for the restart test")
        pytest.skip("redis-server is not installed (set CI=1 to make this a failure)")
    server = RedisServer(tmp_path)
    server.start()
    start, jobs, expected = scripted_game(9)
    half = len(jobs) // 2

    async def submit(lo: int, hi: int) -> None:
        store = RedisStore.from_url(server.url)
        try:
            service = GameService(store, clock=time.time)
            if lo == 0:
                for i in range(20):  # twenty more games in their lobbies
                    assert await store.create(lobby(5, game_id=f"lobby{i}"))
                assert await store.create(start._replace(id="g1"))
            for key, step in jobs[lo:hi]:
                from gameflow.replay import parse_step

                game = await service.load("g1")
                assert (await service.submit("g1", parse_step(game, step), key=key)).accepted
        finally:
            await store.close()

    async def state() -> tuple[Game | None, list[str], int]:
        store = RedisStore.from_url(server.url)
        try:
            game = await store.load("g1")
            n = sum([await store.load(f"lobby{i}") is not None for i in range(20)])
            return game, [e["key"] for e in await store.log("g1")], n
        finally:
            await store.close()

    try:
        run(submit(0, half))
        time.sleep(1.5)  # appendfsync everysec: a second later it is on disk
        server.kill()  # a crash, not a clean shutdown
        server.start()
        game, keys, lobbies = run(state())
        assert game is not None and lobbies == 20
        assert keys == [k for k, _ in jobs[:half]] and game.version == start.version + half
        run(submit(half, len(jobs)))
        server.kill(signal.SIGTERM)  # a clean restart writes everything out
        server.start()
        game, keys, _ = run(state())
        assert game is not None and game.over
        assert keys == [k for k, _ in jobs]
        assert record(game, []) == record(expected, [])
    finally:
        if server.proc is not None and server.proc.poll() is None:
            server.kill()
