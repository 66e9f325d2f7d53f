"""`muldvarp export` finds the games `serve` made, from the same settings
(`.env`, DATA_DIR, MULDVARP_PREFIX), by the join code a host was shown, and
creates nothing where there is no store."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bots.app import open_store
from bots.settings import load_settings
from gameflow.core import actions as A
from service.games import GameService
from tests.store_helpers import FakeClock, run

pytestmark = pytest.mark.store


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATA_DIR", "REDIS_URL")}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parent.parent)
    return subprocess.run(
        [sys.executable, "-m", "bots.cli", *args],
        capture_output=True, text=True, timeout=60, check=False, cwd=cwd, env=env,
    )  # fmt: skip


def test_export_reads_serves_settings_and_takes_the_join_code(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("DATA_DIR=night\n")
    settings = load_settings(str(tmp_path / ".env"), DATA_DIR=str(tmp_path / "night"))

    async def host() -> str:
        store = open_store(settings)
        try:
            service = GameService(store, clock=FakeClock())
            created = await service.create_game("station", "tg:1", lang="en")
            for i in range(5):
                await service.submit(created.game.id, A.Join(f"tg:{10 + i}", name=f"P{i}"))
            await service.submit(created.game.id, A.Start("tg:1"))
            assert created.code is not None
            return created.code
        finally:
            await store.close()

    code = run(host())
    out = _cli("export", code.lower(), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    script = json.loads(out.stdout)
    assert script["game"] == "station" and len(script["players"]) == 5


def test_export_without_a_store_says_so_and_creates_nothing(tmp_path: Path) -> None:
    out = _cli("export", "ABCD", cwd=tmp_path)
    assert out.returncode == 1
    assert "no games stored" in out.stderr and "Traceback" not in out.stderr
    assert list(tmp_path.iterdir()) == []
    out = _cli("export", "ABCD", "--store", str(tmp_path / "x.sqlite3"), cwd=tmp_path)
    assert out.returncode == 1 and "no store at" in out.stderr
    assert list(tmp_path.iterdir()) == []


def test_version_and_help() -> None:
    out = _cli("--version", cwd=Path.cwd())
    assert out.returncode == 0 and out.stdout.startswith("muldvarp ")
    out = _cli("--help", cwd=Path.cwd())
    assert "as they land" not in out.stdout
