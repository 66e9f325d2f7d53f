"""Idle campaigns at scale (issue #31, item 3): what N started Station
campaigns that nobody plays cost one `muldvarp serve` worker, on the embedded
store (SQLite) and on Redis.

Why a bench of its own: a campaign waits a day between deadlines, so a worker
holds thousands of games that do nothing, and whatever it spends on them
(its periodic resync reading every game) grows with N while the games don't
move. Measured per store, for each N (the store grows from one N to the next):

- the store's bytes per game (SQLite: the file's pages in use; Redis:
  `used_memory`), after the fill;
- the time a new worker takes to serve (`/healthz` answers) and to have its
  deadlines armed (the embedded scheduler's log line; on Redis the leader's
  `armed` line);
- the p99 lateness of deadlines while 1 % of the games fall due a minute
  (`--fire` of them, spread evenly over `--window` seconds): when each
  deadline's log entry says it was applied, minus the instant it was due;
- then, the games quiet again, the worker's own CPU time over `--idle`
  seconds (/proc, user + system: several resyncs of
  `MULDVARP_SCHEDULER_RESYNC`) as a share of one core, Redis's too, and the
  worker's RSS.
The floor, in the same run and per store: the same worker on an empty store.

The games are real: each is made by the core (a Station game on campaign
pacing in Europe/Oslo, seven players joining by SMS identity, the host's
start) and committed through the store as the service commits it (create,
the host's binding and join code, then one commit per input with its log
entry, idempotency key, the join's binding and, where the store keeps a
deadline index, the state's next instant), many games at once. Their
windows close four to six hours after the fill, so no deadline or reminder
falls due while measuring, except for the 1 % the bench moves: their phase's
deadline is set to an instant of the window (the core only knows whole
minutes; a campaign's deadlines are the same kind of state).

    .venv/bin/python bench/campaign_scale.py                       # both stores
    .venv/bin/python bench/campaign_scale.py --store redis --games 1000,10000
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from adapters.sms.directory import player_id  # noqa: E402
from bench.common import machine, pct  # noqa: E402
from gameflow.core import actions as A  # noqa: E402
from gameflow.core.engine import apply, new_game  # noqa: E402
from gameflow.core.result import Accepted  # noqa: E402
from gameflow.core.state import Game  # noqa: E402
from service.calendar import zone_table  # noqa: E402
from service.games import _binds, log_entry  # noqa: E402
from tests.scale_workers import Worker, cpu_seconds, worker_env  # noqa: E402

try:  # the deadline index's instant, as bots/ wires the service (issue #31)
    from scheduler.plan import next_instant  # type: ignore[attr-defined, unused-ignore]
except ImportError:  # the code before the index: its commits take no instant
    next_instant = None

TZ = "Europe/Oslo"
NAMES = ("Kristoffer", "Ingeborg", "Sigurd", "Åse", "Bjørnar", "Solveig", "Torstein")
ID_KEY = "campaign-scale-id-key"
CODES = "ABCDEFGHJKMNPQRSTUVWXYZ"


def code_of(i: int) -> str:
    """A distinct six-letter join code per game (the service draws them)."""
    out = ""
    for _ in range(6):
        i, r = divmod(i, len(CODES))
        out += CODES[r]
    return out


def clock_at(t: float) -> str:
    return datetime.fromtimestamp(t, ZoneInfo(TZ)).strftime("%H:%M")


class Maker:
    """Started Station campaigns, made by the core at `now`."""

    def __init__(self, now: float) -> None:
        self.now = now
        self.table = zone_table(TZ, now)
        self.options = {
            "pacing": "campaign",
            "timezone": TZ,
            "quiet_hours": "",
            "campaign_mission": clock_at(now + 4 * 3600),
            "campaign_discussion": clock_at(now + 5 * 3600),
            "campaign_vote": clock_at(now + 6 * 3600),
        }

    def steps(self, i: int, due: float | None) -> tuple[Game, list[tuple[Game, A.Action, Game]]]:
        """Game i's initial state and its inputs: (before, input, after)."""
        host = player_id(f"+4740{i:06d}", ID_KEY)
        game = new_game("station", f"cs{i:08d}", host, f"seed-{i}", lang="en", options=self.options)
        first, steps = game, []
        actions: list[A.Action] = [
            A.Join(player_id(f"+479{i:06d}{p}", ID_KEY), None, name) for p, name in enumerate(NAMES)
        ]
        actions.append(A.Start(host, None, self.table))
        for action in actions:
            result = apply(game, action, self.now)
            assert isinstance(result, Accepted), result
            after = result.state
            if due is not None and isinstance(action, A.Start):
                # the 1 % whose deadline falls in the window (to the second); a
                # phase under 120 s gets no reminder (scheduler.plan)
                phase = after.phase._replace(deadline=due, started=max(self.now, due - 100))
                after = after._replace(phase=phase)
            steps.append((game, action, after))
            game = after
        return first, steps


