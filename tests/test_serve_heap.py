"""`muldvarp serve` settles its heap before it serves (bots/serve.py,
`settle_heap`): what the worker built at start (the libraries' modules,
classes and functions, the runtime) is frozen out of the cyclic collector's
sight, so a full collection under load walks only what the games made since
(bench/knee.py measured 40-60 ms full collections shrink to 10-13 ms).

The real `serve` on the embedded store, with the server's run replaced by a
recorder; the freeze itself in a process of its own, never in this one.
"""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bots import serve, streams
from bots.settings import load_settings

pytestmark = pytest.mark.deploy


def test_serve_settles_the_heap_right_before_it_serves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    steps: list[str] = []
    monkeypatch.setattr(serve, "settle_heap", lambda: steps.append("settle"))

    def recorded(server: object, app: Any) -> None:
        steps.append("run")
        asyncio.run(app.app.state.runtime.store.close())  # as the lifespan's end would

    monkeypatch.setattr(streams, "run", recorded)
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        settings = load_settings(None, DATA_DIR=str(tmp_path / "data"))
        assert serve.serve(settings) == 0
    finally:
        root.handlers[:], root.level = handlers, level
    assert steps == ["settle", "run"]


def test_settling_freezes_what_was_built_at_start() -> None:
    code = (
        "import gc, bots.app, adapters.sms.webhook\n"
        "from bots.serve import settle_heap\n"
        "before = gc.get_freeze_count()\n"
        "settle_heap()\n"
        "print(before, gc.get_freeze_count(), len(gc.get_objects()))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout.split()
    before, frozen, left = (int(x) for x in out)
    assert before == 0
    assert frozen > 10_000  # the imported libraries' objects
    assert left < frozen // 10  # what the collector still walks: next to nothing
