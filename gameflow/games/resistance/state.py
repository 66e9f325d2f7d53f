"""Resistance's own state: small immutable records indexed by seat.

Seats (indices into `Game.players`) are used throughout instead of player ids,
as in Station. Everything secret (who is a spy, the mission cards, what a
player learned from a plot card) lives in fields the views only ever show to
the player it belongs to.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from gameflow.games.resistance.cards import OPINION_MAKER

RESISTANCE: Final = "resistance"
SPIES: Final = "spies"
SPY: Final = "spy"

PROPOSAL: Final = "proposal"
TEAM_VOTE: Final = "team_vote"
MISSION: Final = "mission"

SUCCESS: Final = "success"
FAIL: Final = "fail"

NOBODY: Final = -1
MISSIONS: Final = 5
WINS_NEEDED: Final = 3
MAX_REJECTIONS: Final = 5


class Size(NamedTuple):
    """One column of the seed's table."""

    spies: int
    teams: tuple[int, int, int, int, int]
    double_fail: int  # the mission (1-based) that needs two fails, 0 if none
    plot_cards: int  # plot cards the first leader of each mission draws


SIZES: dict[int, Size] = {
    5: Size(2, (2, 3, 2, 3, 3), 0, 1),
    6: Size(2, (2, 3, 4, 3, 4), 0, 1),
    7: Size(3, (2, 3, 3, 4, 4), 4, 2),
    8: Size(3, (3, 4, 4, 5, 5), 4, 2),
    9: Size(3, (3, 4, 4, 5, 5), 4, 3),
    10: Size(4, (3, 4, 4, 5, 5), 4, 3),
}


class Config(NamedTuple):
    """Fixed at the start from the player count and the options."""

    teams: tuple[int, ...]
    double_fail: int
    draw: int  # plot cards drawn per mission (0: plot cards off)
    heroes: bool
    proposal_seconds: float
    vote_seconds: float
    mission_seconds: float
    max_rejections: int = MAX_REJECTIONS

    def fails_needed(self, mission: int) -> int:
        return 2 if mission == self.double_fail else 1


class Held(NamedTuple):
    """A plot card in front of a player (kept or permanent), or an immediate
    card waiting for its receiver's choice."""

    seat: int
    card: str


class Fact(NamedTuple):
    """Something one player learned privately from a plot card.

    `value` is a team (`resistance` / `spies`) for the team-revealing cards and
    a mission card (`success` / `fail`) for Keeping a Close Eye on You.
    """

    mission: int
    card: str
    about: int
    value: str


class PlotUse(NamedTuple):
    """A public line of the plot-card log. `target` is NOBODY for cards whose
    target is private information (the information-revealing cards)."""

    mission: int
    card: str
    by: int  # the dealer for a deal, the player for a play
    to: int  # the receiver for a deal, NOBODY for a play
    target: int = NOBODY
    dealt: bool = False


class TeamVote(NamedTuple):
    """One finished proposal: who led, the team, the votes (None: missing,
    counted as a rejection), the outcome, and a No Confidence veto."""

    mission: int
    attempt: int
    leader: int
    team: tuple[int, ...]
    votes: tuple[bool | None, ...]
    approved: bool
    vetoed_by: int = NOBODY
    hero: str = ""


class MissionRecord(NamedTuple):
    """One finished mission, as the replay record and the history screens show
    it. Only the number of fails is public; `shown` lists the cards played face
    up (In the Spotlight)."""

    mission: int
    team: tuple[int, ...]
    fails: int
    success: bool
    rejected_teams: int
    shown: tuple[tuple[int, str], ...] = ()
    failed_by: tuple[int, ...] = ()  # who played Fail: secret until the end's reveal


class Resistance(NamedTuple):
    config: Config
    spy: tuple[bool, ...]
    leader: int
    mission: int = 1
    rejections: int = 0  # the vote track: rejected teams for this mission
    team: tuple[int, ...] = ()
    votes: tuple[bool | None, ...] = ()
    cards: tuple[str | None, ...] = ()  # mission cards this mission, by seat
    results: tuple[MissionRecord, ...] = ()
    proposals: tuple[TeamVote, ...] = ()
    # plot cards
    deck: tuple[str, ...] = ()  # the draw pile, top first
    hand: tuple[str, ...] = ()  # drawn this mission and not dealt yet (public)
    held: tuple[Held, ...] = ()  # kept and permanent cards in play
    pending: tuple[Held, ...] = ()  # immediate cards waiting for a choice
    plot_log: tuple[PlotUse, ...] = ()
    dealing_started: bool = False  # a card was given this proposal round
    strong_played: bool = False  # Strong Leader was used this proposal round
    passed: tuple[int, ...] = ()  # card holders who passed this phase
    veto: int = NOBODY  # who vetoed the approved team (No Confidence)
    spotlight: tuple[int, ...] = ()  # team members whose card is played face up
    watch: tuple[tuple[int, int], ...] = ()  # (watcher, watched) this mission
    knowledge: tuple[tuple[Fact, ...], ...] = ()  # per seat: private facts
    # hero add-on
    heroes: tuple[str, ...] = ()  # the hero list in drawn order
    hero: str = ""  # this mission round's hero card
    hero_count: int = 0
    # Team vote with opinion makers: False while only they are asked; True once
    # their votes are shown (or their time ran out) and everyone else is asked.
    opinions_shown: bool = False
    day: int = 0  # campaign: the local date (ordinal) of this mission's first proposal

    @property
    def team_size(self) -> int:
        return self.config.teams[self.mission - 1]

    def successes(self) -> int:
        return sum(1 for r in self.results if r.success)

    def failures(self) -> int:
        return sum(1 for r in self.results if not r.success)

    # Held is a (seat, card) pair, so membership is one comparison per card in C.
    def holds(self, seat: int, card: str) -> bool:
        return (seat, card) in self.held

    def owes(self, seat: int, card: str) -> bool:
        return (seat, card) in self.pending

    def opinion_makers(self) -> tuple[int, ...]:
        """The seats holding an Opinion Maker, in seat order (usually none)."""
        if not self.held:
            return ()
        return tuple(sorted({h.seat for h in self.held if h.card == OPINION_MAKER}))

    def makers_first(self) -> tuple[int, ...]:
        """The opinion makers while only they are asked in a team vote, else ()."""
        return () if self.opinions_shown else self.opinion_makers()
