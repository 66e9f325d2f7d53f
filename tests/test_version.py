"""`muldvarp --version` says which build runs (the commit, and whether the core
is compiled), where there is no git too; and `serve`'s log does not carry a
line per Bot API call (httpx logs each request at INFO)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bots.version import commit
from tests.rate_helpers import fake_in_thread
from tests.scale_workers import Worker, worker_env

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    base = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, *args],
        capture_output=True, text=True, timeout=120, check=False, cwd=ROOT, env=env or base,
    )  # fmt: skip


def test_version_names_the_commit_and_the_core() -> None:
    head = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short=12", "HEAD"],
        capture_output=True, text=True, check=False,
    ).stdout.strip()  # fmt: skip
    if not head:
        pytest.skip("not a git checkout")
    out = _run("-m", "bots.cli", "--version")
    assert out.returncode == 0, out.stderr
    line = out.stdout.strip()
    assert line.startswith("muldvarp ") and f"(commit {head}" in line, line
    assert line.endswith(", core interpreted)"), line


def test_without_git_the_commit_is_unknown_and_nothing_fails(tmp_path: Path) -> None:
    assert commit(build=tmp_path / "build.json", root=tmp_path) == "unknown"  # no checkout
    env = {"PATH": str(tmp_path), "PYTHONPATH": str(ROOT)}  # no git on the path
    out = _run("-m", "bots.cli", "--version", env=env)
    assert out.returncode == 0, out.stderr
    assert "(commit unknown, core interpreted)" in out.stdout


def test_a_built_package_carries_its_commit(tmp_path: Path) -> None:
    """setup.py's build writes bots/build.json into the built package (from
    MULDVARP_COMMIT, as the image's build argument gives it), never into the
    sources; the version reads it before asking git."""
    env = {**os.environ, "MULDVARP_COMMIT": "0123abcd4567"}
    out = _run("setup.py", "-q", "build_py", "-d", str(tmp_path / "lib"), env=env)
    assert out.returncode == 0, out.stderr
    built = tmp_path / "lib" / "bots" / "build.json"
    assert commit(build=built, root=tmp_path) == "0123abcd4567"
    assert not (ROOT / "bots" / "build.json").exists()


@pytest.mark.telegram
def test_serve_logs_no_line_per_bot_api_call(tmp_path: Path) -> None:
    """Telegram by long polling at LOG_LEVEL=INFO: dozens of getUpdates calls,
    no log line for any of them (before, httpx wrote one each)."""
    from tests.fake_telegram import TOKEN, FakeBotApi

    with fake_in_thread(FakeBotApi()) as api:
        env = worker_env(
            "", "t:", LOG_LEVEL="INFO", TELEGRAM_BOT_TOKEN=TOKEN, TELEGRAM_API_BASE_URL=api.base_url
        )
        worker = Worker("poll", env, tmp_path)
        try:
            asyncio.run(worker.ready())
            deadline = time.monotonic() + 20
            while sum(c.method == "getUpdates" for c in api.calls) < 5:
                assert time.monotonic() < deadline, worker.lines
                time.sleep(0.1)
        finally:
            worker.stop()
    assert any("telegram: live (polling)" in line for line in worker.lines), worker.lines
    assert not [line for line in worker.lines if "getUpdates" in line or "HTTP Request" in line]
