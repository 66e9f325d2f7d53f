"""Load probe: the knee of one `muldvarp serve` worker, the inputs/s at which
the p99 of a signed SMS webhook crosses 100 ms (issue #20, item 2).

Why a probe and not a timed test: the knee is a property of the machine as
much as of the code, so it is reported next to a floor measured in the same
run (raw Redis GET + SET pairs of a snapshot-sized value, 32 in flight, from
this process, before and after the ramp), and as a ratio to it.

What runs: one `muldvarp serve` worker (uvicorn, the app, the scheduler) on a
Redis of its own (`--redis URL` to give one, `--cluster` for a real Redis
Cluster of three masters and three replicas started here), talking to the
fake Twilio REST API (tests/fake_twilio.py) on loopback through the real
twilio client. This process drives Station games of five as `tests/test_scale.py`
does: every input is a signed `POST /sms/twilio`; players answer the newest
menu on their phone (tests/sms_typist.py), about once a second per game; an SMS
host texts NEW, START GAME, and NEXT when nobody is asked. A game that ends is
followed by a new one in its slot, so the load stays at the step's number of
games.

The ramp: `--steps` numbers of concurrent games; each step adds its new games
spread over `--warm` seconds (games started in the same second would stay in
step, every phase change of all of them in one burst), then measures every webhook sent in the next `--measure`
seconds: inputs/s answered, p50/p99/max of the POST's round trip, and the CPU
share of the worker, of this driver and of Redis over the window, and the
worker's CPU milliseconds per input (steadier than the p99 on a shared machine). The ramp
stops after two steps over the line. The driver's CPU share is printed because
it shares the machine: near 100 % the driver, not the worker, is the limit.

    .venv/bin/python bench/knee.py                    # one Redis
    .venv/bin/python bench/knee.py --cluster          # a Redis Cluster
    .venv/bin/python bench/knee.py --workers 2        # two workers, webhooks in turn
    .venv/bin/python bench/knee.py --workers 1,2      # one, then two: their knees' ratio
    .venv/bin/python bench/knee.py --python /opt/py313/bin/python  # the worker on another Python

With `--workers 2` the webhooks go to the workers in turn, as a proxy's round
robin would send them; the worker CPU printed is their sum. On a 2-core
machine two workers, the driver and Redis share the cores, so the gain a
second worker shows here is a floor of what it gives on a machine of its own.
With `--workers 1,2` the run ramps one worker, then two (same Redis, same
steps) and ends with the ratio of their knees (issue #31: two workers should
carry at least 1.6 times one) and their CPU per input at the steps both ran.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import random
import sys
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import aiohttp  # noqa: E402

from adapters.sms import sheet as S  # noqa: E402
from adapters.sms.directory import player_id  # noqa: E402
from bench.common import machine, pct, redis_url  # noqa: E402
from bench.knee_reading import GOAL, LINE, Window, goal, reach, scaling, verdict  # noqa: E402
from tests.fake_twilio import FakeTwilio, inbound  # noqa: E402
from tests.scale_workers import Worker, cpu_seconds, sms_worker_env  # noqa: E402
from tests.sms_typist import Typist  # noqa: E402

NAMES = ["Kristoffer", "Ingeborg", "Sigurd", "Åse", "Bjørnar"]
PUBLIC = "https://muldvarp.example.org"
FROM = "+4759440000"
ID_KEY = "knee-probe-id-key"


async def lag_probe(lags: list[float], every: float = 0.005) -> None:
    """How late this process's event loop wakes from a short sleep, appended to
    `lags`: a round trip measured here includes the time the driver's own loop
    (and the fake Twilio's threads, which share its GIL) kept the answer unread."""
    while True:
        t = time.monotonic()
        await asyncio.sleep(every)
        lags.append(time.monotonic() - t - every)


class Driver:
    """Players and hosts of every slot: signed webhooks to the workers, in
    turn (a proxy's round robin: one game's inputs land on any of them)."""

    def __init__(
        self, workers: list[Worker], store: Any, twilio: FakeTwilio, interval: float
    ) -> None:
        self.workers = workers
        self._turn = itertools.count()
        self.store = store
        self.twilio = twilio
        self.interval = interval
        self.sent: list[tuple[float, float]] = []  # (sent at, round trip)
        self.errors = 0
        self.games_done = 0
        self.stop = asyncio.Event()
        self._inboxes: dict[str, list[str]] = {}
        self._read = 0
        self.client = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=0, limit_per_host=0),
            timeout=aiohttp.ClientTimeout(total=60.0),
        )

    def inbox(self, phone: str) -> list[str]:
        messages = self.twilio.messages
        end = len(messages)
        for m in messages[self._read : end]:
            self._inboxes.setdefault(m["to"], []).append(m["body"])
        self._read = end
        return self._inboxes.get(phone, [])

    async def text(self, phone: str, body: str) -> None:
        data, headers = inbound(PUBLIC + "/sms/twilio", f"SM{uuid.uuid4().hex}", phone, FROM, body)
        for _ in range(5):
            worker = self.workers[next(self._turn) % len(self.workers)]
            t0 = time.monotonic()
            try:
                async with self.client.post(
                    worker.url + "/sms/twilio", data=data, headers=headers
                ) as r:
                    await r.read()
                    status = r.status
            except (aiohttp.ClientError, TimeoutError):
                status = 0
            if status == 200:
                self.sent.append((t0, time.monotonic() - t0))
                return
            self.errors += 1
            await asyncio.sleep(0.1)
        raise RuntimeError(f"{phone} {body!r}: the worker never answered 200")

    async def paced(self, last: float) -> float:
        """Wait until about `interval` after this game's last input (jittered)."""
        wait = last + self.interval * random.uniform(0.8, 1.2) - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
        return time.monotonic()

    async def slot(self, n: int, spread: float) -> None:
        # Starts spread over `spread` seconds: games started together stay in
        # step, and every phase change of all of them would fall in one second.
        await asyncio.sleep(random.uniform(0, spread))
        game = 0
        while not self.stop.is_set():
            if await self.play(n * 100 + game % 100):
                self.games_done += 1
            game += 1

    async def play(self, i: int) -> bool:
        """One game in slot i; whether it ended (not stopped by the ramp)."""
        rng = random.Random(i)
        phones = [
            f"+479{i:05d}{p:02d}" for p in range(len(NAMES))
        ]  # 8 digits: a valid Norwegian mobile
        players = {player_id(p, ID_KEY): p for p in phones}
        host_phone = f"+474{i:05d}99"
        last = await self.paced(0.0)
        await self.text(host_phone, "NEW STATION EN")
        where = await self.store.whereis(player_id(host_phone, ID_KEY))
        assert where is not None, "the acknowledged NEW was not stored"
        game_id = where[0]
        code = await self.store.code_for(game_id)
        for phone, name in zip(phones, NAMES, strict=True):
            last = await self.paced(last)
            await self.text(phone, f"JOIN {code} {name}")
        last = await self.paced(last)
        await self.text(host_phone, "START GAME")
        game = await self.store.load(game_id)
        typists = {
            pid: Typist(name, NAMES, game.lang, random.Random(f"{i}/{name}"))
            for pid, name in zip(players, NAMES, strict=True)
        }
        idle = time.monotonic()
        while not self.stop.is_set():
            for pid in rng.sample(sorted(players), len(players)):
                body = typists[pid].turn(self.inbox(players[pid]))
                if body is not None:
                    last = await self.paced(last)
                    await self.text(players[pid], body)
                    idle = time.monotonic()
                    break
            else:
                if time.monotonic() - idle < self.interval:
                    await asyncio.sleep(0.1)  # a menu on its way
                    continue
                game = await self.store.load(game_id)
                if game.over:
                    return True
                if game.running and not any(S.key_of(game, p) is not None for p in players):
                    last = await self.paced(last)
                    await self.text(host_phone, "NEXT")
                idle = time.monotonic()
        return False

    async def close(self) -> None:
        await self.client.close()


