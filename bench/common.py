"""What every benchmark here shares: percentiles, the floor ratio, the GC's
pauses, the machine, and a Redis of its own.

Why a Redis of its own: the benches write thousands of keys and time round trips,
so they must never run against the machine's Redis on 6379 (someone's data, and
someone else's load in the figures). Without `--redis URL` a bench starts a
throw-away `redis-server` on a free loopback port, as the tests do
(tests/redis_server.py), and stops it at the end.
"""

from __future__ import annotations

import contextlib
import gc
import os
import platform
import time
from collections.abc import Iterator
from typing import Any


def pct(samples: list[float], q: float) -> float:
    """The q-quantile (nearest rank) of `samples` in seconds, returned in ms."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def stats(name: str, lat: list[float], wall: float, width: int = 30) -> str:
    """ops/s (count over the wall time of the stretches measured), p50/p99/max."""
    return (
        f"  {name:<{width}} {len(lat) / wall:>8,.0f} ops/s   p50 {pct(lat, 0.5):6.2f} ms"
        f"   p99 {pct(lat, 0.99):6.2f} ms   max {max(lat) * 1000:7.2f} ms   ({len(lat)} ops)"
    )


def ratio(name: str, lat: list[float], wall: float, f_lat: list[float], f_wall: float) -> str:
    """Subject over floor, same run: rate, p50 and p99."""
    rate = (len(lat) / wall) / (len(f_lat) / f_wall)
    return (
        f"  {name:<30} rate {rate:.2f}x the floor's, p50 {pct(lat, 0.5) / pct(f_lat, 0.5):.1f}x, "
        f"p99 {pct(lat, 0.99) / pct(f_lat, 0.99):.1f}x"
    )


def machine() -> str:
    model = "?"
    with contextlib.suppress(OSError), open("/proc/cpuinfo") as f:
        for row in f:
            if row.startswith("model name"):
                model = row.split(":", 1)[1].strip()
                break
    load = os.getloadavg()[0]
    return (
        f"python {platform.python_version()}, {os.cpu_count()} CPUs ({model}), "
        f"load average {load:.1f} at start"
    )


class Pauses:
    """The garbage collector's pauses while `on` (gc.callbacks): per generation,
    how many and how long. A p99 or a max is often one of these."""

    def __init__(self) -> None:
        self.on = False
        self.pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self._t = 0.0
        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._t = time.perf_counter()
        elif self.on:
            self.pauses[info["generation"]].append(time.perf_counter() - self._t)

    def clear(self) -> None:
        for p in self.pauses.values():
            p.clear()

    def __str__(self) -> str:
        parts = [
            f"gen{g} {len(p)}x, {sum(p) * 1000:.1f} ms in all, max {max(p) * 1000:.1f} ms"
            for g, p in self.pauses.items()
            if p
        ]
        return "; ".join(parts) or "none"


@contextlib.contextmanager
def redis_url(given: str | None) -> Iterator[str]:
    """`given` if any ('' means: no Redis), else a throw-away redis-server's URL."""
    if given is not None:
        yield given
        return
    from tests.redis_server import start_server, stop_server

    url, proc, folder = start_server()
    try:
        yield url
    finally:
        stop_server(proc, folder)
