"""Options, pacing and the traitor count.

Two pacings. `campaign` is the original's: one round per real day, with the
digest's default schedule in the game's time zone (breakfast 08:00, mission until
17:00, shield room 17:00, round table 19:00–20:30, night 21:00–07:00, answers
07:00–08:00). The schedule is kept as clock times (options the host may change)
and turned into phase *durations* here, because the core never reads a clock or
a time-zone database: the scheduler arms the absolute deadlines that the phases
carry, and may later snap them to the calendar. `fast` pacing gives every phase a
few minutes for a one-evening game.
"""

from __future__ import annotations

from typing import Any

from gameflow.core.state import Game
from gameflow.games.traitors.state import (
    ANSWER,
    END_VOTE,
    MISSION,
    NIGHT,
    REVOTE,
    ROUNDTABLE,
    SHIELD_ROOM,
    Config,
    Traitors,
)

MISSION_KINDS = ("host", "builtin", "relay", "chests")
PACINGS = ("campaign", "fast")
DAY = 24 * 3600.0

DEFAULTS: dict[str, Any] = {
    "pacing": "campaign",
    "missions": "host",
    "dagger": True,
    "recruit": True,
    "death_list": False,
    "final_day": 12,
    "traitors": 0,  # 0: by the table in the digest
    "death_list_size": 3,
    "plea_seconds": 60.0,
    "timezone": "Europe/Oslo",
    "campaign_breakfast": "08:00",
    "campaign_shield_room": "17:00",
    "campaign_roundtable": "19:00",
    "campaign_roundtable_end": "20:30",
    "campaign_night": "21:00",
    "campaign_answer": "07:00",
    "campaign_revote": 600.0,
    "campaign_end_vote": 1800.0,
    "fast_mission": 300.0,
    "fast_shield_room": 60.0,
    "fast_roundtable": 300.0,
    "fast_revote": 120.0,
    "fast_night": 180.0,
    "fast_answer": 60.0,
    "fast_end_vote": 90.0,
    "reminder_before": 60.0,
    "auto_advance": True,
}

MIN_PHASE = 300.0  # a calendar-anchored phase never gets less than this


def traitor_count(players: int) -> int:
    """[decision] 2 traitors for 6–9 players, 3 for 10–17, 4 for 18–24."""
    return 2 if players <= 9 else 3 if players <= 17 else 4


def clock(text: str) -> float:
    """Seconds after midnight of "HH:MM"; ValueError if malformed."""
    hours, _, minutes = text.partition(":")
    h, m = int(hours), int(minutes)
    if not (0 <= h < 24 and 0 <= m < 60):
        raise ValueError(text)
    return h * 3600.0 + m * 60.0


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
            (ANSWER, float(o("fast_answer"))),
            (END_VOTE, float(o("fast_end_vote"))),
        )
    breakfast, shield = o("campaign_breakfast"), o("campaign_shield_room")
    table, table_end = o("campaign_roundtable"), o("campaign_roundtable_end")
    answer = o("campaign_answer")
    clock(o("campaign_night"))  # validated: the night is announced at this time
    return (
        (MISSION, _between(breakfast, shield)),
        (SHIELD_ROOM, _between(shield, table)),
        (ROUNDTABLE, _between(table, table_end)),
        (REVOTE, float(o("campaign_revote"))),
        (NIGHT, _between(table_end, answer)),
        (ANSWER, _between(answer, breakfast)),
        (END_VOTE, float(o("campaign_end_vote"))),
    )


def ends(game: Game) -> tuple[tuple[str, float], ...]:
    """Campaign pacing: when each phase ends, in seconds after the day's breakfast.
    Anchoring every deadline to the day keeps the days on the calendar even when
    a phase ends early (everyone voted) or late (a tie re-vote)."""
    if game.option("pacing") != "campaign":
        return ()
    o = game.option
    breakfast = o("campaign_breakfast")
    return (
        (MISSION, _between(breakfast, o("campaign_shield_room"))),
        (SHIELD_ROOM, _between(breakfast, o("campaign_roundtable"))),
        (ROUNDTABLE, _between(breakfast, o("campaign_roundtable_end"))),
        (NIGHT, _between(breakfast, o("campaign_answer"))),
        (ANSWER, DAY),
    )


def phase_seconds(st: Traitors, phase: str, now: float) -> float:
    """How long `phase`, entered at `now`, lasts: anchored to the day's breakfast
    in campaign pacing (never under MIN_PHASE), a fixed duration otherwise."""
    for name, offset in st.config.ends:
        if name == phase:
            return max(MIN_PHASE, st.anchor + offset - now)
    return st.config.seconds(phase)


def next_anchor(st: Traitors, now: float) -> float:
    """The breakfast time of the day starting now: day 1 starts when the game
    starts; each later day 24 hours after the previous one (a day lost to a long
    pause is skipped rather than squeezed)."""
    if not st.anchor or not st.config.ends:
        return now
    anchor = st.anchor + DAY
    mission_end = dict(st.config.ends)[MISSION]
    while anchor + mission_end - now < MIN_PHASE:
        anchor += DAY
    return anchor


def config_for(game: Game) -> Config:
    """The fixed configuration; ValueError if an option can't be used."""
    if game.option("pacing") not in PACINGS:
        raise ValueError("pacing")
    if game.option("missions") not in MISSION_KINDS:
        raise ValueError("missions")
    final_day = int(game.option("final_day"))
    if final_day < 1:
        raise ValueError("final_day")
    return Config(
        pacing=str(game.option("pacing")),
        missions=str(game.option("missions")),
        final_day=final_day,
        death_list_size=max(1, int(game.option("death_list_size"))),
        durations=durations(game),
        ends=ends(game),
        plea_seconds=float(game.option("plea_seconds")),
    )