def cpu_of(pids: dict[str, int]) -> dict[str, float | None]:
    return {name: cpu_seconds(pid) for name, pid in pids.items()}


async def floor(url: str, seconds: float = 3.0, inflight: int = 32) -> tuple[float, float, float]:
    """Raw GET + SET pairs of a 2,400-character value, `inflight` at once:
    pairs/s, p50 and p99 (ms)."""
    from adapters.redis_url import async_client

    client = async_client(url)
    value = "x" * 2400
    lat: list[float] = []
    end = time.monotonic() + seconds

    async def one(k: int) -> None:
        key = f"{{knee-floor}}:{k}"
        await client.set(key, value)
        while time.monotonic() < end:
            t0 = time.monotonic()
            await client.get(key)
            await client.set(key, value)
            lat.append(time.monotonic() - t0)

    started = time.monotonic()
    try:
        await asyncio.gather(*(one(k) for k in range(inflight)))
    finally:
        await client.aclose()
    return len(lat) / (time.monotonic() - started), pct(lat, 0.5), pct(lat, 0.99)


async def commands(ports: list[int]) -> dict[str, int]:
    """Calls per Redis command so far, summed over the servers on `ports`
    (INFO commandstats): the round trips an input costs."""
    import redis.asyncio as aioredis

    total: dict[str, int] = {}
    for port in ports:
        client = aioredis.Redis(host="127.0.0.1", port=port)
        try:
            for name, stat in (await client.info("commandstats")).items():
                total[name] = total.get(name, 0) + int(stat["calls"])
        finally:
            await client.aclose()
    return total


