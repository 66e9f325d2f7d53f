"""A campaign's clock times on the TV: the day's schedule and the running
phase's close, in the game's time zone (issue #32, item 4).

The core's public view gives a deadline as an instant, and a countdown of
"5:44:23" says little to a table that lives by the clock; a campaign's screen
reads "until 17:00" and lists the day's windows instead. Both come from public
facts only (the window options, the time zone, the deadline: what the calendar
file, adapters/tv/ics.py, already publishes), and from the game alone, never
the request's time, so equal games still give equal screens (adapters/tv/app.py).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from babel.dates import format_date

from adapters.deadline_text import LOCALES
from adapters.tv import ics
from gameflow.core import campaign
from gameflow.core.clock import DAY, clock_text
from gameflow.core.engine import view
from gameflow.core.state import Game

# A close further than this after its phase opened names its weekday too.
WEEKDAY_AFTER = 0.75 * DAY


def facts(game: Game) -> dict[str, Any] | None:
    """The campaign's clock facts for the screen, or None for a game that is
    not a campaign: `windows` (name, phase and "HH:MM" of each window's
    close, in the game's order), `clocks` (every clock-time option by name,
    for a game's own schedule) and `until` (the running phase's close as
    {"time", "day"}, or None)."""
    if not ics.has_calendar(game):
        return None
    windows = [
        {"name": name, "phase": phase, "at": clock_text(campaign.clock(game.option(opt)))}
        for name, phase, opt in campaign.declared(game)
    ]
    clocks: dict[str, str] = {}
    for name, value in game.options:
        try:
            clocks[name] = clock_text(campaign.clock(value))
        except ValueError:
            continue  # not a clock time
    return {"windows": windows, "clocks": clocks, "until": _until(game)}


def _until(game: Game) -> dict[str, str] | None:
    deadline = game.phase.deadline
    if not game.running or game.phase.paused or deadline is None:
        return None
    zone = ics._zone(game)
    local = datetime.fromtimestamp(deadline, zone)
    day = ""
    started = game.phase.started
    if started is not None and deadline - started > WEEKDAY_AFTER:
        lang = game.lang if game.lang in LOCALES else "en"
        day = format_date(local.date(), "EEEE", locale=LOCALES[lang])
    return {"time": local.strftime("%H:%M"), "day": day}


def public(game: Game) -> dict[str, Any]:
    """The public view the TV renders: the core's, with a campaign's clock facts."""
    out = view(game, None)
    found = facts(game)
    if found is not None:
        out["campaign"] = found
    return out
