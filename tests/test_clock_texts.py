"""One reading of clock times and quiet hours: the core (which decides a game's
deadlines) and the service's calendar (with which the scheduler plans its
reminders) agree on every input of the table, and "8:5" is refused by both."""

from __future__ import annotations

from collections.abc import Callable
from datetime import time
from functools import partial
from typing import Any

import pytest

from gameflow.core import campaign
from gameflow.core.options import fit
from gameflow.core.rules import rules_for
from service.calendar import calendar, parse_clock, parse_quiet

pytestmark = pytest.mark.campaign

CLOCKS: dict[object, float | None] = {
    "08:05": 8 * 3600 + 300,
    "8:05": 8 * 3600 + 300,
    " 07:00 ": 7 * 3600,
    "0:00": 0,
    "23:59": 23 * 3600 + 59 * 60,
    "8:5": None,  # [decision] the minutes take two digits
    "08:5": None,
    "8:005": None,
    "24:00": None,
    "12:60": None,
    "-1:00": None,
    "7": None,
    "18.00": None,
    "ab:cd": None,
    "": None,
    ":": None,
    None: None,
    18: None,
}

QUIETS: dict[object, tuple[float, float] | str | None] = {
    "23:00-07:00": (23 * 3600, 7 * 3600),
    "22:00 - 8:00": (22 * 3600, 8 * 3600),
    "12:00-13:00": (12 * 3600, 13 * 3600),
    "": "none",
    None: "none",
    "23:00": None,
    "07:00-07:00": None,
    "22:00-8:5": None,
    "x-y": None,
    "23:00-07:00-08:00": None,
}


def _host_may_set(name: str, text: object) -> bool:
    """Whether a host's setting of option `name` to `text` is taken (options.fit)."""
    return fit(rules_for("station"), name, text)[1] is None


def _seconds(t: time) -> float:
    return t.hour * 3600.0 + t.minute * 60.0


def _refused(text: object, *readers: Callable[[Any], object]) -> bool:
    """Whether every reader raises ValueError on `text`."""
    for read in readers:
        try:
            read(text)
        except ValueError:
            continue
        return False
    return True


@pytest.mark.parametrize("text", list(CLOCKS), ids=repr)
def test_the_core_and_the_calendar_read_a_clock_time_alike(text: object) -> None:
    want = CLOCKS[text]
    if want is None:
        assert _refused(text, campaign.clock, parse_clock)
        assert not _host_may_set("campaign_vote", text)
    else:
        assert campaign.clock(text) == want
        assert _seconds(parse_clock(text)) == want  # type: ignore[arg-type]
        assert _host_may_set("campaign_vote", text)


@pytest.mark.parametrize("text", list(QUIETS), ids=repr)
def test_the_core_and_the_calendar_read_quiet_hours_alike(text: object) -> None:
    want = QUIETS[text]
    if want is None:
        assert _refused(text, campaign.parse_quiet, parse_quiet, partial(calendar, "Europe/Oslo"))
        assert not _host_may_set("quiet_hours", text)
    elif want == "none":
        assert campaign.parse_quiet(text) is None and parse_quiet(text) is None  # type: ignore[arg-type]
    else:
        span = parse_quiet(text)  # type: ignore[arg-type]
        assert span is not None and campaign.parse_quiet(text) == want
        assert (_seconds(span[0]), _seconds(span[1])) == want
        assert _host_may_set("quiet_hours", text)