def worker_env(url: str, prefix: str, twilio: FakeTwilio) -> dict[str, str]:
    sep = "&" if "?" in url else "?"
    redis = url if "+cluster" in url else f"{url}{sep}max_connections=1000"
    return sms_worker_env(redis, prefix, twilio.base_url, public=PUBLIC, sender=FROM, id_key=ID_KEY)


def redis_pids(ports: list[int]) -> list[int]:
    """The redis-server processes listening on `ports` (for their CPU share)."""
    found = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            cmd = (d / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        # redis-server retitles itself "redis-server 127.0.0.1:PORT [cluster]"
        title = b" ".join(cmd).decode(errors="replace")
        if title.startswith(("redis-server", "/usr/bin/redis-server")) and any(
            f":{port}" in title for port in ports
        ):
            found.append(int(d.name))
    return found


async def ramp(
    url: str, ports: list[int], args: argparse.Namespace, tmp: Path, count: int
) -> list[Window]:
    """One ramp of `count` workers; the steps it measured."""
    from adapters.store.redis_store import RedisStore

    prefix = f"knee:{uuid.uuid4().hex[:8]}:"
    with FakeTwilio() as twilio:
        env = worker_env(url, prefix, twilio)
        workers = [Worker(f"w{i + 1}", env, tmp, args.python) for i in range(count)]
        store = RedisStore.from_url(
            url if "+cluster" in url else f"{url}?max_connections=200", prefix=prefix
        )
        driver = Driver(workers, store, twilio, args.interval)
        try:
            await asyncio.gather(*(w.ready() for w in workers))
            before = await floor(url)
            one = await floor(url, 2.0, 1)
            print(
                f"floor before: {before[0]:,.0f} GET+SET pairs/s with 32 in flight; "
                f"one at a time p50 {one[1]:.2f} ms, p99 {one[2]:.2f} ms"
            )
            reds = redis_pids(ports)
            windows: list[Window] = []
            slots: list[asyncio.Task[None]] = []
            over = 0
            for games in args.steps:
                while len(slots) < games:
                    slots.append(asyncio.create_task(driver.slot(len(slots), args.warm)))
                await asyncio.sleep(args.warm)
                pids = {f"worker{i}": w.proc.pid for i, w in enumerate(workers)}
                pids["driver"] = os.getpid()
                pids.update({f"redis{k}": p for k, p in enumerate(reds)})
                r0 = await commands(ports)
                c0, t0, m0 = cpu_of(pids), time.monotonic(), len(twilio.messages)
                lags: list[float] = []
                probe = asyncio.create_task(lag_probe(lags))
                await asyncio.sleep(args.measure)
                probe.cancel()
                c1, t1, m1 = cpu_of(pids), time.monotonic(), len(twilio.messages)
                r1 = await commands(ports)
                w = Window(games, t0, t1)
                w.texts = m1 - m0
                w.calls = {k: v - r0.get(k, 0) for k, v in r1.items() if v > r0.get(k, 0)}
                w.lat = [dt for at, dt in driver.sent if t0 <= at < t1]
                for name in pids:
                    a, b = c0[name], c1[name]
                    if a is not None and b is not None:
                        key = "redis" if name.startswith("redis") else name.rstrip("0123456789")
                        w.cpu[key] = w.cpu.get(key, 0.0) + (b - a) / (t1 - t0)
                if not w.lat:  # a step of 0 games: what the worker burns idle
                    print(f"    0 games: CPU worker {w.cpu.get('worker', 0):4.0%} (idle)")
                    continue
                windows.append(w)
                print(
                    f"{games:>5} games: {w.rate:7.1f} inputs/s  p50 {pct(w.lat, 0.5):7.1f} ms"
                    f"  p99 {pct(w.lat, 0.99):7.1f} ms  max {max(w.lat) * 1000:7.1f} ms"
                    f"  CPU worker {w.cpu.get('worker', 0):4.0%} driver {w.cpu.get('driver', 0):4.0%}"
                    f" redis {w.cpu.get('redis', 0):4.0%}"
                    f"  worker {w.cpu.get('worker', 0) / max(w.rate, 1e-9) * 1000:.1f} CPU ms"
                    f"  driver lag p99 {pct(lags, 0.99):.0f} max {max(lags, default=0) * 1000:.0f} ms"
                    f"  ({len(w.lat)} inputs,"
                    f" {w.texts / max(1, len(w.lat)):.1f} texts out and"
                    f" {sum(w.calls.values()) / max(1, len(w.lat)):.1f} Redis commands each)",
                    flush=True,
                )
                over = over + 1 if pct(w.lat, 0.99) / 1000 > LINE else 0
                if over >= 2:
                    break
            driver.stop.set()
            await asyncio.wait(slots, timeout=30)
            for t in slots:
                t.cancel()
            after = await floor(url)
            print(f"floor after: {after[0]:,.0f} GET+SET pairs/s with 32 in flight")
            mean = (before[0] + after[0]) / 2
            idle = windows[0]
            print(
                f"games finished {driver.games_done}, webhooks resent {driver.errors}; "
                f"lightest step p50 {pct(idle.lat, 0.5):.2f} ms = "
                f"{pct(idle.lat, 0.5) / one[1]:.1f}x one floor pair's p50 (one at a time)"
            )
            busiest = windows[-1]
            per = {k: v / len(busiest.lat) for k, v in busiest.calls.items()}
            print(
                "Redis commands per input at the last step: "
                + ", ".join(
                    f"{k.removeprefix('cmdstat_')} {v:.2f}"
                    for k, v in sorted(per.items(), key=lambda kv: -kv[1])
                    if v >= 0.05
                )
            )
            print(verdict(windows, mean))
            target = goal(mean)
            print(
                f"goal: {GOAL:.3f}x the floor = {target:.0f} inputs/s (five times the first probe)"
            )
            print(reach(windows, os.cpu_count() or 1, target))
            return windows
        finally:
            driver.stop.set()
            await driver.close()
            await store.close()
            for worker in workers:
                worker.stop()
            # the scheduler's own figures as it stops (the leader's): the worst loop lag
            for worker in workers:
                for line in worker.lines:
                    if line.startswith("stats "):
                        print(worker.name, line)


async def ramps(url: str, ports: list[int], args: argparse.Namespace, tmp: Path) -> None:
    """A ramp per worker count in `--workers`, one after the other on the same
    Redis (each under a prefix of its own), then how they scale."""
    done: dict[int, list[Window]] = {}
    for count in args.workers:
        if len(args.workers) > 1:
            print(f"-- {count} worker{'s' if count > 1 else ''}", flush=True)
        done[count] = await ramp(url, ports, args, tmp, count)
    if len(done) > 1:
        for said in scaling(done):
            print(said)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--redis", help="a Redis URL to use (default: start a redis-server here)")
    p.add_argument("--cluster", action="store_true", help="start a Redis Cluster and use it")
    p.add_argument(
        "--steps",
        type=lambda s: [int(x) for x in s.split(",")],
        default=[25, 50, 100, 150, 200, 300, 400, 600, 800, 1000],
    )
    p.add_argument(
        "--warm",
        type=float,
        default=20.0,
        help="seconds before measuring; new games start spread over them",
    )
    p.add_argument("--measure", type=float, default=20.0)
    p.add_argument("--interval", type=float, default=1.0, help="seconds between a game's inputs")
    p.add_argument(
        "--workers",
        type=lambda s: [int(x) for x in s.split(",")],
        default=[1],
        help="workers on the one Redis (CPU: their sum); 1,2 ramps one, then two, and"
        " prints the ratio of their knees",
    )
    p.add_argument(
        "--python",
        default=sys.executable,
        help="the workers' interpreter, with the project installed (default: this one);"
        " the driver stays on this one, so only the worker changes",
    )
    args = p.parse_args()
    print(machine())
    import tempfile

    tmp = Path(tempfile.mkdtemp(prefix="muldvarp-knee-"))
    if args.cluster:
        from tests.redis_cluster import start_cluster

        cluster = start_cluster()
        try:
            asyncio.run(ramps(cluster.url, cluster.ports, args, tmp))
        finally:
            cluster.stop()
        return
    with redis_url(args.redis) as url:
        port = urlsplit(url).port
        asyncio.run(ramps(url, [port] if port else [], args, tmp))


if __name__ == "__main__":
    from gameflow.games import register_all

    register_all()  # the composition root: the games this process plays

    main()
