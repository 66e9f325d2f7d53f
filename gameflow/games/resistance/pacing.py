"""Resistance on calendar pacing: one mission per real day.

`fast` pacing (the default) gives each phase its `*_seconds`. On `campaign`
pacing a mission is a day of the game's time zone (gameflow.core.campaign): the
day has three proposal windows, each followed by its team vote's window
(`campaign_proposal_1..3`, `campaign_vote_1..3`, by default 10:00/11:00,
13:00/14:00 and 16:00/17:00), then the mission's (`campaign_mission`, 21:00).
Each phase closes at the first of its windows still ahead, so a rejected team's
next proposal takes the day's next window and [decision] a day without an
approved team carries on with the next morning's first window (the vote track
is not reset). [decision] The first proposal of a mission needs at least an hour
(campaign.FIRST_LEAST), and the next mission is the next day's even when the
host advanced through this one early. [decision] When opinion makers vote first,
the others vote in the next vote window.
"""

from __future__ import annotations

from typing import Any, Final

from gameflow.core import campaign
from gameflow.core.campaign import WindowDecl
from gameflow.core.clock import local_day
from gameflow.core.result import Rejected, reject
from gameflow.core.state import Game
from gameflow.core.text import N_
from gameflow.games.resistance.state import MISSION, PROPOSAL, TEAM_VOTE, Resistance

WINDOWS: Final[tuple[WindowDecl, ...]] = (
    ("proposal_1", PROPOSAL, "campaign_proposal_1"),
    ("vote_1", TEAM_VOTE, "campaign_vote_1"),
    ("proposal_2", PROPOSAL, "campaign_proposal_2"),
    ("vote_2", TEAM_VOTE, "campaign_vote_2"),
    ("proposal_3", PROPOSAL, "campaign_proposal_3"),
    ("vote_3", TEAM_VOTE, "campaign_vote_3"),
    (MISSION, MISSION, "campaign_mission"),
)

OPTIONS: Final[dict[str, Any]] = campaign.campaign_options(
    {
        "campaign_proposal_1": "10:00",
        "campaign_vote_1": "11:00",
        "campaign_proposal_2": "13:00",
        "campaign_vote_2": "14:00",
        "campaign_proposal_3": "16:00",
        "campaign_vote_3": "17:00",
        "campaign_mission": "21:00",
    }
)


held = campaign.held_options  # the options as played (no auto-advance in a campaign)


def check(game: Game) -> Rejected | None:
    """A refusal when the pacing options can't be used (checked at the start)."""
    try:
        campaign.validate(game)
    except ValueError:
        return reject("bad_setup", N_("Some of this game's settings can't be used."))
    return None


def proposal(game: Game, st: Resistance, now: float, first: bool) -> tuple[float, Resistance]:
    """The seconds a proposal entered at `now` lasts, and the state with the
    campaign day of its mission (set by a mission's first proposal)."""
    if not campaign.is_campaign(game):
        return st.config.proposal_seconds, st
    if not first:
        return campaign.next_close(game, PROPOSAL, now) - now, st
    today = local_day(game.zone, now)
    from_day = max(st.day + 1, today) if st.day else today
    close = campaign.next_close(game, PROPOSAL, now, least=campaign.FIRST_LEAST, from_day=from_day)
    return close - now, st._replace(day=local_day(game.zone, close))


def vote(game: Game, st: Resistance, now: float) -> float:
    return campaign.seconds_for(game, TEAM_VOTE, st.config.vote_seconds, now)


def mission(game: Game, st: Resistance, now: float) -> float:
    return campaign.seconds_for(game, MISSION, st.config.mission_seconds, now)
