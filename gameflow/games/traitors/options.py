"""Options, pacing and the traitor count.

Two pacings. `campaign` is the original's: one round per real day, with the
digest's default schedule in the game's time zone (breakfast 08:00, mission until
17:00, shield room 17:00, round table 19:00–20:30, night until breakfast; a
tempted or forced player answers inside the night, so every night ends at the
same time). The schedule is kept as clock times (options the host may change);
every campaign deadline is the calendar instant of its clock time on the current
day, in the game's time zone. The core reads no time-zone database, so the zone
arrives as a table of UTC offsets with the host's start (`gameflow.core.clock`;
the service fills it in from the `timezone` option), and a daily 08:00 stays
08:00 across daylight-saving switches. In a campaign, phases keep their clock
times even when everyone has answered early (`campaign_auto_advance`, default
off; the host can always advance). `fast` pacing gives every phase a
few minutes for a one-evening game.

The calendar itself is the core's (`gameflow.core.campaign`): the Traitors
declares its windows (`WINDOWS`) and keeps only its own day rule here, the
breakfast anchor (a day runs from breakfast to the next breakfast, and day 1
needs `campaign_first_mission` seconds of mission). Deadlines read the window
options as they are now, so the host's `MoveWindow` takes effect on the next one.
"""

from __future__ import annotations

import math
from typing import Any, Final

from gameflow.core import campaign
from gameflow.core.campaign import MAX_SKIP, MIN_PHASE, WindowDecl, clock
from gameflow.core.clock import local_day
from gameflow.core.options import CLOCK, FLAG, QUIET, ZONE, Limit, one_of, seconds, span
from gameflow.core.state import Game
from gameflow.games.traitors.length import default_final_day
from gameflow.games.traitors.state import (
    END_VOTE,
    MISSION,
    NIGHT,
    REVOTE,
    ROUNDTABLE,
    SHIELD_ROOM,
    Config,
    Traitors,
)

MISSION_KINDS: Final = ("host", "builtin", "relay", "chests")
PACINGS: Final = campaign.PACINGS
DAY: Final = 24 * 3600.0

DEFAULTS: dict[str, Any] = {
    "pacing": "campaign",
    "missions": "host",
    "dagger": False,  # the seed: an element that «kan benyttes»
    "dagger_with_shield": False,  # the dagger lies in the shield's box (same winner)
    # [decision] a re-vote that ties again excludes every player it was over
    # (the seed: «disse spillerne»); off: only the players tied again
    "second_tie_excludes_all": True,
    "recruit": False,  # the seed: «om spillmesteren tillater»; the game master allows it
    "death_list": False,
    "final_day": 0,  # 0: by the table size (length.default_final_day)
    "traitors": 0,  # 0: by the table in the digest
    "death_list_size": 3,
    "plea_seconds": 60.0,
    "timezone": "Europe/Oslo",
    "campaign_breakfast": "08:00",
    "campaign_shield_room": "17:00",
    "campaign_roundtable": "19:00",
    "campaign_roundtable_end": "20:30",
    "campaign_night": "21:00",
    "campaign_revote": 600.0,
    "campaign_end_vote": 1800.0,
    "campaign_first_mission": 3600.0,  # a later start moves day 1 to the next day
    "campaign_auto_advance": False,  # phases keep their clock times (host: /advance)
    "quiet_hours": campaign.DEFAULT_QUIET,  # no deadline falls in them
    "campaign_reminder_before": campaign.DEFAULT_REMINDER,
    **campaign.TALK_OPTIONS,  # SMS talk digests, the talk kept with the game
    "fast_mission": 300.0,
    "fast_shield_room": 60.0,
    "fast_roundtable": 300.0,
    "fast_revote": 120.0,
    "fast_night": 240.0,
    "fast_end_vote": 90.0,
    "reminder_before": 60.0,
    "auto_advance": True,
    # Talk through the bot (issue #33, service/talk.py): a fast game's table
    # talks in the room (a campaign's talks through the bot anyway).
    "table_talk": False,
}

