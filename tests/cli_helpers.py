"""The project's command lines run from tests as a user runs them: `python -m
<module> <args>` in a process of its own, its output read as text."""

from __future__ import annotations

import subprocess
import sys


def cli(*args: str) -> str:
    """The standard output of `python -m *args`, which must exit 0 within a
    minute (else its standard error says why)."""
    out = subprocess.run(
        [sys.executable, "-m", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout
