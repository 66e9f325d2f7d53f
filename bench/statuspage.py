"""TV status page benchmark: N concurrent SSE viewers of one game, served by
one process (goal: fan-out p99 under 200 ms). Figures: docs/performance.md.

    ulimit -n 4096
    .venv/bin/python bench/statuspage.py --viewers 500 --changes 200 --poll-changes 100

A real uvicorn serves the status page on loopback (in a thread of this process);
N viewers in a *separate* process (so they do not compete with the server for
the interpreter) hold `/tv/<token>/events` open over raw sockets. Latency is the
time from a change to the moment the *last* viewer has read that change's event
(CLOCK_MONOTONIC is shared by both processes).

1. Push (`--changes`): the change is published on the server's loop, as a
   commit made in this process rings the page (`MemorySource`). The states are a
   15-player Station game's distinct screens, played forth and back as needed,
   so every change is a new screen.
   Floor, alternating change by change with it (a second viewer process of the
   same size): a bare asyncio server on loopback, no uvicorn, Starlette or
   rendering, that writes one frame of the same size to every open socket.
2. Polling (`--poll-changes`, with `--redis URL` or a throw-away redis-server):
   what a TV sees of a commit made by *another* worker. The page is served from
   `StoreSource` over the Redis store, polling every `--poll` seconds (serve's
   `TV_POLL_SECONDS`); a separate store client commits each change (no bell
   rings in the server), at a random moment of the poll cycle. The lag should
   lie between the fan-out and `poll` plus the fan-out.

p99 is a nearest-rank percentile and is printed only over 100 samples or more
(below that it would be the maximum); the maximum is always printed.
Goal: fan-out p99 under 200 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import random
import select
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from adapters.tv.screens import render_screen  # noqa: E402
from adapters.tv.source import MemorySource  # noqa: E402
from bench import tv_games as demo  # noqa: E402
from bench.common import redis_url  # noqa: E402
from bench.loopback import LoopbackServer  # noqa: E402
from gameflow.core.engine import view  # noqa: E402
from gameflow.core.state import Game  # noqa: E402

# -- the viewers' process -----------------------------------------------------------


async def _viewer(port: int, path: str, counts: dict[int, list[float]], total: int) -> None:
    """Counts this viewer's events; when every viewer has its k-th, prints k and
    the moment the last one read it (k = 0 is the screen sent on connecting)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    await writer.drain()
    k = 0
    try:
        while line := await reader.readline():
            if line.startswith(b"id: "):
                got = counts.setdefault(k, [])
                got.append(time.monotonic())
                if len(got) == total:
                    sys.stdout.write(f"{k} {max(got)}\n")
                    sys.stdout.flush()
                    del counts[k]
                k += 1
    except (asyncio.CancelledError, ConnectionError):
        pass
    finally:
        writer.close()


async def _viewers(port: int, path: str, total: int) -> None:
    counts: dict[int, list[float]] = {}
    tasks = [asyncio.create_task(_viewer(port, path, counts, total)) for _ in range(total)]
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


class Viewers:
    """The child process holding `total` streams open on `port`."""

    def __init__(self, port: int, path: str, total: int) -> None:
        self.child = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "bench.statuspage",
                "--serve-viewers",
                str(port),
                path,
                str(total),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        self.next = 0
        assert self.wait(30) is not None, "the viewers did not all connect"

    def wait(self, timeout: float) -> float | None:
        """The moment the last viewer read the next event, or None on timeout."""
        assert self.child.stdout is not None
        ready, _, _ = select.select([self.child.stdout], [], [], timeout)
        if not ready:
            return None
        k, at = self.child.stdout.readline().split()
        assert int(k) == self.next, (k, self.next)
        self.next += 1
        return float(at)

    def close(self) -> None:
        assert self.child.stdin is not None
        self.child.stdin.write("stop\n")
        self.child.stdin.flush()
        self.child.wait(10)


# -- the floor: frames written to sockets, nothing else -------------------------------


class FloorServer:
    """An asyncio server on loopback in a thread: answers any request with SSE
    headers and a first frame, then writes `frame` to every socket on `push`."""

    def __init__(self, size: int) -> None:
        self.body = b"x" * size
        self.writers: list[asyncio.StreamWriter] = []
        self.loop = asyncio.new_event_loop()
        self.started = threading.Event()
        self.stopped = asyncio.Event()
        self.port = 0
        threading.Thread(target=self._run, daemon=True).start()
        self.started.wait(10)

    def frame(self, n: int) -> bytes:
        return b"id: %d\nevent: screen\ndata: %s\n\n" % (n, self.body)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)

        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            while (await reader.readline()).strip():
                pass
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n")
            writer.write(self.frame(0))
            self.writers.append(writer)

        async def serve() -> None:
            server = await asyncio.start_server(handle, "127.0.0.1", 0, backlog=4096)
            self.port = server.sockets[0].getsockname()[1]
            self.started.set()
            await self.stopped.wait()
            for w in self.writers:
                w.close()
            server.close()

        self.loop.run_until_complete(serve())

    def push(self, n: int, stamp: list[float]) -> None:
        def run() -> None:
            stamp.append(time.monotonic())
            data = self.frame(n)
            for w in self.writers:
                w.write(data)

        self.loop.call_soon_threadsafe(run)


# -- the states -------------------------------------------------------------------


def distinct(count: int) -> list[Game]:
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


def sequence(count: int) -> Iterator[Game]:
    """`count` + 1 states, each a new version and a new screen: the game's
    distinct screens forth, back, forth (neighbours always differ)."""
    states = distinct(count)
    cycle = states + states[-2:0:-1]
    base = states[0].version
    for i in range(count + 1):
        yield cycle[i % len(cycle)]._replace(version=base + i)


