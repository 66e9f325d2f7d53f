"""Resistance rules, one transition at a time: the size table, proposals, votes,
missions, the end of the game, every plot card, the hero add-on, timers and the
defaults for missing input, and the refusals with their reason codes.

`Driver` (also used by test_resistance_props.py) builds a started game through
the real engine with a fixed deal (the game-script `setup`) and checks every
result: `ok()` demands acceptance and a version bumped by one, `refused()`
demands a rejection with a given code and an unchanged state.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from gameflow.core import actions as A
from gameflow.core.engine import apply, legal, new_game, view
from gameflow.core.events import Event, Kind
from gameflow.core.result import Accepted, Rejected
from gameflow.core.state import HOST_VIEW, Game
from gameflow.games.resistance import RESISTANCE, StepError
from gameflow.games.resistance.actions import Give, Mission, Pass, Play, Propose, Vote
from gameflow.games.resistance.cards import CARD_IDS, PLOT_CARDS, deck_for, shipped_heroes
from gameflow.games.resistance.state import SIZES, Resistance
from gameflow.i18n import render
from gameflow.replay import record, run

pytestmark = pytest.mark.resistance

HOST = "host"
T0 = 1_700_000_000.0
NAMES = ("ana", "bo", "cy", "dag", "eli", "fred", "gro", "hal", "ida", "jon")


def players(n: int) -> list[str]:
    return list(NAMES[:n])


class Driver:
    """Applies actions to one Resistance game at a fake clock and checks each result."""

    def __init__(self, game: Game, now: float = T0) -> None:
        self.game = game
        self.now = now
        self.events: tuple[Event, ...] = ()
        self.log: list[tuple[A.Action, float]] = []

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

    def apply(self, action: A.Action) -> Accepted[Game] | Rejected:
        result = apply(self.game, action, self.now)
        if isinstance(result, Accepted):
            self.log.append((action, self.now))
            self.game = result.state
            self.events = result.events
        return result

    def ok(self, action: A.Action) -> tuple[Event, ...]:
        before = self.game.version
        result = self.apply(action)
        assert isinstance(result, Accepted), f"{action!r} refused: {result}"
        assert self.game.version == before + 1
        return result.events

    def refused(self, action: A.Action, code: str) -> Rejected:
        before = self.game
        seen = view(before, None)
        result = apply(before, action, self.now)
        assert isinstance(result, Rejected), f"{action!r} was accepted"
        assert result.code == code, (result.code, render(result.message, "en"))
        assert view(self.game, None) == seen
        return result

    def deadline(self) -> tuple[Event, ...]:
        due = self.game.phase.deadline
        if due is not None:
            self.now = max(self.now, due)
        return self.ok(A.Deadline(None, self.game.phase.seq))

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


# -- the size table ------------------------------------------------------------------


TABLE = {  # players: (spies, team sizes, mission 4 needs two fails)
    5: (2, (2, 3, 2, 3, 3), False),
    6: (2, (2, 3, 4, 3, 4), False),
    7: (3, (2, 3, 3, 4, 4), True),
    8: (3, (3, 4, 4, 5, 5), True),
    9: (3, (3, 4, 4, 5, 5), True),
    10: (4, (3, 4, 4, 5, 5), True),
}


@pytest.mark.parametrize("n", sorted(TABLE))
def test_the_size_table(n: int) -> None:
    spies, teams, double = TABLE[n]
    assert SIZES[n].spies == spies and SIZES[n].teams == teams
    d = start(n, spies=None, leader=None, seed=n)
    assert sum(d.st.spy) == spies
    assert d.st.config.teams == teams
    assert (d.st.config.double_fail == 4) == double
    for mission, size in enumerate(teams, start=1):
        assert d.st.mission == mission
        team = [d.leader, *[p for p in d.game.players if p != d.leader]]
        d.refused(Propose(d.leader, None, tuple(team[: size - 1])), "team_size")
        d.refused(Propose(d.leader, None, tuple(team[: size + 1])), "team_size")
        resistance = [p for p in d.game.players if not d.st.spy[d.game.seat(p)]]
        d.run_mission(resistance[:size])
        if mission == 3:
            break
    assert d.game.over and d.game.winner == "resistance"


@pytest.mark.parametrize("n", [5, 6, 7, 8, 9, 10])
def test_mission_four_needs_two_fails_with_seven_or_more(n: int) -> None:
    spies = list(players(n)[: TABLE[n][0]])
    d = start(n, spies=spies, leader=players(n)[-1])
    teams = TABLE[n][1]
    others = [p for p in players(n) if p not in spies]
    # missions 1-3: success, fail, fail (using spies for the fails)
    d.run_mission(others[: teams[0]])
    d.run_mission([spies[0], *others[: teams[1] - 1]], fails=[spies[0]])
    d.run_mission([spies[0], *others[: teams[2] - 1]], fails=[spies[0]])
    # mission 4 with one fail card
    d.run_mission([spies[0], spies[1], *others[: teams[3] - 2]], fails=[spies[0]])
    rec = d.st.results[3]
    assert rec.fails == 1
    assert rec.success == TABLE[n][2]
    if TABLE[n][2]:
        assert not d.game.over
        d.run_mission([spies[0], spies[1], *others[: teams[4] - 2]], fails=spies[:2])
        assert d.st.results[4].fails == 2 and not d.st.results[4].success
    assert d.game.over and d.game.winner == "spies"


def test_spies_learn_each_other_and_the_resistance_learns_nothing() -> None:
    game = new_game("resistance", "g", HOST, 7, lang="en", options={"plot_cards": False})
    for p in players(7):
        game = apply(game, A.Join(p, None, p.capitalize()), T0).state  # type: ignore[union-attr]
    result = apply(game, A.Start(HOST), T0)
    assert isinstance(result, Accepted)
    st: Resistance = result.state.rules
    spies = {p for i, p in enumerate(players(7)) if st.spy[i]}
    tells = {e.to: e for e in result.events if e.kind == Kind.TELL}
    assert set(tells) == set(players(7))
    for who, e in tells.items():
        assert e.secret
        text = render(e.text, "en") if e.text else ""
        if who in spies:
            assert all(s.capitalize() in text for s in spies)
        else:
            assert text == "You are in the RESISTANCE."
    # the draw is the seed's: the same seed, the same spies and leader
    again = apply(game, A.Start(HOST), T0)
    assert isinstance(again, Accepted) and again.state == result.state


# -- proposals and votes --------------------------------------------------------------------


def test_leadership_passes_after_every_vote_approved_or_rejected() -> None:
    d = start(5, leader="dag")
    assert d.leader == "dag"
    d.propose("dag", "eli")
    d.all_vote(False)
    assert d.leader == "eli" and d.phase == "proposal" and d.st.rejections == 1
    d.propose("eli", "cy")
    d.all_vote(True)
    assert d.leader == "ana" and d.phase == "mission"
    d.mission({"eli": "success", "cy": "success"})
    assert d.leader == "ana" and d.st.mission == 2 and d.st.rejections == 0
    # wrapping around the seats
    d2 = start(5, leader="eli")
    d2.propose("eli", "cy")
    d2.all_vote(False)
    assert d2.leader == "ana"


def test_strict_majority_a_tie_and_missing_votes_reject() -> None:
    d = start(6, leader="cy")
    d.propose("cy", "dag")
    d.votes(yes=["ana", "bo", "cy"], no=["dag", "eli", "fred"])  # 3-3 tie
    assert d.phase == "proposal" and d.st.proposals[-1].approved is False
    d.propose("dag", "eli")
    d.votes(yes=["ana", "bo", "cy"])  # three missing votes count as reject
    assert d.phase == "proposal"
    assert d.st.proposals[-1].votes == (True, True, True, None, None, None)
    d.propose("eli", "fred")
    d.votes(yes=["ana", "bo", "cy", "dag"])  # 4 of 6
    assert d.phase == "mission"


def test_votes_are_shown_only_after_all_are_in() -> None:
    d = start(5)
    d.propose("cy", "dag")
    d.ok(Vote("ana", None, False))
    pub = view(d.game, None)["resistance"]
    assert pub["ready"] == 1 and pub["active"] == 5
    assert "False" not in json.dumps(pub) and "false" not in json.dumps(pub["proposals"])
    assert public_texts(d.events) == []
    assert view(d.game, "ana")["you"]["vote"] is False
    assert "vote" not in view(d.game, "bo")["you"]
    events = d.votes(yes=["bo", "cy", "dag", "eli"])
    shown = view(d.game, None)["resistance"]["proposals"][-1]["votes"]
    assert shown == {"ana": False, "bo": True, "cy": True, "dag": True, "eli": True}
    assert "The team is approved (4 of 5). Approve: Bo, Cy, Dag, Eli. Reject: Ana." in public_texts(
        events
    )


def test_five_rejections_in_a_row_win_for_the_spies() -> None:
    d = start(5)
    for i in range(5):
        assert not d.game.over
        assert d.st.rejections == i
        d.propose(d.leader, "ana" if d.leader != "ana" else "bo")
        d.all_vote(False)
    assert d.game.over and d.game.winner == "spies"
    assert view(d.game, None)["resistance"]["roles"]["ana"] == "spy"


def test_the_vote_track_resets_after_a_mission_and_is_recorded() -> None:
    d = start(5)
    d.propose("cy", "dag")
    d.all_vote(False)
    d.propose("dag", "eli")
    d.all_vote(False)
    d.propose("eli", "cy")
    d.all_vote(True)
    d.mission({"eli": "success", "cy": "success"})
    assert d.st.rejections == 0
    assert d.st.results[0].rejected_teams == 2


# -- missions and the end -------------------------------------------------------------------


def test_mission_cards_are_secret_and_only_fails_are_counted() -> None:
    d = start(5)
    d.propose("cy", "ana")
    d.all_vote(True)
    events = d.ok(Mission("ana", None, "fail"))
    assert [e.kind for e in events if e.text] == [Kind.TELL]
    assert '"fail"' not in json.dumps(view(d.game, None))
    assert view(d.game, "ana")["you"]["card"] == "fail"
    assert "card" not in view(d.game, "cy")["you"]
    events = d.deadline()  # cy's card is missing: it counts as a success
    rec = view(d.game, None)["resistance"]["missions"][0]
    assert rec == {
        "mission": 1,
        "team": ["cy", "ana"],
        "fails": 1,
        "success": False,
        "rejected_teams": 0,
    }
    assert "Mission 1 failed (1 fail card)." in public_texts(events)


def test_three_successes_win_for_the_resistance_and_roles_are_revealed() -> None:
    d = start(5)
    d.run_mission(["cy", "dag"])
    d.run_mission(["dag", "eli", "cy"])
    assert "roles" not in view(d.game, None)["resistance"]
    events = d.run_mission(["eli", "cy"])
    assert d.game.over and d.game.winner == "resistance"
    pub = view(d.game, None)
    assert pub["resistance"]["roles"] == {
        "ana": "spy",
        "bo": "spy",
        "cy": "resistance",
        "dag": "resistance",
        "eli": "resistance",
    }
    assert pub["seed"] == d.game.seed
    assert "The spies were: Ana, Bo." in public_texts(events)
    assert any(e.kind == Kind.OVER for e in events)


def test_three_failed_missions_win_for_the_spies() -> None:
    d = start(5)
    d.run_mission(["cy", "ana"], fails=["ana"])
    d.run_mission(["dag", "eli", "bo"], fails=["bo"])
    assert not d.game.over
    d.run_mission(["eli", "ana"], fails=["ana"])
    assert d.game.over and d.game.winner == "spies"
    assert d.game.legal if False else legal(d.game, "cy") == ()


# -- refusals --------------------------------------------------------------------------------


def test_refusals_with_their_reasons() -> None:
    d = start(5, deck=["no_confidence", "strong_leader"])
    d.refused(Propose("dag", None, ("dag", "eli")), "not_leader")
    d.refused(Give("dag", None, "no_confidence", "eli"), "not_leader")
    d.refused(Give("cy", None, "no_confidence", "cy"), "bad_receiver")
    d.refused(Give("cy", None, "no_confidence", "zed"), "bad_receiver")
    d.refused(Give("cy", None, "strong_leader", "dag"), "not_in_hand")
    d.refused(Play("dag", None, "no_confidence"), "not_held")
    d.refused(Play("dag", None, "bogus"), "unknown_card")
    d.refused(Vote("dag", None, True), "wrong_phase")
    d.refused(Mission("cy", None, "success"), "wrong_phase")
    d.ok(Give("cy", None, "no_confidence", "dag"))
    d.refused(Give("cy", None, "no_confidence", "eli"), "no_cards")
    d.refused(Play("dag", None, "no_confidence"), "wrong_time")  # not in the proposal phase
    d.refused(Propose("cy", None, ("cy", "cy")), "duplicate")
    d.refused(Propose("cy", None, ("cy", "zed")), "bad_member")
    d.refused(Propose("cy", None, ("cy", "dag", "eli")), "team_size")
    d.ok(Propose("cy", None, ("cy", "ana")))
    d.refused(Propose("cy", None, ("cy", "bo")), "locked")
    d.deadline()
    d.refused(Propose("dag", None, ("dag", "eli")), "wrong_phase")
    d.ok(Vote("eli", None, True))
    d.refused(Vote("eli", None, False), "locked")
    d.refused(Vote("zed", None, False), "not_in_game")
    d.votes(yes=["ana", "bo", "cy"])
    d.refused(Mission("dag", None, "success"), "not_on_team")
    d.refused(Mission("cy", None, "fail"), "resistance_fail")
    d.refused(Mission("ana", None, "sabotage"), "bad_card")
    d.ok(Mission("ana", None, "fail"))
    d.refused(Mission("ana", None, "success"), "locked")
    d.refused(Pass("eli"), "nothing_to_pass")
    stale = Vote("eli", d.game.phase.seq - 1, True)
    d.refused(stale, "stale")


def test_script_steps_parse_and_print_back() -> None:
    steps: list[dict[str, Any]] = [
        {"as": "cy", "do": "propose", "team": ["cy", "dag"]},
        {"as": "ana", "do": "vote", "approve": True},
        {"as": "ana", "do": "mission", "card": "fail"},
        {"as": "cy", "do": "give", "card": "open_up", "to": "dag"},
        {"as": "dag", "do": "play", "card": "open_up", "target": "eli"},
        {"as": "dag", "do": "play", "card": "no_confidence"},
        {"as": "dag", "do": "play", "card": "take_responsibility", "target": "a", "take": "x"},
        {"as": "dag", "do": "pass"},
    ]
    for step in steps:
        action = RESISTANCE.parse_step(step)
        assert action is not None
        assert RESISTANCE.step_of(action) == step
    assert RESISTANCE.parse_step({"do": "choose"}) is None
    for bad in (
        {"as": "cy", "do": "propose", "team": "cy"},
        {"as": "cy", "do": "vote", "approve": "yes"},
        {"as": "cy", "do": "mission"},
        {"as": "cy", "do": "give", "card": "open_up"},
        {"as": "cy", "do": "play", "card": "open_up", "target": 3},
    ):
        with pytest.raises(StepError):
            RESISTANCE.parse_step(bad)


# -- plot cards ------------------------------------------------------------------------------


def test_the_deck_as_data() -> None:
    full = deck_for(7, "auto")
    assert len(full) == 15
    assert {c: full.count(c) for c in set(full)} == {
        "strong_leader": 2,
        "no_confidence": 3,
        "keeping_close_eye": 2,
        "in_the_spotlight": 1,
        "opinion_maker": 2,
        "take_responsibility": 1,
        "overheard_conversation": 2,
        "establish_confidence": 1,
        "open_up": 1,
    }
    reduced = deck_for(5, "auto")
    assert sorted(reduced) == sorted(
        ["strong_leader"] * 2
        + ["no_confidence", "opinion_maker", "take_responsibility"]
        + ["keeping_close_eye"] * 2
    )
    assert deck_for(5, "full") == full and deck_for(9, "reduced") == reduced
    assert set(CARD_IDS) == {c.id for c in PLOT_CARDS} and len(CARD_IDS) == 9


@pytest.mark.parametrize("n,draw", [(5, 1), (6, 1), (7, 2), (8, 2), (9, 3), (10, 3)])
def test_the_first_leader_of_each_mission_draws_by_player_count(n: int, draw: int) -> None:
    d = start(n, spies=players(n)[:2], leader="cy", options={"plot_cards": True})
    assert len(d.st.hand) == draw
    assert len(d.st.deck) == len(deck_for(n, "auto")) - draw
    assert view(d.game, None)["resistance"]["plot"]["hand"] == list(d.st.hand)
    while d.st.hand:
        d.ok(Give("cy", None, d.st.hand[0], "dag"))
    d.ok(Propose("cy", None, tuple(players(n)[2 : 2 + d.st.team_size])))
    d.deadline()
    d.all_vote(False)
    assert d.st.hand == ()  # later proposals of the same mission draw nothing
    # a missed deal at the deadline: the cards go to drawn players, never the leader
    d2 = start(n, spies=players(n)[:2], leader="cy", options={"plot_cards": True})
    d2.deadline()
    got = [u for u in d2.st.plot_log if u.dealt]
    assert len(got) == draw and all(u.to != d2.game.seat("cy") for u in got)
    assert d2.phase == "team_vote" and len(d2.st.team) == d2.st.team_size


def test_plot_cards_default_on_and_their_hands_are_public() -> None:
    assert RESISTANCE.default_options()["plot_cards"] is True
    d = start(5, deck=["no_confidence", "opinion_maker"])
    events = d.ok(Give("cy", None, "no_confidence", "dag"))
    assert "Cy gives the plot card No Confidence to Dag." in public_texts(events)
    held = view(d.game, None)["resistance"]["plot"]["held"]
    assert held == [{"player": "dag", "card": "no_confidence"}]


def test_strong_leader_takes_the_lead_before_the_cards_are_dealt() -> None:
    d = start(5, deck=["strong_leader", "no_confidence", "opinion_maker"])
    d.ok(Give("cy", None, "strong_leader", "eli"))
    d.ok(Propose("cy", None, ("cy", "dag")))
    d.refused(Play("eli", None, "strong_leader"), "wrong_time")  # the team is proposed
    d.deadline()
    d.all_vote(False)
    assert d.leader == "dag" and d.st.hand == ()
    events = d.ok(Play("eli", None, "strong_leader"))
    assert d.leader == "eli"
    assert "Eli plays Strong Leader and becomes the leader." in public_texts(events)
    assert not d.st.holds(d.game.seat("eli"), "strong_leader")  # single use
    d.propose("eli", "cy")
    d.all_vote(True)
    assert d.leader == "ana"  # leadership goes on from the strong leader
    d.mission({"eli": "success", "cy": "success"})
    # the new mission's cards: a strong leader acts before the dealing starts
    d2 = start(5, deck=["strong_leader", "no_confidence"])
    d2.ok(Give("cy", None, "strong_leader", "eli"))
    d2.run_mission(["cy", "dag"])
    assert d2.leader == "dag" and d2.st.hand == ("no_confidence",)
    d2.ok(Play("eli", None, "strong_leader"))
    d2.refused(Give("dag", None, "no_confidence", "cy"), "not_leader")
    d2.ok(Give("eli", None, "no_confidence", "cy"))


def test_the_leader_may_propose_before_giving_and_is_waited_for() -> None:
    d = start(5, deck=["no_confidence"], options={"auto_advance": True})
    d.ok(Propose("cy", None, ("cy", "dag")))
    assert d.phase == "proposal" and RESISTANCE.awaiting(d.game) == (d.game.seat("cy"),)
    assert [s.kind for s in legal(d.game, "cy")] == ["give"]
    d.ok(Give("cy", None, "no_confidence", "eli"))
    assert d.phase == "team_vote"


def test_strong_leader_is_refused_once_the_dealing_started() -> None:
    d = start(5, deck=["strong_leader", "no_confidence"])
    d.ok(Give("cy", None, "strong_leader", "eli"))
    d.run_mission(["cy", "dag"])
    d.ok(Give("dag", None, "no_confidence", "cy"))
    d.refused(Play("eli", None, "strong_leader"), "wrong_time")


def test_no_confidence_vetoes_an_approved_team() -> None:
    d = start(5, deck=["no_confidence"])
    d.ok(Give("cy", None, "no_confidence", "dag"))
    d.propose("cy", "ana")
    d.refused(Play("dag", None, "no_confidence"), "wrong_time")  # not during the vote
    d.all_vote(True)
    assert d.phase == "mission" and "dag" in [
        p for p in d.game.players if d.game.seat(p) in RESISTANCE.awaiting(d.game)
    ]
    events = d.ok(Play("dag", None, "no_confidence"))
    assert "Dag plays No Confidence: the team is vetoed." in public_texts(events)
    d.refused(Mission("ana", None, "fail"), "vetoed")
    assert RESISTANCE.awaiting(d.game) == ()
    d.deadline()
    assert d.phase == "proposal" and d.st.rejections == 1 and d.leader == "dag"
    assert d.st.proposals[-1].approved and d.st.proposals[-1].vetoed_by == d.game.seat("dag")
    d.run_mission(["dag", "eli"])
    assert d.st.results[0].rejected_teams == 1
    assert d.st.held == ()


def test_a_fifth_rejection_by_veto_wins_for_the_spies() -> None:
    d = start(5, deck=["no_confidence"])
    d.ok(Give("cy", None, "no_confidence", "ana"))
    for _ in range(4):
        d.propose(d.leader, "dag" if d.leader != "dag" else "eli")
        d.all_vote(False)
    d.propose(d.leader, "dag" if d.leader != "dag" else "eli")
    d.all_vote(True)
    d.ok(Play("ana", None, "no_confidence"))
    d.deadline()
    assert d.game.over and d.game.winner == "spies"


def test_keeping_a_close_eye_tells_only_the_watcher() -> None:
    d = start(7, spies=["ana", "bo", "fred"], deck=["keeping_close_eye", "keeping_close_eye"])
    d.ok(Give("cy", None, "keeping_close_eye", "dag"))
    d.ok(Give("cy", None, "keeping_close_eye", "eli"))
    d.propose("cy", "ana")
    d.all_vote(True)
    d.refused(Play("dag", None, "keeping_close_eye", "eli"), "bad_target")  # not on the team
    events = d.ok(Play("dag", None, "keeping_close_eye", "ana"))
    assert public_texts(events) == []
    assert "ana" not in json.dumps(view(d.game, None)["resistance"]["plot"])
    d.refused(Play("eli", None, "keeping_close_eye", "ana"), "bad_target")  # already watched
    d.ok(Pass("eli"))
    d.ok(Mission("ana", None, "fail"))
    d.ok(Mission("cy", None, "success"))
    events = d.deadline()
    told = [e for e in events if e.text and "Close Eye" in e.text.msgid]
    assert len(told) == 1
    assert told[0].kind == Kind.TELL and told[0].to == "dag" and told[0].secret
    assert texts(told) == ["Keeping a Close Eye on You: Ana played Fail."]
    assert all("Ana played" not in t for t in public_texts(events))
    learned = view(d.game, "dag")["you"]["learned"]
    assert learned == [
        {"mission": 1, "card": "keeping_close_eye", "player": "ana", "value": "fail"}
    ]
    assert view(d.game, "eli")["you"]["learned"] == []


def test_in_the_spotlight_shows_one_card_to_everyone() -> None:
    d = start(7, spies=["ana", "bo", "fred"], deck=["in_the_spotlight", "opinion_maker"])
    d.ok(Give("cy", None, "in_the_spotlight", "dag"))
    d.ok(Give("cy", None, "opinion_maker", "gro"))
    d.propose("cy", "ana")
    d.ok(Vote("gro", None, True))
    d.votes(yes=["ana", "bo", "cy", "dag"])
    d.refused(Play("dag", None, "in_the_spotlight", "eli"), "bad_target")
    events = d.ok(Play("dag", None, "in_the_spotlight", "ana"))
    assert any("Ana in the spotlight" in t for t in public_texts(events))
    d.ok(Mission("ana", None, "fail"))
    events = d.deadline()
    assert "In the spotlight, Ana played Fail." in public_texts(events)
    assert view(d.game, None)["resistance"]["missions"][0]["shown"] == {"ana": "fail"}


def test_opinion_makers_vote_first_and_in_public() -> None:
    d = start(7, spies=["ana", "bo", "fred"], deck=["opinion_maker", "opinion_maker"])
    d.ok(Give("cy", None, "opinion_maker", "dag"))
    d.ok(Give("cy", None, "opinion_maker", "eli"))
    d.propose("cy", "dag")
    d.refused(Vote("ana", None, True), "opinion_first")
    assert [s.kind for s in legal(d.game, "ana")] == []
    events = d.ok(Vote("dag", None, False))
    assert public_texts(events) == []  # two holders reveal together
    assert "opinion_votes" not in view(d.game, None)["resistance"]
    events = d.ok(Vote("eli", None, True))
    assert "The opinion makers have voted: Dag: reject, Eli: approve." in public_texts(events)
    assert view(d.game, None)["resistance"]["opinion_votes"] == {"dag": False, "eli": True}
    d.ok(Vote("ana", None, True))
    # permanent: still in play for the next vote
    d.deadline()
    assert d.st.holds(d.game.seat("dag"), "opinion_maker")


def test_take_responsibility_takes_a_card_or_nothing() -> None:
    d = start(
        9,
        spies=["ana", "bo", "cy"],
        leader="dag",
        deck=["take_responsibility", "no_confidence", "opinion_maker"],
    )
    events = d.ok(Give("dag", None, "take_responsibility", "eli"))
    assert "There is no plot card to take; the card is discarded." in public_texts(events)
    assert d.st.pending == ()
    d.ok(Give("dag", None, "no_confidence", "fred"))
    d.ok(Give("dag", None, "opinion_maker", "fred"))
    d2 = start(
        9,
        spies=["ana", "bo", "cy"],
        leader="dag",
        deck=["no_confidence", "opinion_maker", "take_responsibility"],
    )
    d2.ok(Give("dag", None, "no_confidence", "fred"))
    d2.ok(Give("dag", None, "opinion_maker", "fred"))
    d2.ok(Give("dag", None, "take_responsibility", "eli"))
    assert RESISTANCE.awaiting(d2.game) == (d2.game.seat("dag"), d2.game.seat("eli"))
    d2.refused(Play("eli", None, "take_responsibility", "gro"), "bad_target")
    d2.refused(Play("eli", None, "take_responsibility", "fred", "strong_leader"), "bad_take")
    events = d2.ok(Play("eli", None, "take_responsibility", "fred", "opinion_maker"))
    assert "Eli takes the plot card Opinion Maker from Fred." in public_texts(events)
    assert d2.st.holds(d2.game.seat("eli"), "opinion_maker")
    assert not d2.st.holds(d2.game.seat("fred"), "opinion_maker")
    assert d2.st.holds(d2.game.seat("fred"), "no_confidence")
    d2.refused(Play("eli", None, "take_responsibility", "fred"), "not_held")


def _only_secret_tell(events: Sequence[Event], to: str, text: str) -> None:
    """The card's information went to `to` alone, secretly, and nothing public was said."""
    informative = [e for e in events if e.text and render(e.text, "en") == text]
    assert len(informative) == 1
    e = informative[0]
    assert e.kind == Kind.TELL and e.to == to and e.secret
    assert public_texts(events) == []