async def commit_game(store: Any, maker: Maker, i: int, due: float | None) -> None:
    """One game as the service stores it (GameService.create_game, then submit)."""
    initial, steps = maker.steps(i, due)
    sid = f"SM{i:032x}"
    await store.claim(f"sms:{sid}", initial.id)
    assert await store.create(initial)
    await store.bind(initial.host, initial.id, initial.host)
    assert await store.claim_code(code_of(i), initial.id)
    for k, (before, action, after) in enumerate(steps):
        key = f"sms:{sid[:-2]}{k + 1:02x}"
        entry = log_entry(before, action, maker.now, key)
        more = {} if next_instant is None else {"due": next_instant(after)}
        done = await store.commit(
            initial.id, before.version, after, entry, key, _binds(action), **more
        )
        assert done.status.value == "ok", done


async def fill(store: Any, first: int, count: int, due: Callable[[int], float | None]) -> None:
    """Games first..first+count-1, 64 at once."""
    maker = Maker(time.time())
    todo = iter(range(first, first + count))

    async def lane() -> None:
        for i in todo:
            await commit_game(store, maker, i, due(i))

    await asyncio.gather(*(lane() for _ in range(64)))


def proc_status(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of a process, in KiB."""
    out = {}
    for row in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = row.partition(":")
        if name in ("VmRSS", "VmHWM"):
            out[name] = int(value.split()[0])
    return out


@dataclass
class Row:
    """One N of one store, as measured."""

    store: str
    games: int
    fill_s: float = 0.0
    bytes_per_game: float = 0.0
    serving_s: float = 0.0
    armed_s: float | None = None
    cpu: float = 0.0  # the worker's CPU over the idle window, share of one core
    redis_cpu: float | None = None
    rss_mib: float = 0.0
    hwm_mib: float = 0.0
    late: list[float] = field(default_factory=list)  # seconds, one per fired deadline
    due: int = 0  # deadlines that fell due in the window


class Store:
    """One store under test: made empty, filled, measured, and a worker on it."""

    def __init__(self, kind: str, tmp: Path, redis: str | None) -> None:
        self.kind = kind
        self.tmp = tmp
        self.url = redis or ""
        self.prefix = f"scale{uuid.uuid4().hex[:8]}:"
        self.path = tmp / f"{kind}-data" / "muldvarp.sqlite3"
        self.redis_pid: int | None = None
        self.base_bytes = 0

    def open(self) -> Any:
        if self.kind == "redis":
            from adapters.store.redis_store import RedisStore

            return RedisStore.from_url(self.url, prefix=self.prefix)
        from adapters.store.sqlite_store import SqliteStore

        self.path.parent.mkdir(exist_ok=True)
        # the fill without an fsync a commit (the worker opens it with FULL)
        return SqliteStore(str(self.path), synchronous="OFF")

    async def used(self) -> int:
        """Bytes the store holds now."""
        if self.kind == "redis":
            import redis.asyncio as aioredis

            client = aioredis.Redis.from_url(self.url)
            try:
                return int((await client.info("memory"))["used_memory"])
            finally:
                await client.aclose()
        if not self.path.exists():
            return 0
        db = sqlite3.connect(self.path)
        try:
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            pages = db.execute("PRAGMA page_count").fetchone()[0]
            free = db.execute("PRAGMA freelist_count").fetchone()[0]
            size = db.execute("PRAGMA page_size").fetchone()[0]
            return int((pages - free) * size)
        finally:
            db.close()

    def worker(self, resync: float) -> Worker:
        env = worker_env(self.url, self.prefix, LOG_LEVEL="INFO")
        env["MULDVARP_SCHEDULER_RESYNC"] = str(resync)
        if self.kind != "redis":
            env.pop("REDIS_URL")
        return Worker(self.kind, env, self.tmp)

    async def fired(self, ids: list[tuple[str, float]]) -> list[float]:
        """Lateness of each game's deadline entry (seconds), from the stored logs."""
        store = self.open()
        late = []
        try:
            for game_id, due in ids:
                for entry in await store.log(game_id):
                    if entry.get("do") == "advance":
                        late.append(float(entry["at"]) - due)
                        break
        finally:
            await store.close()
        return late


def armed(worker: Worker) -> bool:
    return any(line.startswith("armed ") or "games armed" in line for line in worker.lines)


async def measure(
    store: Store, row: Row, args: argparse.Namespace, fire_at: float, ids: list[tuple[str, float]]
) -> None:
    """Start a worker on the filled store, let the window's deadlines fire,
    then measure it idle; stop it."""
    t0 = time.monotonic()
    worker = store.worker(args.resync)
    try:
        await worker.ready(timeout=args.arm_timeout)
        row.serving_s = time.monotonic() - t0
        while not armed(worker) and time.monotonic() - t0 < args.arm_timeout:
            await asyncio.sleep(0.02)
        row.armed_s = time.monotonic() - t0 if armed(worker) else None
        if ids:
            await asyncio.sleep(max(0.0, fire_at + args.window + 5 - time.time()))
        else:
            await asyncio.sleep(2 * args.resync)  # the start's own work settles
        pid = worker.proc.pid
        c0, r0, w0 = cpu_seconds(pid), redis_cpu(store), time.monotonic()
        await asyncio.sleep(args.idle)
        c1, r1, w1 = cpu_seconds(pid), redis_cpu(store), time.monotonic()
        assert c0 is not None and c1 is not None, "the worker exited:\n" + "\n".join(worker.lines)
        row.cpu = (c1 - c0) / (w1 - w0)
        row.redis_cpu = None if r0 is None or r1 is None else (r1 - r0) / (w1 - w0)
        mem = proc_status(pid)
        row.rss_mib, row.hwm_mib = mem["VmRSS"] / 1024, mem["VmHWM"] / 1024
    finally:
        worker.stop()
    row.late = await store.fired(ids)
    row.due = len(ids)


def redis_cpu(store: Store) -> float | None:
    return None if store.redis_pid is None else cpu_seconds(store.redis_pid)


def firing_count(games: int, fire: float, window: float) -> int:
    """Games due in the window: `fire` of them a minute, at least one."""
    return max(1, round(games * fire * window / 60))


async def ramp(store: Store, args: argparse.Namespace) -> list[Row]:
    rows = [Row(store.kind, 0)]
    store.base_bytes = await store.used()
    await measure(store, rows[0], args, 0.0, [])  # the floor: no games at all
    have = 0
    for n in args.games:
        row = Row(store.kind, n)
        k = firing_count(n, args.fire, args.window)
        t0 = time.monotonic()
        opened = store.open()
        try:
            await fill(opened, have, n - have - k, lambda i: None)
            fire_at = time.time() + args.lead
            dues = {have + (n - have - k) + j: fire_at + args.window * j / k for j in range(k)}
            await fill(opened, n - k, k, dues.get)
        finally:
            await opened.close()
        row.fill_s = time.monotonic() - t0
        have = n
        row.bytes_per_game = (await store.used() - store.base_bytes) / n
        ids = [(f"cs{i:08d}", due) for i, due in dues.items()]
        await measure(store, row, args, fire_at, ids)
        rows.append(row)
        print(line(row, rows[0]), flush=True)
    return rows


def line(row: Row, floor: Row) -> str:
    """One markdown row of the table."""
    late = [x * 1000 for x in row.late]
    lat = (
        f"{len(late)}/{row.due} | {pct(late, 0.5) / 1000:.0f} | {pct(late, 0.99) / 1000:.0f}"
        f" | {max(late):.0f}"
        if late
        else f"0/{row.due} | - | - | -"
    )
    redis = "-" if row.redis_cpu is None else f"{row.redis_cpu:.2%}"
    armed = "-" if row.armed_s is None else f"{row.armed_s:.1f}"
    return (
        f"| {row.store} | {row.games:,} | {row.fill_s:.0f} | {row.bytes_per_game:,.0f} |"
        f" {row.serving_s:.1f} | {armed} | {row.cpu:.2%} | {row.cpu / max(floor.cpu, 1e-9):.1f}x"
        f" | {redis} | {row.rss_mib:.0f} ({row.hwm_mib:.0f}) | {lat} |"
    )


HEADER = (
    "| store | games | fill s | store bytes a game | serving s | armed s | worker idle CPU"
    " | × floor | Redis idle CPU | RSS MiB (peak) | fired | lateness p50 ms | p99 ms | max ms |"
)


async def amain(args: argparse.Namespace, tmp: Path) -> None:
    from tests.redis_server import start_server, stop_server

    for kind in args.store:
        server = None
        if kind == "redis" and args.redis is None:
            url, proc, folder = start_server()
            server = (proc, folder)
        store = Store(kind, tmp, url if server else args.redis)
        if server:
            store.redis_pid = server[0].pid
        try:
            print(HEADER, flush=True)
            rows = await ramp(store, args)
            floor = rows[0]
            print(
                f"floor ({kind}, a worker on an empty store): serving in {floor.serving_s:.1f} s,"
                f" idle CPU {floor.cpu:.2%} of a core, RSS {floor.rss_mib:.0f} MiB", flush=True
            )  # fmt: skip
            for said in goals(rows[1:], floor):
                print(f"  {said}", flush=True)
        finally:
            if server:
                stop_server(*server)
            elif kind == "redis":
                from tests.store_helpers import drop_prefix

                await drop_prefix(store.url, store.prefix)


def goals(rows: list[Row], floor: Row) -> list[str]:
    """Issue #31's goals, judged on the largest N measured (and on all, for
    idle CPU not growing with N)."""
    if not rows:
        return []
    big = rows[-1]
    late = pct(big.late, 0.99) / 1000 if big.late else None
    said = [
        f"{big.games:,} idle campaigns: worker idle CPU {big.cpu:.2%} of a core (goal < 2 %):"
        f" {'met' if big.cpu < 0.02 else 'NOT met'}",
        f"p99 deadline lateness {'-' if late is None else f'{late:.3f} s'} (goal < 1 s):"
        f" {'met' if late is not None and late < 1 and len(big.late) == big.due else 'NOT met'}",
        f"store bytes a game {big.bytes_per_game:,.0f} (goal < 8 KiB):"
        f" {'met' if big.bytes_per_game < 8192 else 'NOT met'}",
        f"a new worker armed in {'-' if big.armed_s is None else f'{big.armed_s:.1f} s'}"
        f" (goal < 10 s): {'met' if big.armed_s is not None and big.armed_s < 10 else 'NOT met'}",
    ]
    if len(rows) > 1:
        small = rows[0]
        # noise: the floor's own idle CPU, or half a percent of a core, whichever is more
        noise = max(floor.cpu, 0.005)
        grew = big.cpu - small.cpu
        said.append(
            f"idle CPU from {small.games:,} to {big.games:,} games: {small.cpu:.2%} -> {big.cpu:.2%}"
            f" (goal: no growth beyond noise, {noise:.2%}): {'met' if grew <= noise else 'NOT met'}"
        )
    return said


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--store", type=lambda s: s.split(","), default=["sqlite", "redis"])
    p.add_argument(
        "--games", type=lambda s: [int(x) for x in s.split(",")], default=[1000, 10000, 100000]
    )
    p.add_argument("--redis", help="a Redis URL to use (default: start a redis-server here)")
    p.add_argument("--idle", type=float, default=60.0, help="seconds the idle CPU is read over")
    p.add_argument("--window", type=float, default=60.0, help="seconds the deadlines fall in")
    p.add_argument("--fire", type=float, default=0.01, help="games due a minute, a share")
    p.add_argument("--lead", type=float, default=20.0, help="from the fill to the window")
    p.add_argument("--resync", type=float, default=5.0, help="MULDVARP_SCHEDULER_RESYNC")
    p.add_argument("--arm-timeout", type=float, default=300.0)
    args = p.parse_args()
    try:  # the composition root: the games this process plays (issue #30)
        from gameflow.games import register_all  # type: ignore[attr-defined, unused-ignore]
    except ImportError:  # the code before the registry knew its games at import
        pass
    else:
        register_all()
    print(machine())
    print(
        f"stores {', '.join(args.store)}; games {', '.join(f'{n:,}' for n in args.games)};"
        f" resync every {args.resync:g} s; idle CPU over {args.idle:g} s;"
        f" {args.fire:.0%} of the games due a minute over {args.window:g} s", flush=True
    )  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="muldvarp-scale-") as tmp:
        asyncio.run(amain(args, Path(tmp)))


if __name__ == "__main__":
    from gameflow.games import register_all

    register_all()  # the composition root: the games this process plays

    main()
