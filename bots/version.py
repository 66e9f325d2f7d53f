"""Which build runs, for `muldvarp --version` and bug reports: the package's
version, the commit it was built from, and whether the game core runs compiled
by mypyc (the production image, `MULDVARP_COMPILE=1`) or interpreted.

The commit comes from `bots/build.json`, which a built wheel carries (setup.py
writes it from `MULDVARP_COMMIT` or from git at build time), else from git
when running in a checkout (an editable install; `-dirty` with uncommitted
changes), else it is "unknown". Nothing here fails: no git, no repository or a
slow git all read as "unknown".
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = Path(__file__).resolve().parent / "build.json"


def package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("muldvarp")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "(not installed)"


def _git(root: Path, *args: str) -> str | None:
    try:
        out = subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True, text=True, timeout=5, check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):  # no git, or it hung
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def checkout_commit(root: Path = ROOT) -> str | None:
    """The short commit of the checkout at `root` (with "-dirty" when files
    differ from it), or None outside a git checkout."""
    if not (root / ".git").exists():
        return None
    head = _git(root, "rev-parse", "--short=12", "HEAD")
    if not head:
        return None
    changed = _git(root, "status", "--porcelain", "--untracked-files=no")
    return head + ("-dirty" if changed else "")


def commit(build: Path = BUILD, root: Path = ROOT) -> str:
    try:
        built = json.loads(build.read_text()).get("commit")
    except (OSError, ValueError, AttributeError):
        built = None
    if isinstance(built, str) and built:
        return built
    return checkout_commit(root) or "unknown"


def core_compiled() -> bool:
    """Whether the game core was imported from mypyc's C extensions."""
    import gameflow.core.engine as engine

    return not str(engine.__file__).endswith(".py")


def describe() -> str:
    """`0.1.0 (commit 4919a47c0d12, core compiled by mypyc)`, say."""
    core = "core compiled by mypyc" if core_compiled() else "core interpreted"
    return f"{package_version()} (commit {commit()}, {core})"
