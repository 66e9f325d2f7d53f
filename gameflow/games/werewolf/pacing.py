"""Werewolf's options, their limits, and its calendar pacing.

`fast` pacing (the default) gives each phase its `*_seconds`. On `campaign`
pacing (gameflow.core.campaign) a night and a day make one calendar day, as
the other games declare theirs: the night closes at `campaign_night` (08:00),
the day's talk at `campaign_day` (18:00) and the lynch vote at `campaign_vote`
(21:00); a re-vote lasts `vote_seconds` or until the next window's time.
"""

from __future__ import annotations

from typing import Any, Final

from gameflow.core import campaign
from gameflow.core.campaign import WindowDecl, campaign_limits
from gameflow.core.options import FLAG, Limit, seconds, span
from gameflow.core.state import Game
from gameflow.games.werewolf.state import DAY, NIGHT, VOTE

MAX_PLAYERS: Final = 18

WINDOWS: Final[tuple[WindowDecl, ...]] = (
    (NIGHT, NIGHT, "campaign_night"),
    (DAY, DAY, "campaign_day"),
    (VOTE, VOTE, "campaign_vote"),
)

DEFAULTS: Final[dict[str, Any]] = {
    "night_seconds": 180.0,
    "day_seconds": 300.0,
    "vote_seconds": 120.0,
    "reminder_before": 60.0,
    "auto_advance": True,  # a vote ends once everyone voted (never a night)
    "wolves": 0,  # 0: by the table in docs/rules/werewolf.md
    "reveal_dead": True,  # a dead player's role is shown
    "revote": True,  # a tied lynch vote is voted again among the tied, once
    "doctor_repeat": False,  # the doctor may protect the same player two nights running
    "team_talk": True,  # the wolves talk privately through the bot at night
    **campaign.campaign_options(
        {"campaign_night": "08:00", "campaign_day": "18:00", "campaign_vote": "21:00"}
    ),
}

LIMITS: Final[dict[str, Limit]] = {
    "night_seconds": seconds(),
    "day_seconds": seconds(),
    "vote_seconds": seconds(),
    "reminder_before": seconds(),
    "auto_advance": FLAG,
    "wolves": span(0, (MAX_PLAYERS - 1) // 3),
    "reveal_dead": FLAG,
    "revote": FLAG,
    "doctor_repeat": FLAG,
    "team_talk": FLAG,
    **campaign_limits(option for _, _, option in WINDOWS),
}


def wolf_count(players: int) -> int:
    """The table (docs/rules/werewolf.md), from the balance runs of the
    reasoning bots (docs/balance.md): 6–9: 1, 10–18: 2."""
    return 1 if players <= 9 else 2


def seconds_for(game: Game, phase: str, now: float) -> float:
    """How long `phase`, entered at `now`, lasts: its option, or until its
    window on campaign pacing (a re-vote: its option either way)."""
    fast = float(game.option(f"{phase}_seconds" if phase != "revote" else "vote_seconds"))
    if phase not in (NIGHT, DAY, VOTE):
        return fast
    least = campaign.FIRST_LEAST if phase == NIGHT else campaign.MIN_PHASE
    return campaign.seconds_for(game, phase, fast, now, least=least)
