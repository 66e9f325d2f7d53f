"""Station on calendar pacing: one round per real day.

`fast` pacing (the default) gives each phase its `*_seconds`. On `campaign`
pacing a round is a day of the game's time zone (gameflow.core.campaign): the
mission is open all day and closes at `campaign_mission` (18:00), the discussion
runs through the evening until `campaign_discussion` (20:00), and the vote
closes at night, `campaign_vote` (22:00). [decision] A round's mission needs at
least an hour (campaign.FIRST_LEAST): a game started at 17:30 plays its first
mission until 18:00 the next day. The next round is the next day's, even when
the host advanced through this one early, and a day lost to a pause is skipped.
"""

from __future__ import annotations

from typing import Any, Final

from gameflow.core import campaign
from gameflow.core.campaign import WindowDecl
from gameflow.core.clock import local_day
from gameflow.core.state import Game
from gameflow.games.station.state import DISCUSSION, MISSION, VOTE, Station

WINDOWS: Final[tuple[WindowDecl, ...]] = (
    (MISSION, MISSION, "campaign_mission"),
    (DISCUSSION, DISCUSSION, "campaign_discussion"),
    (VOTE, VOTE, "campaign_vote"),
)

OPTIONS: Final[dict[str, Any]] = campaign.campaign_options(
    {"campaign_mission": "18:00", "campaign_discussion": "20:00", "campaign_vote": "22:00"}
)


def mission(game: Game, st: Station, now: float) -> tuple[float, Station]:
    """The seconds the round's mission, entered at `now`, lasts, and the state
    with the campaign day it closes on."""
    if not campaign.is_campaign(game):
        return st.config.mission_seconds, st
    today = local_day(game.zone, now)
    from_day = max(st.day + 1, today) if st.day else today
    close = campaign.next_close(game, MISSION, now, least=campaign.FIRST_LEAST, from_day=from_day)
    return close - now, st._replace(day=local_day(game.zone, close))


def seconds(game: Game, phase: str, fast: float, now: float) -> float:
    """The discussion or the vote: until its window on campaign pacing."""
    return campaign.seconds_for(game, phase, fast, now)
