"""bench/stack_floor.py, the chosen stack's own CPU per SMS input (issue #20):
its texts are spread as asked, and a short run goes through all three layers
with every text it meant reaching the fake Twilio (the bench checks that
itself and fails otherwise). Nothing here is timed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bench.stack_floor import texts_for
from tests.store_helpers import redis_url_or_fail

ROOT = Path(__file__).resolve().parent.parent


def test_texts_are_spread_evenly_and_add_up() -> None:
    assert [texts_for(i, 1.8) for i in range(5)] == [2, 2, 1, 2, 2]
    assert sum(texts_for(i, 1.8) for i in range(1000)) == 1800
    assert {texts_for(i, 1.8) for i in range(1000)} == {1, 2}
    assert sum(texts_for(i, 0.0) for i in range(100)) == 0
    assert [texts_for(i, 3.0) for i in range(3)] == [3, 3, 3]


def test_a_short_run_measures_every_layer() -> None:
    redis_url = redis_url_or_fail()
    run = subprocess.run(
        [sys.executable, "bench/stack_floor.py", "--redis", redis_url, "--rate", "40",
         "--seconds", "1", "--trips", "3", "--texts", "1.5"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    lines = [line for line in run.stdout.splitlines() if "CPU ms an input" in line]
    assert [line.split()[0] for line in lines] == ["webhook", "+", "+"]
    assert "+ 3 Redis round trips" in lines[1] and "+ 1.5 texts through the SDK" in lines[2]
    assert all("(40 inputs at 40/s)" in line for line in lines)