def test_overheard_conversation_reveals_a_neighbour_to_the_receiver_only() -> None:
    d = start(
        7,
        spies=["ana", "bo", "fred"],
        leader="gro",
        deck=["overheard_conversation", "overheard_conversation"],
    )
    d.ok(Give("gro", None, "overheard_conversation", "ana"))  # ana sits between gro and bo
    d.ok(Give("gro", None, "overheard_conversation", "dag"))
    assert [f.options for s in legal(d.game, "ana") for f in s.fields if f.name == "target"] == [
        ("bo", "gro")
    ]
    d.refused(Play("ana", None, "overheard_conversation", "cy"), "bad_target")
    events = d.ok(Play("ana", None, "overheard_conversation", "gro"))
    _only_secret_tell(events, "ana", "Overheard Conversation: Gro is a member of the resistance.")
    events = d.ok(Play("dag", None, "overheard_conversation", "cy"))
    _only_secret_tell(events, "dag", "Overheard Conversation: Cy is a member of the resistance.")
    assert view(d.game, "dag")["you"]["learned"][0]["player"] == "cy"
    pub = json.dumps(view(d.game, None))
    assert '"target"' not in pub


def test_establish_confidence_shows_the_leader_to_the_receiver() -> None:
    d = start(
        7, spies=["ana", "bo", "fred"], leader="bo", deck=["establish_confidence", "no_confidence"]
    )
    events = d.ok(Give("bo", None, "establish_confidence", "eli"))
    secret = [e for e in events if e.secret]
    assert len(secret) == 1 and secret[0].to == "eli"
    assert texts(secret) == ["Establish Confidence: the leader Bo is a spy."]
    assert all("spy" not in t for t in public_texts(events))
    assert view(d.game, "eli")["you"]["learned"] == [
        {"mission": 1, "card": "establish_confidence", "player": "bo", "value": "spies"}
    ]
    assert "spies" not in json.dumps(view(d.game, None)) and "spies" not in json.dumps(
        view(d.game, "cy")["you"]
    )


