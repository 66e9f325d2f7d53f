"""Shared test helpers: script paths and a small driver for Station games."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.fake_twilio import FakeTwilio

# The tests never follow the product's own Redis setting (a developer may have
# REDIS_URL in their shell for `muldvarp serve`): tests that need Redis use the
# tests' own server (tests/redis_server.py), and settings tests set it themselves.
os.environ.pop("REDIS_URL", None)

# The tests' composition root: every built-in game, as the entry points register them.
from gameflow.games import register_all

register_all()

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = Path(__file__).resolve().parent / "scenarios"


def pytest_configure(config: pytest.Config) -> None:
    """A marker for every registered game, named as its kind (`-m werewolf`):
    a new game needs no line in pyproject.toml's markers."""
    from gameflow.core.registry import kinds

    for kind in kinds():
        config.addinivalue_line("markers", f"{kind}: the {kind} game")


def pytest_report_header(config: pytest.Config) -> str:
    """Which core the tests run on: the source, or the compiled build (the
    packaging test runs the core's tests on the compiled wheel)."""
    import gameflow.core.engine as engine

    built = not str(engine.__file__).endswith(".py")
    return f"gameflow: {'compiled (mypyc)' if built else 'interpreted'} from {engine.__file__}"


@pytest.fixture
def scenarios() -> Path:
    return SCENARIOS


@pytest.fixture
def fake() -> Iterator[FakeTwilio]:
    """The fake Twilio API on loopback (tests/fake_twilio.py), one per test."""
    from tests.fake_twilio import FakeTwilio

    with FakeTwilio() as server:
        yield server
