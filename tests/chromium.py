"""Debian's Chromium, headless, for the status-page tests: one launch per test
module (the `browser` fixture), and the TV's controlled clock.

Missing locally, the tests skip; under `CI` a missing browser fails them
(.ci/run installs it), so CI never passes without a real browser.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

from bench import tv_games as demo

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not (os.path.exists(CHROMIUM) and shutil.which(CHROMIUM)):
        message = f"{CHROMIUM} is missing (apt-get install chromium)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


class Clock:
    """The TV server's clock: it moves only when a test moves it."""

    def __init__(self) -> None:
        self.now = demo.EPOCH

    def __call__(self) -> float:
        return self.now
