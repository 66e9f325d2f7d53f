"""The layers point one way, read from every production module's imports.

    gameflow  <-  service  <-  adapters   <-  bots
                           <-  scheduler  <-

The core (`gameflow`) does no I/O and imports nothing of ours but itself. The
game service (`service`: apply, commit, idempotency, its ports) sits on the
core alone, with no third-party library and no network, database or process
module, so the channels and the scheduler share one path into a game. The
adapters implement the service's ports and never reach up into the scheduler
or the wiring; the scheduler knows the service and its own ports, never the
adapters. `bots` only wires and runs: nothing imports it.

The imports are parsed with `ast` (every `import`, at module level, inside a
function or under TYPE_CHECKING alike), so a name in a comment or a string is
never taken for one. The checker is tested on synthetic trees, each with one
bad import, and on a copy of the real tree with one import added.
"""

from __future__ import annotations

import ast
import re
import shutil
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# What each layer may import of ours (besides itself).
MAY_IMPORT: dict[str, frozenset[str]] = {
    "gameflow": frozenset(),
    "service": frozenset({"gameflow"}),
    "adapters": frozenset({"gameflow", "service"}),
    "scheduler": frozenset({"gameflow", "service"}),  # its ports; bots wires adapters in
    "bots": frozenset({"gameflow", "service", "adapters", "scheduler"}),
}
LAYERS = tuple(MAY_IMPORT)
# Third-party libraries a layer may import: None is any.
THIRD_PARTY: dict[str, frozenset[str] | None] = {
    "gameflow": frozenset({"babel"}),  # the catalogs (a declared dependency)
    "service": frozenset(),
    "adapters": None,
    "scheduler": None,
    "bots": None,
}
# Standard-library modules that talk to the network, a database or a process:
# not in the core, not in the service.
IO_MODULES = frozenset(
    {"socket", "ssl", "selectors", "http", "urllib", "sqlite3", "subprocess", "smtplib", "ftplib"}
)
PURE = ("gameflow", "service")


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path, root: Path) -> Iterator[tuple[int, str]]:
    """(line, module) for every import in `path`; `from a import b` yields both
    `a` and `a.b` (b may be a submodule), relative imports resolved."""
    name = module_name(path, root)
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            yield node.lineno, module
            for alias in node.names:
                if alias.name != "*":
                    yield node.lineno, f"{module}.{alias.name}"


