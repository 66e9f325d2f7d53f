"""bench/campaign_scale.py, idle campaigns at scale (issue #31): the goals'
reading on synthetic rows, and a tiny run on both stores whose table has a
row per N, each with every game's deadline fired, a sane CPU share and
bytes per game. Nothing here is timed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bench.campaign_scale import Row, code_of, firing_count, goals
from tests.store_helpers import redis_url_or_fail

ROOT = Path(__file__).resolve().parent.parent


def test_codes_are_distinct_and_firing_is_a_share_a_minute() -> None:
    assert len({code_of(i) for i in range(30_000)}) == 30_000
    assert firing_count(100_000, 0.01, 60.0) == 1000
    assert firing_count(10_000, 0.01, 120.0) == 200
    assert firing_count(20, 0.01, 5.0) == 1  # never none


def test_the_goals_are_read_on_the_largest_n() -> None:
    floor = Row("redis", 0, cpu=0.004)
    small = Row("redis", 1000, cpu=0.010, bytes_per_game=6000.0, armed_s=1.0)
    small.late, small.due = [0.01] * 10, 10
    big = Row("redis", 100_000, cpu=0.012, bytes_per_game=7000.0, armed_s=4.0)
    big.late, big.due = [0.02] * 990 + [0.5] * 10, 1000
    said = goals([small, big], floor)
    assert said[0] == "100,000 idle campaigns: worker idle CPU 1.20% of a core (goal < 2 %): met"
    assert said[1] == "p99 deadline lateness 0.500 s (goal < 1 s): met"
    assert said[2].endswith("7,000 (goal < 8 KiB): met")
    assert said[3] == "a new worker armed in 4.0 s (goal < 10 s): met"
    assert said[4].endswith("1.00% -> 1.20% (goal: no growth beyond noise, 0.50%): met")
    big.cpu, big.armed_s, big.bytes_per_game = 0.18, None, 9000.0
    big.late = big.late[:-1]  # one deadline never fired
    said = goals([small, big], floor)
    assert [s.rsplit(": ", 1)[1] for s in said] == ["NOT met"] * 5
    assert goals([], floor) == []


def test_a_tiny_run_fills_fires_and_measures_both_stores() -> None:
    redis_url_or_fail()  # a redis-server to start (the bench starts its own: bytes of its own)
    run = subprocess.run(
        [sys.executable, "bench/campaign_scale.py", "--games", "30",
         "--idle", "1", "--window", "2", "--lead", "6", "--resync", "1"],
        cwd=ROOT, capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    rows = [line.split("|")[1:-1] for line in run.stdout.splitlines() if line.startswith("| ")]
    rows = [[cell.strip() for cell in row] for row in rows if row[0].strip() != "store"]
    assert [(r[0], r[1]) for r in rows] == [("sqlite", "30"), ("redis", "30")]
    for row in rows:
        assert row[10] == "1/1", row  # the one game due in the window fired
        assert 0 <= float(row[13]) < 10_000, row  # its lateness, ms
        assert 0 <= float(row[6].rstrip("%")) < 200, row  # the worker's CPU, % of a core
        assert 2_000 < float(row[3].replace(",", "")) < 100_000, row  # bytes a game
    assert run.stdout.count("idle campaigns: worker idle CPU") == 2
