"""TV status page benchmark: 500 concurrent SSE viewers on one process, fan-out
latency from a state change to the last viewer (goal: p99 under 200 ms).

The benchmark itself lives beside the page (`adapters/tv/bench.py`); this is its
entry under bench/. Run: `ulimit -n 4096; .venv/bin/python bench/statuspage.py
--viewers 500 --changes 40`. Figures: docs/performance.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from adapters.tv.bench import main

if __name__ == "__main__":
    from gameflow.games import register_all

    register_all()  # the composition root: the games this process plays

    raise SystemExit(main())
