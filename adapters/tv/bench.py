"""Benchmark: N concurrent SSE viewers of one game, served by one process.

    python -m adapters.tv.bench --viewers 500 --changes 40

A real uvicorn serves the status page on loopback (in a thread of this process);
N viewers in a *separate* process (so they do not compete with the server for
the interpreter) hold `/tv/<token>/events` open over raw sockets. For each of
`--changes` new versions of a 15-player Station game, the time from `publish`
on the server's loop to the moment the *last* viewer has read that version's
event is the fan-out latency (CLOCK_MONOTONIC is shared by both processes).
Prints p50/p99/max. Goal: p99 under 200 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import select
import statistics
import subprocess
import sys
import time

from adapters.tv import demo
from adapters.tv.loopback import LoopbackServer
from adapters.tv.screens import render_screen
from adapters.tv.source import MemorySource
from gameflow.core.engine import view
from gameflow.core.state import Game


async def _viewer(port: int, path: str, seen: dict[int, list[float]], total: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    await writer.drain()
    try:
        while line := await reader.readline():
            if line.startswith(b"id: "):
                at = time.monotonic()
                version = int(line[4:])
                got = seen.setdefault(version, [])
                got.append(at)
                if len(got) == total:
                    sys.stdout.write(f"{version} {max(got)}\n")
                    sys.stdout.flush()
    except (asyncio.CancelledError, ConnectionError):
        pass
    finally:
        writer.close()


async def _viewers(port: int, path: str, total: int) -> None:
    seen: dict[int, list[float]] = {}
    tasks = [asyncio.create_task(_viewer(port, path, seen, total)) for _ in range(total)]
    await asyncio.sleep(0.5)
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def changes(count: int) -> list[Game]:
    """States of a 15-player game whose screens differ one from the next."""
    out: list[Game] = []
    last = ""
    for game in demo.bot_game(15, seed="bench", lang="nb"):
        if game.phase.name == "lobby":
            continue
        screen = render_screen(view(game, None), None)
        if screen != last:
            out.append(game)
            last = screen
        if len(out) > count:
            break
    return out


def run(viewers: int, count: int) -> list[float]:
    source = MemorySource()
    states = changes(count)
    with LoopbackServer(source, keepalive=15.0) as server:
        server.publish(states[0], demo.info())
        token = server.call(lambda: source.issue(states[0].id))
        path = f"/tv/{token}/events?after={states[0].version}"
        child = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "adapters.tv.bench",
                "--serve-viewers",
                str(server.port),
                path,
                str(viewers),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": os.getcwd()},
        )
        assert child.stdout is not None and child.stdin is not None
        assert child.stdout.readline().strip() == "ready"
        time.sleep(1.0 + viewers / 500)  # every stream is open and waiting
        latencies: list[float] = []
        for game in states[1:]:
            stamp: list[float] = []

            def publish(g: Game = game, stamp: list[float] = stamp) -> None:
                stamp.append(time.monotonic())
                source.publish(g)

            assert server.loop is not None
            server.loop.call_soon_threadsafe(publish)
            ready, _, _ = select.select([child.stdout], [], [], 10)
            if not ready:
                break
            version, last = child.stdout.readline().split()
            assert int(version) == game.version
            latencies.append(float(last) - stamp[0])
            time.sleep(0.05)
        child.stdin.write("stop\n")
        child.stdin.flush()
        child.wait(10)
    return latencies


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["--serve-viewers"]:
        try:
            import uvloop

            uvloop.run(_viewers(int(args[1]), args[2], int(args[3])))
        except ImportError:
            asyncio.run(_viewers(int(args[1]), args[2], int(args[3])))
        return 0
    parser = argparse.ArgumentParser(prog="python -m adapters.tv.bench")
    parser.add_argument("--viewers", type=int, default=500)
    parser.add_argument("--changes", type=int, default=40)
    opts = parser.parse_args(args)
    import logging

    logging.getLogger("uvicorn.access").disabled = True
    latencies = run(opts.viewers, opts.changes)
    if not latencies:
        print("no change reached every viewer")
        return 1
    ms = [1000 * x for x in latencies]
    print(
        f"{opts.viewers} viewers, {len(ms)} changes: fan-out to the last viewer "
        f"p50 {statistics.median(ms):.1f} ms, p99 {percentile(ms, 0.99):.1f} ms, "
        f"max {max(ms):.1f} ms"
    )
    return 0 if percentile(ms, 0.99) < 200 else 1


if __name__ == "__main__":
    sys.exit(main())