def test_open_up_shows_the_receiver_to_the_player_they_choose() -> None:
    d = start(7, spies=["ana", "bo", "fred"], deck=["open_up", "no_confidence"])
    d.ok(Give("cy", None, "open_up", "fred"))
    d.refused(Play("fred", None, "open_up", "fred"), "bad_target")
    events = d.ok(Play("fred", None, "open_up", "gro"))
    informative = [e for e in events if e.secret]
    assert len(informative) == 1 and informative[0].to == "gro"
    assert texts(informative) == ["Open Up: Fred shows you that they are a spy."]
    assert public_texts(events) == []
    assert all("spy" not in texts([e])[0] for e in events if e.text and e.to != "gro")
    assert view(d.game, "gro")["you"]["learned"][0] == {
        "mission": 1,
        "card": "open_up",
        "player": "fred",
        "value": "spies",
    }


def test_waiting_immediate_cards_are_settled_at_the_deadline() -> None:
    d = start(7, spies=["ana", "bo", "fred"], deck=["open_up", "overheard_conversation"])
    d.ok(Give("cy", None, "open_up", "eli"))
    d.ok(Give("cy", None, "overheard_conversation", "dag"))
    events = d.deadline()
    assert d.phase == "team_vote" and d.st.pending == ()
    secret = [e for e in events if e.secret]
    assert {e.to for e in secret} >= {"dag"} and len(secret) == 2
    assert len(d.st.knowledge[d.game.seat("dag")]) == 1
    assert any("did not propose in time" in t for t in public_texts(events))


