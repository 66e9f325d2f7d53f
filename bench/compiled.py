"""The compiled core for benchmarks: the wheel the production image installs
(`MULDVARP_COMPILE=1`, setup.py), built once per version of the sources and
installed into `bench/.compiled/<hash>/`, so a benchmark can measure the core
that runs in production next to the interpreted one.

`use(argv)` builds it if needed and runs the calling benchmark again in a new
process with that folder first on its path (`MULDVARP_BENCH_SITE`); `site()`
is what a benchmark puts on its path before importing gameflow.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(__file__).resolve().parent / ".compiled"
ENV = "MULDVARP_BENCH_SITE"


def _digest() -> str:
    h = hashlib.sha256()
    for path in sorted([*(ROOT / "gameflow").rglob("*.py"), ROOT / "setup.py"]):
        h.update(str(path.relative_to(ROOT)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def build() -> Path:
    """The folder holding the compiled core of the current sources."""
    target = CACHE / _digest()
    if (target / "gameflow").is_dir():
        return target
    print(f"building the compiled core into {target} (a few minutes)...", file=sys.stderr)
    with tempfile.TemporaryDirectory() as work:
        src = Path(work) / "src"
        shutil.copytree(ROOT / "gameflow", src / "gameflow")
        for name in ("setup.py", "pyproject.toml", "README.md"):
            shutil.copy(ROOT / name, src / name)
        for package in ("adapters", "bots", "scheduler"):  # named by pyproject's package list
            (src / package).mkdir()
            (src / package / "__init__.py").write_text("")
        pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
        env = {**os.environ, "MULDVARP_COMPILE": "1"}
        wheels = Path(work) / "wheels"
        subprocess.run(
            [*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(wheels), str(src)],
            check=True,
            env=env,
        )
        (wheel,) = wheels.glob("*.whl")
        staging = Path(work) / "site"
        subprocess.run(
            [*pip, "install", "--no-deps", "--target", str(staging), str(wheel)], check=True
        )
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(staging), target)
    return target


def use(argv: list[str]) -> None:
    """Run this benchmark again on the compiled core (never returns)."""
    env = {**os.environ, ENV: str(build())}
    os.execve(sys.executable, [sys.executable, *argv], env)


def site() -> str | None:
    return os.environ.get(ENV)


def describe() -> str:
    import gameflow.core.engine as engine

    compiled = not str(engine.__file__).endswith(".py")
    return "compiled (mypyc)" if compiled else "interpreted"
