"""A game's time zone, from its `timezone` option to the core's offset table.

The pure core schedules campaign days by clock times but reads no time-zone
database (a replay must not depend on the machine's tzdata), so the service
hands it the zone as data: when the host starts a game on campaign pacing
(gameflow.core.campaign), the start carries the zone's UTC offsets from now on
(`service.calendar.zone_table`), and they are logged with it. A zone name the
machine does not know is refused when the host sets it, with a clear reply,
rather than discovered at the start.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from gameflow.core import actions as A
from gameflow.core.campaign import is_campaign
from gameflow.core.result import Rejected, reject
from gameflow.core.state import Game
from gameflow.core.text import N_
from service.calendar import zone_table

OPTION = "timezone"


def prepare(game: Game, action: A.Action, now: float) -> A.Action | Rejected:
    """`action` ready for the core: a start gets the zone table of the game's
    `timezone` option; setting an unknown zone is refused."""
    if isinstance(action, A.SetOption) and action.name == OPTION:
        if not isinstance(action.value, str) or not _known(action.value):
            return reject(
                "unknown_timezone",
                N_(
                    "Unknown time zone {zone}. Use a name such as Europe/Oslo, Europe/Belgrade or UTC."
                ),
                zone=str(action.value),
            )
        return action
    if isinstance(action, A.Start) and not action.zone and game.phase.name == "lobby":
        if not is_campaign(game):
            return action  # a fast game has no calendar (every game has the option now)
        name = game.option(OPTION)
        if isinstance(name, str):
            try:
                return replace(action, zone=zone_table(name, now))
            except ValueError:
                return action  # a zone this machine lost since it was set: UTC
    return action


def check_new(options: Mapping[str, Any] | None) -> None:
    """ValueError when a new game's `timezone` option names a zone this machine
    does not know (the core checks its form only), as the host's set is refused."""
    name = options.get(OPTION) if isinstance(options, Mapping) else None
    if isinstance(name, str) and not _known(name):
        raise ValueError(f"Unknown time zone {name}. Use a name such as Europe/Oslo or UTC.")


def _known(name: str) -> bool:
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True
