"""Build script: the pure-Python package by default, and with
`MULDVARP_COMPILE=1` the game core (`gameflow`) compiled to C extensions by
mypyc, about 1.5 times as fast, with the same behaviour (the whole test suite
runs against it: tests/test_packaging.py). The production image builds it that
way. Leave it unset for an editable install: the compiled modules would be
built into the source tree and shadow the edited `.py` files.

The build also writes the commit it builds into the package (`bots/build.json`,
from `MULDVARP_COMMIT` or git), which `muldvarp --version` names.
Everything else about the package is in pyproject.toml. mypyc (part of mypy)
is only needed for a compiled build: the build asks for it then, and only then.
"""

from __future__ import annotations

import os
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

COMPILE = os.environ.get("MULDVARP_COMPILE", "") == "1"

# Modules left interpreted: the actions (frozen dataclasses with slots, which
# mypyc classes can't be), the command line and the catalog tool (run once,
# not worth compiling), and the Resistance reasoning bots' deduction (an
# internal mypyc error on it; the bots run in the simulator, never in serve).
INTERPRETED = {"__main__.py", "actions.py", "catalogs.py"}
INTERPRETED_PATHS = {"gameflow/games/resistance/deduce.py"}


def compiled_modules() -> list[str]:
    root = Path(__file__).resolve().parent
    return sorted(
        str(path.relative_to(root))
        for path in (root / "gameflow").rglob("*.py")
        if path.name not in INTERPRETED and str(path.relative_to(root)) not in INTERPRETED_PATHS
    )


def ext_modules() -> list[object]:
    if not COMPILE:
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:  # the build's first pass, before mypy is installed
        return []
    # mypy reads the project's settings (strict on gameflow); the sections
    # for the adapters' libraries are unused when only gameflow is checked.
    args = ["--no-warn-unused-configs", *compiled_modules()]
    return list(mypycify(args, opt_level="3"))


def built_commit() -> str | None:
    """The commit being built: `MULDVARP_COMMIT` (the image's build argument),
    else git's, when building from a checkout; None when neither says."""
    given = os.environ.get("MULDVARP_COMMIT", "").strip()
    if given:
        return given
    import subprocess

    root = Path(__file__).resolve().parent
    if not (root / ".git").exists():
        return None
    try:
        out = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short=12", "HEAD"],
            capture_output=True, text=True, timeout=10, check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


class BuildWithCommit(build_py):
    """Writes `bots/build.json` (the commit, and whether the core was compiled)
    into the built package, never into the sources: `muldvarp --version`
    (bots/version.py) reads it. An editable install reads git instead."""

    def run(self) -> None:
        super().run()
        commit = built_commit()
        if commit is None or getattr(self, "editable_mode", False):
            return
        import json

        target = Path(self.build_lib) / "bots" / "build.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps({"commit": commit, "compiled": COMPILE}) + "\n")


setup(
    cmdclass={"build_py": BuildWithCommit},
    ext_modules=ext_modules(),
    # Asked for by the build (PEP 517) before it builds; only when compiling.
    setup_requires=["mypy>=1.10"] if COMPILE else [],
)
