"""The public game scripts (copied into tests/scenarios), replayed through
`python -m gameflow replay` and matched against their expected records as a
subset, exactly as the public scripts' checker does."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gameflow.core.rules import known_games
from tests.cli_helpers import cli

pytestmark = pytest.mark.core

SCENARIOS = Path(__file__).resolve().parent / "scenarios"
SCRIPTS = sorted(p for p in SCENARIOS.glob("*.json") if not p.name.endswith(".expected.json"))


def subset(exp: Any, act: Any, path: str = "$") -> str | None:
    if isinstance(exp, dict):
        if not isinstance(act, dict):
            return f"{path}: expected an object, got {act!r}"
        for k, v in exp.items():
            if k not in act:
                return f"{path}.{k}: missing"
            err = subset(v, act[k], f"{path}.{k}")
            if err:
                return err
        return None
    if isinstance(exp, list):
        if not isinstance(act, list) or len(act) != len(exp):
            return f"{path}: expected {len(exp)} items, got {act!r}"
        for i, (e, a) in enumerate(zip(exp, act, strict=True)):
            err = subset(e, a, f"{path}[{i}]")
            if err:
                return err
        return None
    return None if exp == act else f"{path}: expected {exp!r}, got {act!r}"


def _marks(script: Path) -> list[pytest.MarkDecorator]:
    game = json.loads(script.read_text())["game"]
    return [getattr(pytest.mark, game), pytest.mark.core]


def test_every_scenario_names_a_known_game() -> None:
    games = {json.loads(s.read_text())["game"] for s in SCRIPTS}
    assert games == {"station", "resistance", "traitors", "werewolf"}
    assert games <= set(known_games())


@pytest.mark.parametrize("script", [pytest.param(s, id=s.stem, marks=_marks(s)) for s in SCRIPTS])
def test_public_script_matches_expected(script: Path) -> None:
    out = cli("gameflow", "replay", str(script))
    expected = json.loads(script.with_name(script.stem + ".expected.json").read_text())
    assert subset(expected, json.loads(out)) is None


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda s: s.stem)
def test_replay_is_byte_identical(script: Path) -> None:
    runs = {
        subprocess.run(
            [sys.executable, "-m", "gameflow", "replay", str(script)],
            capture_output=True,
            check=True,
            timeout=60,
        ).stdout
        for _ in range(2)
    }
    assert len(runs) == 1
