"""Resistance rules, one transition at a time: the size table, proposals, votes,
missions, the end of the game, the hero add-on, timers and the defaults for
missing input, and the refusals with their reason codes (plot cards:
test_resistance_plots.py; the driver: resistance_helpers.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from resistance_helpers import HOST, T0, players, public_texts, start

from gameflow.core import actions as A
from gameflow.core.engine import apply, legal, new_game, view
from gameflow.core.events import Kind
from gameflow.core.result import Accepted
from gameflow.core.state import HOST_VIEW
from gameflow.games.resistance import RESISTANCE, StepError
from gameflow.games.resistance.actions import Give, Mission, Pass, Play, Propose, Vote
from gameflow.games.resistance.cards import shipped_heroes
from gameflow.games.resistance.state import SIZES, Resistance
from gameflow.i18n import render
from gameflow.replay import record, run

pytestmark = pytest.mark.resistance
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


# -- heroes, timers, options -----------------------------------------------------------------


def test_heroes_are_off_by_default_and_drawn_each_mission_round_when_on() -> None:
    assert RESISTANCE.default_options()["heroes"] is False
    d = start(5)
    assert "hero" not in view(d.game, None)["resistance"]
    d = start(5, options={"heroes": True})
    first = d.st.hero
    assert first in shipped_heroes("en")
    assert view(d.game, None)["resistance"]["hero"] == first
    d.propose("cy", "dag")
    events = d.all_vote(False)  # a new proposal of the same mission: the same hero card
    assert d.st.hero == first and d.st.hero_count == 1
    assert not any(t.startswith("Hero card") for t in public_texts(events))
    assert view(d.game, None)["resistance"]["hero"] == first
    d.propose("dag", "eli")
    d.all_vote(True)
    events = d.mission({"dag": "success", "eli": "success"})  # mission 2: a new one
    assert d.st.hero != first and d.st.hero_count == 2
    assert f"Hero card: {d.st.hero}" in public_texts(events)
    assert [p.hero for p in d.st.proposals] == [first, first]
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
