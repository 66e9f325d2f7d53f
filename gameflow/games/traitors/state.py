"""The Traitors' own state: small immutable records indexed by seat.

Seats (indices into `Game.players`) are used throughout instead of player ids,
as in Station. Everything secret (roles, the shield and dagger holders, the
traitors' night votes, the death list before breakfast, the chest drawn for a
mission) lives here and is only ever shown through the views, which decide per
viewer what may be seen.
"""

from __future__ import annotations

from typing import Final, NamedTuple, TypeVar

LOYAL: Final = "loyal"
TRAITOR: Final = "traitor"
TRAITORS: Final = "traitors"  # the team name in results

NOBODY: Final = -1

# phases
MISSION: Final = "mission"
SHIELD_ROOM: Final = "shield_room"
ROUNDTABLE: Final = "roundtable"
REVOTE: Final = "revote"
NIGHT: Final = "night"
END_VOTE: Final = "end_vote"
PHASES: Final = (MISSION, SHIELD_ROOM, ROUNDTABLE, REVOTE, NIGHT, END_VOTE)
# Before the night became one phase, a tempted or forced player answered in a
# phase of its own; a game saved in it still ends as a night.
ANSWER: Final = "answer"
NIGHT_PHASES: Final = (NIGHT, ANSWER)

# player status
ACTIVE: Final = "active"
MURDERED: Final = "murdered"
BANISHED: Final = "banished"

# night action kinds
MURDER: Final = "murder"
TEMPT: Final = "tempt"
FORCE: Final = "force"

# vote kinds at the round table
OPEN: Final = "open"  # every active player votes, candidates: everyone not excluded
TIE: Final = "tie"  # a re-vote among the tied, who do not vote themselves

MAX_TEXT: Final = 140  # a one-line reason or plea


class Config(NamedTuple):
    """Fixed at the start from the options; phase durations in seconds."""

    pacing: str
    missions: str
    final_day: int
    death_list_size: int
    durations: tuple[tuple[str, float], ...]
    plea_seconds: float
    ends: tuple[tuple[str, float], ...] = ()  # campaign: each phase's end clock time
    breakfast: float = 0.0  # campaign: breakfast clock time (seconds after midnight)
    first_mission: float = 3600.0  # campaign: day 1's least mission time
    tempt_last_day: int = 9
    force_last_day: int = 10
    dagger_with_shield: bool = False  # the dagger lies in the shield's box
    # A second tie excludes all the re-vote was over (the seed), not only the
    # tied again. False here so a game saved before the option keeps its rule.
    second_tie_all: bool = False

    def seconds(self, phase: str) -> float:
        for name, value in self.durations:
            if name == phase:
                return value
        raise KeyError(phase)


class Ballot(NamedTuple):
    """One round-table vote: the target seat, whether the dagger was laid on it,
    and the voter's optional one-line reason (read out with the vote)."""

    target: int
    dagger: bool = False
    reason: str = ""


class Table(NamedTuple):
    """The vote running now at the round table (or at the final round table)."""

    kind: str = OPEN
    number: int = 0  # 0 = the day's first vote, 1 = the next one, ...
    candidates: tuple[int, ...] = ()
    voters: tuple[int, ...] = ()
    ballots: tuple[Ballot | None, ...] = ()
    excluded: tuple[int, ...] = ()  # removed as candidates after a second tie
    pleas: tuple[str | None, ...] = ()
    dagger_laid: int = -1  # the vote number the dagger was laid down in (-1: not yet)


class NightVote(NamedTuple):
    kind: str
    target: int


class Pending(NamedTuple):
    """The night's choice, once made: a murder, or a tempt or force (with the
    player asked), and the night's murder to come."""

    kind: str  # MURDER | TEMPT | FORCE
    target: int  # the tempted or forced player (NOBODY: none, or to be forced again)
    murder: int = NOBODY  # the night's murder target (murder and force nights)
    declined: tuple[int, ...] = ()  # shield holders who refused a force tonight


class Reading(NamedTuple):
    """One vote as read out: who voted for whom, counted how many times, why."""

    voter: int
    target: int
    weight: int
    reason: str


class DayRecord(NamedTuple):
    """One finished day, as the replay record and the history screens show it."""

    day: int
    murdered: int
    banished: tuple[int, ...]
    revealed: tuple[tuple[int, str], ...]  # (seat, role) revealed on banishment
    converted: int
    pot: int
    votes: tuple[tuple[Reading, ...], ...] = ()
    mission_silver: int = 0
    access: tuple[int, ...] = ()
    tempted: bool = False  # somebody was tempted (not who)
    night: Pending | None = None  # the night's choice: secret until the end's reveal


class Mission(NamedTuple):
    """Today's mission: host-scored or a built-in chat mission."""

    kind: str  # "host" | "relay" | "chests"
    replies: tuple[tuple[str, ...] | None, ...] = ()  # per seat, the reply fields
    silver: int = 0  # host-scored: silver won
    access: tuple[int, ...] = ()  # host-scored: who earned shield-room access
    scored: bool = False
    cursed: int = 0  # chests: the chest the traitors know is cursed (1..3)
    treasure: int = 0  # chests: the treasure chest (1..3), unknown to all


class Traitors(NamedTuple):
    config: Config
    role: tuple[str, ...]  # LOYAL | TRAITOR now
    status: tuple[str, ...]  # ACTIVE | MURDERED | BANISHED
    start_traitors: int
    final_day: int  # the game master may bring it forward
    pot: int = 0
    anchor: float = 0.0  # the current day's breakfast time (campaign pacing)
    mission: Mission | None = None
    access: tuple[int, ...] = ()
    shield: int = NOBODY  # holder, protected tonight only
    dagger: int = NOBODY  # holder, for this day's round table(s)
    dagger_used: bool = False
    table: Table = Table()
    readings: tuple[tuple[Reading, ...], ...] = ()  # today's votes, read out
    banished_today: tuple[int, ...] = ()
    revealed_today: tuple[tuple[int, str], ...] = ()
    night_votes: tuple[NightVote | None, ...] = ()
    force_votes: tuple[int | None, ...] = ()
    pending: Pending | None = None
    answer: bool | None = None
    death_list: tuple[int, ...] = ()  # the list being written tonight
    listed: tuple[int, ...] = ()  # the published list tonight's murder comes from
    end_votes: tuple[bool | None, ...] = ()
    # game-master switches
    recruit: bool = True
    dagger_on: bool = True
    death_list_on: bool = False  # the list is written tonight
    murder_free: bool = False  # tonight
    forbid_murder: bool = False  # tonight (death-list nights only)
    tempted_today: bool = False
    history: tuple[DayRecord, ...] = ()
    fixture: str = "{}"

    def active(self, seat: int) -> bool:
        return self.status[seat] == ACTIVE

    def seats(self) -> tuple[int, ...]:
        return tuple(s for s, v in enumerate(self.status) if v == ACTIVE)

    def traitors(self) -> tuple[int, ...]:
        return tuple(s for s in self.seats() if self.role[s] == TRAITOR)

    def loyals(self) -> tuple[int, ...]:
        return tuple(s for s in self.seats() if self.role[s] == LOYAL)


T = TypeVar("T")


def put(t: tuple[T, ...], i: int, v: T) -> tuple[T, ...]:
    """`t` with item `i` replaced by `v`."""
    return (*t[:i], v, *t[i + 1 :])