def percentiles(name: str, ms: list[float]) -> str:
    ordered = sorted(ms)
    p99 = (
        f"p99 {ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]:.1f} ms, "
        if len(ordered) >= 100
        else "(too few for a p99), "
    )
    return (
        f"  {name:<34} {len(ms):4d} changes: p50 {statistics.median(ms):6.1f} ms, {p99}"
        f"max {max(ordered):.1f} ms"
    )


# -- the runs ---------------------------------------------------------------------


def push(viewers: int, count: int) -> tuple[list[float], list[float]]:
    source = MemorySource()
    states = list(sequence(count))
    size = len(render_screen(view(states[0], None), None))
    floor = FloorServer(size)
    with LoopbackServer(source, keepalive=15.0) as server:
        server.publish(states[0], demo.info())
        token = server.call(lambda: source.issue(states[0].id))
        ours = Viewers(server.port, f"/tv/{token}/events", viewers)
        theirs = Viewers(floor.port, "/events", viewers)
        lat: list[float] = []
        f_lat: list[float] = []
        for n, game in enumerate(states[1:], start=1):
            for first in (n % 2 == 0, n % 2 == 1):
                stamp: list[float] = []
                if first:
                    floor.push(n, stamp)
                    at = theirs.wait(10)
                    if at is not None:
                        f_lat.append(at - stamp[0])
                else:

                    def publish(g: Game = game, stamp: list[float] = stamp) -> None:
                        stamp.append(time.monotonic())
                        source.publish(g)

                    assert server.loop is not None
                    server.loop.call_soon_threadsafe(publish)
                    at = ours.wait(10)
                    if at is not None:
                        lat.append(at - stamp[0])
                time.sleep(0.03)
        ours.close()
        theirs.close()
    floor.loop.call_soon_threadsafe(floor.stopped.set)
    return lat, f_lat


def polling(url: str, viewers: int, count: int, poll: float) -> list[float]:
    from adapters.store.redis_store import RedisStore
    from adapters.tv.store_source import StoreSource

    prefix = f"benchtv{uuid.uuid4().hex[:8]}:"
    states = list(sequence(count))
    game_id = f"tv{uuid.uuid4().hex[:8]}"
    states = [g._replace(id=game_id) for g in states]
    loop = asyncio.new_event_loop()
    writer = RedisStore.from_url(url, prefix=prefix)
    run: Callable[[Any], Any] = loop.run_until_complete
    assert run(writer.create(states[0]))
    token = run(StoreSource(writer).issue(game_id))
    source = StoreSource(RedisStore.from_url(url, prefix=prefix), poll=poll)
    lat: list[float] = []
    with LoopbackServer(source, keepalive=15.0) as server:  # type: ignore[arg-type]
        ours = Viewers(server.port, f"/tv/{token}/events", viewers)
        rng = random.Random(1)
        for prev, game in itertools.pairwise(states):
            time.sleep(rng.uniform(0, poll))
            result = run(writer.commit(game_id, prev.version, game, {"do": "bench"}))
            stamp = time.monotonic()
            assert result.status.name == "OK", result
            at = ours.wait(poll + 10)
            if at is not None:
                lat.append(at - stamp)
        ours.close()

    async def clean() -> None:
        async for key in writer.client.scan_iter(match=prefix + "*", count=500):
            await writer.client.delete(key)
        await writer.close()

    run(clean())
    loop.close()
    return lat


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["--serve-viewers"]:
        try:
            import uvloop

            uvloop.run(_viewers(int(args[1]), args[2], int(args[3])))
        except ImportError:
            asyncio.run(_viewers(int(args[1]), args[2], int(args[3])))
        return 0
    parser = argparse.ArgumentParser(prog="python bench/statuspage.py")
    parser.add_argument("--viewers", type=int, default=500)
    parser.add_argument("--changes", type=int, default=200)
    parser.add_argument("--poll-changes", type=int, default=100, help="0: skip polling")
    parser.add_argument("--poll", type=float, default=1.0, help="TV_POLL_SECONDS")
    parser.add_argument("--redis", default=None, help="default: start one on loopback")
    opts = parser.parse_args(args)
    import logging

    logging.getLogger("uvicorn.access").disabled = True
    lat, f_lat = push(opts.viewers, opts.changes)
    if not lat or not f_lat:
        print("no change reached every viewer")
        return 1
    ms, f_ms = [1000 * x for x in lat], [1000 * x for x in f_lat]
    print(f"{opts.viewers} viewers, fan-out to the last viewer (push, alternating with its floor):")
    print(percentiles("the status page (uvicorn)", ms))
    print(percentiles("floor: bare asyncio, same frames", f_ms))
    print(
        f"  {'ratio':<34} p50 {statistics.median(ms) / statistics.median(f_ms):.1f}x, "
        f"max {max(ms) / max(f_ms):.1f}x"
    )
    if opts.poll_changes:
        with redis_url(opts.redis) as url:
            p_lat = polling(url, opts.viewers, opts.poll_changes, opts.poll)
        p_ms = [1000 * x for x in p_lat]
        print(f"a commit by another worker, polled every {opts.poll:g} s, to the last viewer:")
        print(percentiles("StoreSource on Redis", p_ms))
        print(
            f"  {'':<34} p50 {statistics.median(p_ms) / (opts.poll * 1000):.2f}x the poll "
            f"interval, max {max(p_ms) / (opts.poll * 1000):.2f}x"
        )
    ordered = sorted(ms)
    return 0 if ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] < 200 else 1


if __name__ == "__main__":
    from gameflow.games import register_all

    register_all()  # the composition root: the games this process plays

    sys.exit(main())