# -- heroes, timers, options -----------------------------------------------------------------


def test_heroes_are_off_by_default_and_drawn_each_round_when_on() -> None:
    assert RESISTANCE.default_options()["heroes"] is False
    d = start(5)
    assert "hero" not in view(d.game, None)["resistance"]
    d = start(5, options={"heroes": True})
    first = d.st.hero
    assert first in shipped_heroes("en")
    assert view(d.game, None)["resistance"]["hero"] == first
    d.propose("cy", "dag")
    events = d.all_vote(False)
    assert d.st.hero != first
    assert f"Hero card: {d.st.hero}" in public_texts(events)
    custom = start(5, options={"heroes": True, "hero_cards": "Sing!\n# comment\n\nDance!\n"})
    assert custom.st.heroes in (("Sing!", "Dance!"), ("Dance!", "Sing!"))


@pytest.mark.parametrize("lang", ["nb", "sr", "en"])
def test_hero_lists_ship_for_every_language(lang: str) -> None:
    heroes = shipped_heroes(lang)
    assert len(heroes) >= 10
    assert len(heroes) == len(shipped_heroes("en"))


def test_timers_are_configurable_and_missing_inputs_have_defaults() -> None:
    opts = RESISTANCE.default_options()
    assert (opts["proposal_seconds"], opts["vote_seconds"], opts["mission_seconds"]) == (
        180.0,
        120.0,
        60.0,
    )
    d = start(5, options={"proposal_seconds": 30.0, "vote_seconds": 20.0, "mission_seconds": 10.0})
    assert d.game.phase.deadline == T0 + 30.0
    d.refused(A.Deadline(None, d.game.phase.seq), "not_due")
    d.deadline()  # the leader missed it: a drawn team with the leader on it
    assert d.phase == "team_vote" and "cy" in [d.game.players[s] for s in d.st.team]
    assert d.game.phase.deadline == d.now + 20.0
    d.ok(Vote("cy", None, True))
    d.ok(Vote("dag", None, True))
    d.ok(Vote("eli", None, True))
    d.deadline()  # ana and bo missed it: rejections, but 3 of 5 approve
    assert d.phase == "mission" and d.game.phase.deadline == d.now + 10.0
    d.deadline()  # nobody played: every card counts as a success
    assert d.st.results[0].fails == 0 and d.st.results[0].success


