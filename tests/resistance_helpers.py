"""Helpers for the Resistance tests: `Driver` builds a started game through the
real engine with a fixed deal (the game-script `setup`) and checks every result:
`ok()` demands acceptance and a version bumped by one, `refused()` demands a
rejection with a given code and an unchanged state."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from game_driver import T0, GameDriver

from gameflow.core import actions as A
from gameflow.core.engine import apply, new_game, view
from gameflow.core.events import Event, Kind
from gameflow.core.result import Accepted, Rejected
from gameflow.games.resistance.actions import Mission, Propose, Vote
from gameflow.games.resistance.state import Resistance
from gameflow.i18n import render

HOST = "host"
NAMES = ("ana", "bo", "cy", "dag", "eli", "fred", "gro", "hal", "ida", "jon")


def players(n: int) -> list[str]:
    return list(NAMES[:n])


class Driver(GameDriver):
    """Applies actions to one Resistance game at a fake clock and checks each result."""

    @property
    def st(self) -> Resistance:
        rules: Resistance = self.game.rules
        return rules

    @property
    def phase(self) -> str:
        return self.game.phase.name

    @property
    def leader(self) -> str:
        return self.game.players[self.st.leader]

    def refused(self, action: A.Action, code: str) -> Rejected:
        before = self.game
        seen = view(before, None)
        result = apply(before, action, self.now)
        assert isinstance(result, Rejected), f"{action!r} was accepted"
        assert result.code == code, (result.code, render(result.message, "en"))
        assert view(self.game, None) == seen
        return result

    # -- inputs ----------------------------------------------------------------

    def propose(self, *team: str) -> tuple[Event, ...]:
        events = self.ok(Propose(self.leader, None, team))
        self.deadline()
        return events

    def votes(self, yes: Sequence[str] = (), no: Sequence[str] = ()) -> tuple[Event, ...]:
        """Opinion makers vote first, as they must."""
        ballots = [(p, True) for p in yes] + [(p, False) for p in no]
        makers = {self.game.players[h.seat] for h in self.st.held if h.card == "opinion_maker"}
        ballots.sort(key=lambda b: b[0] not in makers)
        for p, approve in ballots:
            self.ok(Vote(p, None, approve))
        return self.deadline()

    def all_vote(self, approve: bool) -> tuple[Event, ...]:
        if approve:
            return self.votes(yes=self.game.players)
        return self.votes(no=self.game.players)

    def mission(self, cards: Mapping[str, str]) -> tuple[Event, ...]:
        for p, card in cards.items():
            self.ok(Mission(p, None, card))
        return self.deadline()

    def run_mission(self, team: Sequence[str], fails: Sequence[str] = ()) -> tuple[Event, ...]:
        """Propose `team`, approve it, play: `fails` fail, the rest succeed."""
        self.propose(*team)
        self.all_vote(True)
        return self.mission({p: ("fail" if p in fails else "success") for p in team})


def start(
    n: int = 5,
    *,
    spies: Sequence[str] | None = ("ana", "bo"),
    leader: str | None = "cy",
    deck: Sequence[str] | None = None,
    options: Mapping[str, Any] | None = None,
    seed: int | str = 1,
) -> Driver:
    """A started game (proposal phase of mission 1). Plot cards are off unless
    `deck` (the draw order) or `options` say otherwise."""
    setup: dict[str, Any] = {}
    if spies is not None:
        setup["roles"] = {p: "spy" for p in spies}
    if leader is not None:
        setup["leader"] = leader
    if deck is not None:
        setup["plot_deck"] = list(deck)
    opts = {"auto_advance": False, "plot_cards": deck is not None, **(options or {})}
    game = new_game("resistance", "g1", HOST, seed, lang="en", options=opts, setup=setup)
    for p in players(n):
        result = apply(game, A.Join(p, None, p.capitalize()), T0)
        assert isinstance(result, Accepted), result
        game = result.state
    d = Driver(game)
    d.ok(A.Start(HOST))
    return d


def texts(events: Sequence[Event], kind: Kind | None = None) -> list[str]:
    return [render(e.text, "en") for e in events if e.text and (kind is None or e.kind == kind)]


def public_texts(events: Sequence[Event]) -> list[str]:
    return [render(e.text, "en") for e in events if e.text and e.to is None]
