"""The package as deploy/Dockerfile installs it: built as a wheel from the five
package folders with the game core compiled by mypyc (`MULDVARP_COMPILE=1`),
installed somewhere else, and run from there.

The Docker image can't be built on the test machine (no container engine, and
its base image comes from a registry we don't reach), so this checks the part
of the image that is ours: the wheel must carry every file the product reads at
run time (the .po catalogs, the TV page's templates and static files, the hero
cards) and the compiled core; the core's whole test suite must pass against
the compiled modules; and the installed `muldvarp` must play a game and serve
its ASGI app (`/healthz`, `/metrics`, the TV page's static files) with nothing
from the checkout on its path. The dependencies come from the test environment.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import zipfile
from pathlib import Path

import httpx
import pytest

from tests.redis_server import ENV, test_redis_url
from tests.test_setup_sms_server import _free_port, wait_healthy

pytestmark = pytest.mark.deploy

ROOT = Path(__file__).resolve().parents[1]
SKIP = shutil.ignore_patterns(
    ".venv", ".git", "__pycache__", ".pytest_cache", ".hypothesis", ".mypy_cache",
    ".ruff_cache", "build", "dist", "*.egg-info", "data", "tests", "bench", "docs",
)  # fmt: skip


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from a copy of the tree (the build writes into its source
    folder) and installed, without dependencies, into a folder of its own."""
    work = tmp_path_factory.mktemp("pkg")
    src = work / "src"
    shutil.copytree(ROOT, src, ignore=SKIP)
    wheels = work / "wheels"
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run(
        [*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(wheels), str(src)],
        check=True,
        cwd=work,
        env={**os.environ, "MULDVARP_COMPILE": "1"},
    )
    (wheel,) = wheels.glob("muldvarp-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    ext = f".cpython-{sys.version_info.major}{sys.version_info.minor}-"
    for module in COMPILED:
        assert any(n.startswith(f"{module}{ext}") for n in names), module
    for lang in ("nb", "sr", "en"):
        for domain in ("core", "chat", "tv", "telegram", "sms"):
            assert f"gameflow/i18n/locales/{lang}/LC_MESSAGES/{domain}.po" in names
        for game in ("station", "resistance", "traitors", "werewolf"):  # in the game's package
            assert f"gameflow/games/{game}/locales/{lang}/LC_MESSAGES/{game}.po" in names
        assert f"gameflow/games/resistance/heroes/heroes_{lang}.txt" in names
    for page in (ROOT / "adapters/tv/templates").iterdir():
        assert f"adapters/tv/templates/{page.name}" in names
    assert {"adapters/tv/static/tv.css", "adapters/tv/static/tv.js"} <= names
    site = work / "site"
    subprocess.run([*pip, "install", "--no-deps", "--target", str(site), str(wheel)], check=True)
    return site


# The core's hot modules, which the compiled build must carry as extensions.
COMPILED = [
    "gameflow/core/engine",
    "gameflow/core/events",
    "gameflow/core/state",
    "gameflow/core/codec",
    *(f"gameflow/games/{g}/{m}" for g in ("station", "resistance", "traitors") for m in ("inputs", "flow", "views")),
]  # fmt: skip


# Tests whose workers run from the checkout (PYTHONPATH is the checkout's).
FROM_THE_CHECKOUT = [
    "test_scale.py",
    "test_telegram_outbox_kill.py",
    "test_sms_outbox_kill.py",
    "test_ratelimit_workers.py",
]


def test_the_tests_pass_against_the_compiled_core(installed: Path, tmp_path: Path) -> None:
    """mypyc checks types at run time where Python does not: the tests of the
    core, the three games, the stores and every adapter run again on the
    compiled modules (all but these packaging tests, and the tests whose
    subject runs in worker processes started from the checkout: the scale
    test, the outbox kill tests and the rate-limit workers. Run here they
    would test the same uncompiled code again, for minutes of CI)."""
    assert all((ROOT / "tests" / t).is_file() for t in FROM_THE_CHECKOUT), FROM_THE_CHECKOUT
    env = _env(installed, CI=os.environ.get("CI", ""))
    env["PYTHONPATH"] = f"{installed}{os.pathsep}{ROOT}"  # gameflow from the wheel, tests from here
    env.pop("PYTHONSAFEPATH")
    if shutil.which("redis-server") or os.environ.get(ENV):
        env[ENV] = test_redis_url()  # the compiled run shares this run's own Redis
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-m", "not deploy",
         *(a for t in FROM_THE_CHECKOUT for a in ("--deselect", f"tests/{t}")),
         "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(ROOT), str(ROOT / "tests")],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=1200,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "gameflow: compiled (mypyc)" in run.stdout, run.stdout[:2000]
    passed = re.search(r"(\d+) passed", run.stdout)
    assert passed is not None and int(passed.group(1)) > 500, run.stdout[-2000:]
    assert " failed" not in run.stdout
    if os.environ.get("CI"):  # services missing make tests fail there, never skip
        assert " skipped" not in run.stdout, run.stdout[-2000:]


def _env(site: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "TWILIO_"))}
    env.pop("REDIS_URL", None)
    env.update(PYTHONPATH=str(site), PYTHONSAFEPATH="1", **extra)
    return env


def test_the_installed_package_runs_without_the_checkout(installed: Path, tmp_path: Path) -> None:
    where = subprocess.run(
        [
            sys.executable,
            "-c",
            "import bots, gameflow, service; print(bots.__file__, gameflow.__file__, service.__file__)",
        ],
        env=_env(installed),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert where.count(str(installed)) == 3, where
    demo = subprocess.run(
        [
            str(installed / "bin" / "muldvarp"),
            "demo",
            "--players",
            "5",
            "--seed",
            "pkg",
            "--lang",
            "nb",
        ],
        env=_env(installed),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert demo.returncode == 0, demo.stderr
    assert "Runde 1" in demo.stdout  # the Norwegian catalog was found in the package


def test_the_installed_serve_answers_and_stops_cleanly(installed: Path, tmp_path: Path) -> None:
    port = _free_port()
    env = _env(installed, MULDVARP_PORT=str(port), DATA_DIR=str(tmp_path / "data"))
    proc = subprocess.Popen(
        [str(installed / "bin" / "muldvarp"), "serve"],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        base = f"http://127.0.0.1:{port}"

        def log() -> str:  # its output once it died (while it runs, reading it would wait)
            return "serve did not come up" if proc.poll() is None else proc.communicate()[0]

        wait_healthy(proc, port, log, seconds=60)
        assert "muldvarp" in httpx.get(f"{base}/metrics", timeout=5).text
        css = httpx.get(f"{base}/tv/static/tv.css", timeout=5)
        assert css.status_code == 200 and len(css.text) > 100
    finally:
        proc.send_signal(signal.SIGTERM)
        out = proc.communicate(timeout=30)[0]
    # uvicorn drains, shuts the app down, then re-raises the signal it caught.
    assert proc.returncode in (0, -signal.SIGTERM), out
    assert "Application shutdown complete" in out
