"""Shared test helpers: script paths and a small driver for Station games."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = Path(__file__).resolve().parent / "scenarios"


@pytest.fixture
def scenarios() -> Path:
    return SCENARIOS