# What each option takes (gameflow.core.options): [decision] fast phases up to a
# week, a campaign's re-vote, end vote and first mission up to a day, up to 60
# days, traitors 0 (by the table) up to fewer than half the most players (24).
LIMITS: Final[dict[str, Limit]] = {
    "pacing": one_of(*PACINGS),
    "missions": one_of(*MISSION_KINDS),
    "dagger": FLAG,
    "dagger_with_shield": FLAG,
    "second_tie_excludes_all": FLAG,
    "recruit": FLAG,
    "death_list": FLAG,
    "final_day": span(0, 60),
    "traitors": span(0, 11),
    "death_list_size": span(1, 23),
    "plea_seconds": seconds(),
    "timezone": ZONE,
    "campaign_breakfast": CLOCK,
    "campaign_shield_room": CLOCK,
    "campaign_roundtable": CLOCK,
    "campaign_roundtable_end": CLOCK,
    "campaign_night": CLOCK,
    "campaign_revote": seconds(0, DAY),
    "campaign_end_vote": seconds(0, DAY),
    "campaign_first_mission": seconds(0, DAY),
    "campaign_auto_advance": FLAG,
    "quiet_hours": QUIET,
    "campaign_reminder_before": seconds(0, DAY),
    **campaign.TALK_LIMITS,
    "fast_mission": seconds(),
    "fast_shield_room": seconds(),
    "fast_roundtable": seconds(),
    "fast_revote": seconds(),
    "fast_night": seconds(),
    "fast_end_vote": seconds(),
    "reminder_before": seconds(),
    "auto_advance": FLAG,
    "table_talk": FLAG,
}

# The campaign's windows: (name, the phase it closes, the option of its clock time).
WINDOWS: Final[tuple[WindowDecl, ...]] = (
    (MISSION, MISSION, "campaign_shield_room"),
    (SHIELD_ROOM, SHIELD_ROOM, "campaign_roundtable"),
    (ROUNDTABLE, ROUNDTABLE, "campaign_roundtable_end"),
    # The night ends at breakfast, every night: a tempted or forced player
    # answers inside it, so the morning news never comes later for them.
    (NIGHT, NIGHT, "campaign_breakfast"),
)
__all__ = ["MAX_SKIP", "MIN_PHASE", "WINDOWS", "clock"]


def traitor_count(players: int) -> int:
    """[decision] 1 traitor for 6 players, 2 for 7–9, 3 for 10–17, 4 for 18–24.

    Six players with two traitors gave the traitors 62-68 % at any length
    (docs/balance.md); one traitor brings the table back to about half."""
    return 1 if players <= 6 else 2 if players <= 9 else 3 if players <= 17 else 4


def _between(start: str, end: str) -> float:
    """Seconds from clock time `start` to the next `end` (wrapping past midnight)."""
    gap = (clock(end) - clock(start)) % DAY
    return gap or DAY


def durations(game: Game) -> tuple[tuple[str, float], ...]:
    """The seconds each phase lasts under the game's pacing; ValueError if bad."""
    o = game.option
    if o("pacing") == "fast":
        return (
            (MISSION, float(o("fast_mission"))),
            (SHIELD_ROOM, float(o("fast_shield_room"))),
            (ROUNDTABLE, float(o("fast_roundtable"))),
            (REVOTE, float(o("fast_revote"))),
            (NIGHT, float(o("fast_night"))),
            (END_VOTE, float(o("fast_end_vote"))),
        )
    breakfast, shield = o("campaign_breakfast"), o("campaign_shield_room")
    table, table_end = o("campaign_roundtable"), o("campaign_roundtable_end")
    clock(o("campaign_night"))  # validated: the night is announced at this time
    return (
        (MISSION, _between(breakfast, shield)),
        (SHIELD_ROOM, _between(shield, table)),
        (ROUNDTABLE, _between(table, table_end)),
        (REVOTE, float(o("campaign_revote"))),
        (NIGHT, _between(table_end, breakfast)),
        (END_VOTE, float(o("campaign_end_vote"))),
    )


def ends(game: Game) -> tuple[tuple[str, float], ...]:
    """Campaign pacing: the clock time (seconds after local midnight) at which
    each phase ends. Anchoring every deadline to the day's calendar keeps the days
    on their clock times even when a phase ends early (the host advanced) or late
    (a tie re-vote), and across daylight-saving switches."""
    if not campaign.is_campaign(game):
        return ()
    return tuple((phase, clock(game.option(option))) for _, phase, option in WINDOWS)


