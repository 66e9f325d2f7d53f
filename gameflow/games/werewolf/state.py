"""Werewolf's own state: small immutable records indexed by seat.

Seats (indices into `Game.players`) are used throughout, as in the other
games: a record can never name someone outside the game.
"""

from __future__ import annotations

from typing import Final, NamedTuple

VILLAGER: Final = "villager"
WOLF: Final = "wolf"
SEER: Final = "seer"
DOCTOR: Final = "doctor"
ROLES: Final = (VILLAGER, WOLF, SEER, DOCTOR)

VILLAGE: Final = "village"  # the winners' names (Game.winner)
WOLVES: Final = "wolves"

NOBODY: Final = -1

NIGHT: Final = "night"
DAY: Final = "day"  # the morning's news and the discussion
VOTE: Final = "vote"
REVOTE: Final = "revote"  # among the tied, once


class Morning(NamedTuple):
    """One finished night and the day after it, as the record shows them."""

    night: int
    victim: int  # the wolves' choice, or NOBODY
    saved: bool  # the doctor protected the victim
    inspected: int  # the seer's pick, or NOBODY
    protected: int  # the doctor's pick, or NOBODY
    lynched: int = NOBODY
    votes: tuple[int, ...] = ()  # the day's (last) vote, per seat (NOBODY: none)


class Werewolf(NamedTuple):
    roles: tuple[str, ...]
    dead: tuple[bool, ...]
    kills: tuple[int, ...] = ()  # the wolves' night votes, per seat
    inspect: int = NOBODY
    protect: int = NOBODY
    last_protected: int = NOBODY
    votes: tuple[int | None, ...] = ()  # the day's votes, per seat (None: not yet)
    tied: tuple[int, ...] = ()  # the re-vote's candidates
    findings: tuple[tuple[int, int, bool], ...] = ()  # (night, seat, is a wolf)
    history: tuple[Morning, ...] = ()
    day: int = 0  # the campaign day the night closes on

    def alive(self, seat: int) -> bool:
        return not self.dead[seat]

    def living(self) -> tuple[int, ...]:
        return tuple(s for s in range(len(self.roles)) if not self.dead[s])

    def wolves(self) -> tuple[int, ...]:
        return tuple(s for s in self.living() if self.roles[s] == WOLF)

    def winner(self) -> str | None:
        """The side that has won now: no wolf lives, or the wolves are at
        least as many as the others; None while the game goes on."""
        wolves = len(self.wolves())
        if wolves == 0:
            return VILLAGE
        if wolves >= len(self.living()) - wolves:
            return WOLVES
        return None
