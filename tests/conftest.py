"""Shared test helpers: script paths and a small driver for Station games."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = Path(__file__).resolve().parent / "scenarios"


def pytest_report_header(config: pytest.Config) -> str:
    """Which core the tests run on: the source, or the compiled build (the
    packaging test runs the core's tests on the compiled wheel)."""
    import gameflow.core.engine as engine

    built = not str(engine.__file__).endswith(".py")
    return f"gameflow: {'compiled (mypyc)' if built else 'interpreted'} from {engine.__file__}"


@pytest.fixture
def scenarios() -> Path:
    return SCENARIOS