def _end_at(game: Game, day: int, phase: str) -> float:
    """The instant `phase` of the day whose breakfast is on date `day` ends: on
    that date, or the next one for a clock time at or before breakfast (the night);
    out of quiet hours (gameflow.core.campaign). The clock times are the options
    as they are now: the host may have moved a window since the start."""
    ends = dict(ends_of(game))
    seconds = ends[phase]
    wrap = 1 if seconds <= ends[NIGHT] else 0
    return campaign.close_at(game, day + wrap, seconds)


def ends_of(game: Game) -> tuple[tuple[str, float], ...]:
    """The window clock times now (the options, valid since the start)."""
    return tuple((phase, clock(game.option(option))) for _, phase, option in WINDOWS)


def phase_seconds(game: Game, st: Traitors, phase: str, now: float) -> float:
    """How long `phase`, entered at `now`, lasts: until its clock time on the
    current day's calendar in campaign pacing (never under MIN_PHASE), a fixed
    duration otherwise (and for the re-vote and end vote, which have no clock time).
    The calendar is read in the game's zone (`game.zone`)."""
    config = st.config
    if config.ends and phase in dict(config.ends):
        day = local_day(game.zone, st.anchor)
        end = max(now + MIN_PHASE, _end_at(game, day, phase))
        return campaign.fit(game, end) - now
    return config.seconds(phase)


def clockless_seconds(game: Game, st: Traitors, length: float, now: float) -> float:
    """How long a phase without a clock time (the re-vote, the end vote),
    entered at `now` as `game`'s phase ends, lasts: `length` in fast pacing.
    [decision] In a campaign it runs `length` from the instant the phase before
    it was due to end, not from when that deadline was handled (one handled a
    second late closed the final end vote at 21:00:01, the players being told
    21:00), and ends on the whole minute the players are told (rounded up, so
    never shorter), out of quiet hours, and never sooner than MIN_PHASE from
    now (or `length`, when that is shorter)."""
    if not st.config.ends:
        return length
    due = game.phase.deadline
    start = due if due is not None and due < now else now
    end = max(start + length, now + min(length, MIN_PHASE))
    return campaign.fit(game, math.ceil(end / 60.0) * 60.0) - now


def next_anchor(game: Game, st: Traitors, now: float) -> float:
    """The breakfast instant of the day starting now (campaign pacing). Day 1
    is the calendar day of the start if its mission still has at least
    `first_mission` seconds before the shield room, else the next day (the roles
    are dealt at once and the first mission simply runs longer). Each later day
    is the next calendar day; a day lost to a long pause is skipped rather than
    squeezed. Fast pacing has no calendar: the day starts now."""
    config, zone = st.config, game.zone
    breakfast = dict(ends_of(game))[NIGHT] if config.ends else config.breakfast
    if not config.ends:
        return now
    if st.anchor:
        day, least = local_day(zone, st.anchor) + 1, MIN_PHASE
    else:
        day, least = local_day(zone, now), config.first_mission
    for _ in range(MAX_SKIP):
        if _end_at(game, day, MISSION) - now >= least:
            break
        day += 1
    return campaign.close_at(game, day, breakfast)


def config_for(game: Game) -> Config:
    """The fixed configuration; ValueError if an option can't be used."""
    campaign.validate(game)  # the pacing, the quiet hours and the windows' clock times
    if game.option("missions") not in MISSION_KINDS:
        raise ValueError("missions")
    final_day = int(game.option("final_day")) or default_final_day(len(game.players))
    if final_day < 1:
        raise ValueError("final_day")
    return Config(
        pacing=str(game.option("pacing")),
        missions=str(game.option("missions")),
        final_day=final_day,
        death_list_size=max(1, int(game.option("death_list_size"))),
        durations=durations(game),
        ends=ends(game),
        breakfast=clock(game.option("campaign_breakfast")),
        first_mission=float(game.option("campaign_first_mission")),
        plea_seconds=float(game.option("plea_seconds")),
        dagger_with_shield=bool(game.option("dagger_with_shield")),
        second_tie_all=bool(game.option("second_tie_excludes_all")),
    )
