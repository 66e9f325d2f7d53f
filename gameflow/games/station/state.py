"""Station's own state: small immutable records indexed by seat.

Seats (indices into `Game.players`) are used throughout instead of player ids:
comparisons are cheap and a record can never name someone outside the game.
"""

from __future__ import annotations

from typing import Final, NamedTuple

OUTSIDE: Final = "outside"
RADIO: Final = "radio"
GUARD: Final = "guard"
JOBS: Final = (OUTSIDE, RADIO, GUARD)
WORKER_JOBS: Final = (OUTSIDE, RADIO)

SABOTAGE: Final = "sabotage"
TRAP: Final = "trap"

LOYAL: Final = "loyal"
INFILTRATORS: Final = "infiltrators"

NOBODY: Final = -1  # a vote for "Ingen", or no partner

REVEAL_PLAYED: Final = "played"  # option reveal_guards: the played plan's guards only
REVEAL_ALL: Final = "all"  # all three plans' guards

MISSION: Final = "mission"
DISCUSSION: Final = "discussion"
VOTE: Final = "vote"


class Plan(NamedTuple):
    """One of the round's three plans: its reward and staffing."""

    reward: int
    outside: int
    radio: int
    guards: int  # guards needed before sabotage: hidden until the result


class Choice(NamedTuple):
    """A player's locked mission choice. `plan` is 0-based."""

    plan: int
    job: str
    partner: int = NOBODY
    sabotage: bool = False
    trap: bool = False


class Trap(NamedTuple):
    """The round's trap card: held by `by`, naming `victim` and the job they must take."""

    by: int
    victim: int
    job: str


class Outcome(NamedTuple):
    """What the winning plan achieved. Saboteur counts stay out of it on purpose:
    the result screen must not reveal how many sabotaged."""

    plan: int
    success: bool
    outside: int
    outside_needed: int
    radio: int
    radio_needed: int
    guards_ok: bool
    hit: bool  # the trap's conditions were met


class Hit(NamedTuple):
    seat: int
    effect: str  # "injured" | "killed"


class RoundRecord(NamedTuple):
    """One finished round, as the replay record and the history screens show it."""

    round: int
    plan: int
    success: bool
    parts: int
    damage: int
    out: int  # voted out this round (NOBODY if none)
    checked: int  # the last round's check (NOBODY if none)
    hit: Hit | None
    plans: tuple[Plan, ...]
    choices: tuple[Choice | None, ...]
    votes: tuple[int | None, ...]
    outcome: Outcome
    trap: Trap | None


class Config(NamedTuple):
    """Fixed at the start from the player count and options."""

    rounds: int
    target: int
    limit: int  # damage that destroys the station
    death_cap: int
    injury_first: bool  # 5–6 players: the first hit injures instead of killing
    mission_seconds: float
    discussion_seconds: float
    vote_seconds: float
    traps: bool


class Station(NamedTuple):
    config: Config
    infiltrator: tuple[bool, ...]
    professions: tuple[str, ...]
    missions: tuple[str, ...]  # mission titles in drawn order, one per round
    parts: int = 0
    damage: int = 0
    dead: tuple[bool, ...] = ()
    deaths: int = 0
    injured: int = NOBODY  # restricted from the outside job in `injured_round`
    injured_round: int = 0
    injury_used: bool = False
    out: int = NOBODY  # sitting out in `out_round`
    out_round: int = 0
    plans: tuple[Plan, ...] = ()
    cards: tuple[int, ...] = ()  # plan index each seat was told about, NOBODY if none
    trap: Trap | None = None
    active_seats: tuple[int, ...] = ()  # alive and not sitting out, this round
    choices: tuple[Choice | None, ...] = ()
    votes: tuple[int | None, ...] = ()
    outcome: Outcome | None = None
    before: tuple[int, int] = (0, 0)  # parts and damage before this round's mission
    history: tuple[RoundRecord, ...] = ()
    fixture: str = "{}"  # the script's fixed rounds (canonical JSON), if any
    day: int = 0  # campaign: the local date (ordinal) of this round's mission close

    def active(self, seat: int, round_: int) -> bool:
        """Alive and not sitting out this round."""
        return not self.dead[seat] and not (seat == self.out and round_ == self.out_round)