def violations(root: Path) -> list[str]:
    """Every import in the layers under `root` that breaks the rules above."""
    found: list[str] = []
    seen: set[tuple[str, int]] = set()
    for layer in LAYERS:
        for path in sorted((root / layer).rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            where = path.relative_to(root).as_posix()
            for line, module in imports(path, root):
                top = module.split(".")[0]
                why = None
                if top in LAYERS:
                    if top != layer and top not in MAY_IMPORT[layer]:
                        why = f"{layer} may not import {top}"
                elif top in sys.stdlib_module_names:
                    if layer in PURE and top in IO_MODULES:
                        why = f"{layer} does no I/O ({top})"
                else:
                    allowed = THIRD_PARTY[layer]
                    if allowed is not None and top not in allowed:
                        why = f"{layer} may not import the third-party {top}"
                if why and (where, line) not in seen:  # one report per import
                    seen.add((where, line))
                    found.append(f"{where}:{line} imports {module}: {why}")
    return found


# -- the real tree ------------------------------------------------------------------


def test_the_layers_point_one_way() -> None:
    assert violations(ROOT) == []


def test_every_package_is_a_layer_and_is_shipped() -> None:
    """A new top-level package must take its place in the layers, and the wheel,
    the image and mypy must all know it."""
    packages = {p.parent.name for p in ROOT.glob("*/__init__.py")}
    assert packages == set(LAYERS)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    included = project["tool"]["setuptools"]["packages"]["find"]["include"]
    assert {p.removesuffix("*") for p in included} == packages
    assert set(project["tool"]["mypy"]["files"]) == packages
    dockerfile = (ROOT / "deploy/Dockerfile").read_text()
    assert set(re.findall(r"^COPY (\w+) \1$", dockerfile, re.M)) == packages
    declared = {re.split(r"[\[<>=]", d)[0] for d in project["project"]["dependencies"]}
    assert THIRD_PARTY["gameflow"] is not None and THIRD_PARTY["gameflow"] <= declared


# -- the checker can fail -------------------------------------------------------------


def _tree(root: Path, files: dict[str, str]) -> Path:
    for layer in LAYERS:
        (root / layer).mkdir(parents=True, exist_ok=True)
        (root / layer / "__init__.py").touch()
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        (path.parent / "__init__.py").touch()
        path.write_text(text)
    return root


BAD = [
    ("adapters/x.py", "from bots.app import create_app\n", "adapters may not import bots"),
    ("adapters/x.py", "from bots import service\n", "adapters may not import bots"),
    ("adapters/x.py", "def f():\n    from bots.settings import Settings\n", "may not import bots"),
    (
        "adapters/x.py",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import bots.app\n",
        "adapters may not import bots",
    ),
    ("adapters/x.py", "from scheduler.plan import plan\n", "adapters may not import scheduler"),
    ("scheduler/x.py", "import bots\n", "scheduler may not import bots"),
    ("scheduler/x.py", "from adapters.redis_url import async_client\n", "may not import adapters"),
    (
        "service/x.py",
        "from adapters.store.redis_store import RedisStore\n",
        "may not import adapters",
    ),
    ("service/x.py", "from scheduler import runner\n", "service may not import scheduler"),
    ("service/x.py", "import redis.asyncio\n", "service may not import the third-party redis"),
    ("service/x.py", "import sqlite3\n", "service does no I/O (sqlite3)"),
    ("gameflow/x.py", "from service.games import GameService\n", "gameflow may not import service"),
    ("gameflow/core/x.py", "from adapters import zones\n", "gameflow may not import adapters"),
    ("gameflow/x.py", "import jinja2\n", "gameflow may not import the third-party jinja2"),
    ("gameflow/x.py", "import socket\n", "gameflow does no I/O (socket)"),
]


@pytest.mark.parametrize(("rel", "source", "why"), BAD, ids=[f"{r}:{s}" for r, s, _ in BAD])
def test_a_bad_import_is_reported(tmp_path: Path, rel: str, source: str, why: str) -> None:
    (found,) = violations(_tree(tmp_path, {rel: source}))
    assert found.startswith(f"{rel}:") and why in found, found


def test_allowed_imports_are_not_reported(tmp_path: Path) -> None:
    good = {
        "gameflow/core/x.py": "from ..games import station\nfrom . import y\nimport babel\n",
        "service/x.py": "import asyncio, zoneinfo\nfrom gameflow.core import engine\n",
        "adapters/x.py": "import redis\nfrom service.ports import GameStore\n",
        "scheduler/x.py": "from service.ports import GameStore\nimport apscheduler, redis\n",
        "bots/x.py": "from scheduler import runner\nfrom adapters.tv import app\nimport bots.settings\n",
        # Names in strings and comments are not imports.
        "adapters/y.py": '"""Wired by `bots.app`."""\nX = "bots.service"  # import bots\n',
    }
    assert violations(_tree(tmp_path, good)) == []


def test_a_copy_of_the_tree_with_one_bad_import(tmp_path: Path) -> None:
    """The real modules, copied, pass; one added import in the service fails."""
    for layer in LAYERS:
        shutil.copytree(ROOT / layer, tmp_path / layer, ignore=shutil.ignore_patterns("*.pyc"))
    assert violations(tmp_path) == []
    games = tmp_path / "service/games.py"
    text = games.read_text()
    games.write_text(text.replace("\nimport asyncio\n", "\nimport asyncio\nimport bots.app\n", 1))
    line = games.read_text().splitlines().index("import bots.app") + 1
    assert violations(tmp_path) == [
        f"service/games.py:{line} imports bots.app: service may not import bots"
    ]