def test_auto_advance_waits_for_card_holders_in_the_mission() -> None:
    d = start(5, deck=["no_confidence"], options={"auto_advance": True})
    d.ok(Give("cy", None, "no_confidence", "eli"))
    d.ok(Propose("cy", None, ("cy", "dag")))
    assert d.phase == "team_vote"  # everyone ready: the proposal closed by itself
    for p in d.game.players:
        d.ok(Vote(p, None, True))
    assert d.phase == "mission"
    d.ok(Mission("cy", None, "success"))
    d.ok(Mission("dag", None, "success"))
    assert d.phase == "mission"  # eli may still use No Confidence
    d.ok(Pass("eli"))
    assert d.st.mission == 2 and d.phase == "proposal"


def test_views_host_and_players() -> None:
    d = start(5, deck=["no_confidence"])
    host = view(d.game, HOST_VIEW)
    assert host["waiting"] == ["cy"]
    ana = view(d.game, "ana")["you"]
    assert ana["role"] == "spy" and ana["spies"] == ["ana", "bo"]
    cy = view(d.game, "cy")["you"]
    assert cy["role"] == "resistance" and "spies" not in cy
    assert [s["kind"] for s in cy["legal"]] == ["give", "propose"]
    assert "spy" not in json.dumps(view(d.game, None)) and "spy" not in json.dumps(host)


