"""Scheduler benchmark: 10,000 pending deadlines across games.

Not a test: it prints figures. Run `.venv/bin/python bench/scheduler.py [--games N]`.
Goals (issue 6): re-arm at start in under 2 s, p99 firing lateness under 250 ms.

1. Re-arm: N started Station games (mission phase, deadline 10 minutes out, so a
   deadline and a reminder each) in the in-memory store; time
   `DeadlineScheduler.start()` (read every game, plan, add every job to
   APScheduler, start it). Memory: tracemalloc's peak over a second, separate
   re-arm (tracemalloc slows the code it watches, so it is not timed), and the
   process's max RSS.
2. Lateness: N games whose deadlines are spread evenly over `--spread` seconds of
   real time (no reminders); every deadline goes through the in-memory service,
   which applies it through the core and re-arms the next phase. Lateness is the
   service's clock at submission minus the state's deadline; p50/p99/max.
3. Burst: N deadlines that all passed while the process was down; time from
   start until every one has taken effect.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import platform
import resource
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gameflow.core.state import Game
from gameflow.replay import setup_game
from scheduler.deadlines import DeadlineScheduler
from scheduler.memory import MemoryGames, MemoryService

PLAYERS = ["ana", "bo", "cy", "dag", "eli", "fred", "gro", "hal"]


def games(n: int, started: float, deadlines: list[float]) -> list[Game]:
    """`n` started Station games, game i's phase ending at deadlines[i]."""
    base, _ = setup_game({"game": "station", "players": PLAYERS, "seed": 1, "id": "base"})
    return [
        base._replace(id=f"b{i}", phase=base.phase._replace(started=started, deadline=deadlines[i]))
        for i in range(n)
    ]


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


async def rearm(n: int) -> tuple[float, float, int]:
    now = time.time()
    store = MemoryGames(games(n, now, [now + 600 + i * 0.01 for i in range(n)]))
    sched = DeadlineScheduler(store, MemoryService(store))
    gc.collect()
    t0, c0 = time.perf_counter(), time.process_time()
    await sched.start()
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    jobs = len(sched.aps.get_jobs())
    sched.stop()
    return elapsed, cpu, jobs


async def rearm_memory(n: int) -> tuple[float, float]:
    now = time.time()
    store = MemoryGames(games(n, now, [now + 600 + i * 0.01 for i in range(n)]))
    sched = DeadlineScheduler(store, MemoryService(store))
    gc.collect()
    tracemalloc.start()
    await sched.start()
    current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    sched.stop()
    return current / 2**20, peak / 2**20


async def lateness(n: int, spread: float, lead: float = 6.0) -> tuple[list[float], float, int]:
    now = time.time()
    due = [now + lead + spread * i / n for i in range(n)]
    store = MemoryGames(games(n, now, due))
    service = MemoryService(store)
    sched = DeadlineScheduler(store, service)
    service.listeners.append(sched.on_transition)
    t0 = time.perf_counter()
    await sched.start()
    armed = time.perf_counter() - t0
    end = now + lead + spread + 30
    while len(service.accepted) < n and time.time() < end:
        await asyncio.sleep(0.05)
    late = [s.at - due[int(s.game_id[1:])] for s in service.accepted]
    sched.stop()
    return late, armed, len(service.accepted)


async def burst(n: int) -> tuple[float, float, int]:
    now = time.time()
    store = MemoryGames(games(n, now - 3600, [now - 60 - i * 0.001 for i in range(n)]))
    service = MemoryService(store)
    sched = DeadlineScheduler(store, service)
    service.listeners.append(sched.on_transition)
    t0, c0 = time.perf_counter(), time.process_time()
    await sched.start()
    while len(service.accepted) < n and time.perf_counter() - t0 < 120:
        await asyncio.sleep(0.01)
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    sched.stop()
    return elapsed, cpu, len(service.accepted)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--spread", type=float, default=10.0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    n = args.games
    print(f"python {platform.python_version()} on {platform.machine()}, {n} games")

    times, cpus = [], []
    for _ in range(args.repeat):
        elapsed, cpu, jobs = asyncio.run(rearm(n))
        times.append(elapsed)
        cpus.append(cpu)
    print(
        f"re-arm: {jobs} jobs ({n} deadlines + reminders) in best {min(times):.3f} s, "
        f"median {statistics.median(times):.3f} s wall; best {min(cpus):.3f} s CPU "
        f"(goal < 2 s)"
    )
    current, peak = asyncio.run(rearm_memory(n))
    print(
        f"memory: {current:.1f} MiB held after re-arm, {peak:.1f} MiB peak "
        f"(tracemalloc, jobs + plans; games not counted)"
    )

    late, armed, fired = asyncio.run(lateness(n, args.spread))
    ms = [x * 1000 for x in late]
    print(
        f"lateness: {fired}/{n} deadlines over {args.spread:.0f} s (armed in {armed:.3f} s): "
        f"p50 {pct(ms, 50):.1f} ms, p99 {pct(ms, 99):.1f} ms, max {max(ms):.1f} ms "
        f"(goal p99 < 250 ms)"
    )

    elapsed, cpu, fired = asyncio.run(burst(n))
    print(
        f"burst: {fired}/{n} deadlines missed during downtime all took effect "
        f"{elapsed:.3f} s after start ({cpu:.3f} s CPU; each arms the next phase)"
    )
    print(f"load average while running: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"max RSS of the whole run: {rss:.0f} MiB")


if __name__ == "__main__":
    main()
