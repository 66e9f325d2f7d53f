"""Build script: the pure-Python package by default, and with
`MULDVARP_COMPILE=1` the game core (`gameflow`) compiled to C extensions by
mypyc, about 1.5 times as fast, with the same behaviour (the whole test suite
runs against it: tests/test_packaging.py). The production image builds it that
way. Leave it unset for an editable install: the compiled modules would be
built into the source tree and shadow the edited `.py` files.

Everything else about the package is in pyproject.toml. mypyc (part of mypy)
is only needed for a compiled build: the build asks for it then, and only then.
"""

from __future__ import annotations

import os
from pathlib import Path

from setuptools import setup

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


setup(
    ext_modules=ext_modules(),
    # Asked for by the build (PEP 517) before it builds; only when compiling.
    setup_requires=["mypy>=1.10"] if COMPILE else [],
)