# -- game scripts ------------------------------------------------------------------------------


def test_a_plot_card_script_replays_identically() -> None:
    script = {
        "game": "resistance",
        "players": players(7),
        "seed": 3,
        "setup": {
            "roles": {"ana": "spy", "bo": "spy", "fred": "spy"},
            "leader": "cy",
            "plot_deck": ["no_confidence", "keeping_close_eye", "strong_leader", "opinion_maker"],
        },
        "steps": [
            {"as": "cy", "do": "give", "card": "no_confidence", "to": "dag"},
            {"as": "cy", "do": "give", "card": "keeping_close_eye", "to": "eli"},
            {"as": "cy", "do": "propose", "team": ["cy", "ana"]},
            {"do": "advance"},
            *({"as": p, "do": "vote", "approve": True} for p in players(7)),
            {"do": "advance"},
            {"as": "dag", "do": "play", "card": "no_confidence"},
            {"as": "ana", "do": "mission", "card": "fail"},
            {"do": "advance"},
            {"as": "dag", "do": "propose", "team": ["dag", "eli"]},
            {"do": "advance"},
            *({"as": p, "do": "vote", "approve": True} for p in players(7)),
            {"do": "advance"},
            {"as": "eli", "do": "play", "card": "keeping_close_eye", "target": "dag"},
            {"as": "dag", "do": "mission", "card": "success"},
            {"do": "advance"},
        ],
    }
    game, rejected = run(script)
    out = record(game, rejected)
    assert [r["step"] for r in rejected] == [13]  # ana's card after the veto
    assert out["missions"] == [
        {"mission": 1, "team": ["dag", "eli"], "fails": 0, "success": True, "rejected_teams": 1}
    ]
    assert out["leader"] == "eli"
    assert game.rules.hand == ("strong_leader", "opinion_maker")
    assert json.dumps(record(*run(script))) == json.dumps(out)
