"""Station, one test per rule of the public rules digest (docs/rules/station.md),
plus every refused input the rules name (each checks the reason code and that
nothing changed)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from station_helpers import (
    EASY,
    FREE,
    HARD,
    HOST,
    TRAP,
    Driver,
    c,
    fixed,
    last,
    new,
    plan,
    players,
    start,
    to_last_round,
)

from gameflow.core import actions as A
from gameflow.core.engine import legal, view
from gameflow.core.events import Kind
from gameflow.core.rng import rng_for
from gameflow.core.state import HOST_VIEW
from gameflow.games.station.actions import Choose, Vote
from gameflow.games.station.flow import infiltrator_count, vote_winner
from gameflow.games.station.inputs import awaiting
from gameflow.games.station.mission import resolve, winning_plan
from gameflow.games.station.state import (
    GUARD,
    NOBODY,
    OUTSIDE,
    RADIO,
    Choice,
    Plan,
    Trap,
)

pytestmark = pytest.mark.station

# -- the plan vote -----------------------------------------------------------------


def test_most_chosen_plan_wins_and_a_tie_goes_to_the_topmost() -> None:
    assert winning_plan((c(2, GUARD), c(2, GUARD), c(0, GUARD), None)) == 2
    assert winning_plan((c(2, GUARD), c(1, GUARD), c(1, GUARD), c(2, GUARD))) == 1
    assert winning_plan((c(2, GUARD), c(0, GUARD), c(1, GUARD))) == 0
    assert winning_plan((None, None)) == 0


def test_plan_vote_end_to_end_and_only_its_choosers_count() -> None:
    d = fixed(r1={"plans": [plan(1, 1, 1, 1), plan(2, 1, 1, 0), plan(3, 1, 1, 0)], "trap": None})
    d.choose("ana", 2, "outside")
    d.choose("bo", 3, "radio")
    d.choose("cy", 3, "outside")
    d.choose("dag", 2, "radio")
    d.choose("eli", 1, "outside")
    d.deadline()
    o = d.st.outcome
    assert o is not None
    assert o.plan == 1  # plans 2 and 3 tie: plan 2 is topmost
    assert (o.outside, o.radio) == (1, 1)  # eli and the plan-3 choosers do not count
    assert o.success and d.st.parts == 2


# -- partners ------------------------------------------------------------------------

P = (Plan(2, 2, 2, 1),)


@pytest.mark.parametrize("job", [OUTSIDE, RADIO])
def test_mutual_guard_and_worker_cover_two_places(job: str) -> None:
    o = resolve(P, (c(0, GUARD, 1), c(0, job, 0)), None)
    covered = o.outside if job == OUTSIDE else o.radio
    assert covered == 2
    assert o.guards_ok  # the guard still counts as a guard


@pytest.mark.parametrize(
    "choices",
    [
        (c(0, OUTSIDE, 1), c(0, RADIO, 0)),  # worker + worker
        (c(0, OUTSIDE, 1), c(0, OUTSIDE, 0)),
        (c(0, OUTSIDE, 1), c(0, GUARD)),  # worker names the guard only
        (c(0, OUTSIDE), c(0, GUARD, 0)),  # guard names the worker only
        (c(0, OUTSIDE, 1), c(0, GUARD, 2), c(0, RADIO)),  # guard names someone else
    ],
)
def test_partner_pairs_that_give_nothing(choices: tuple[Choice, ...]) -> None:
    o = resolve(P, choices, None)
    assert o.outside + o.radio == sum(ch.job != GUARD for ch in choices)


def test_guard_and_guard_pair_gives_nothing() -> None:
    o = resolve((Plan(1, 0, 0, 3),), (c(0, GUARD, 1), c(0, GUARD, 0)), None)
    assert (o.outside, o.radio, o.guards_ok) == (0, 0, False)


def test_pair_needs_both_on_the_winning_plan() -> None:
    # the guard chose the other plan: the worker covers one place only
    o = resolve(
        (Plan(1, 2, 0, 0), Plan(1, 0, 0, 0)), (c(0, OUTSIDE, 1), c(1, GUARD, 0), c(0, RADIO)), None
    )
    assert o.plan == 0 and o.outside == 1


def test_a_guard_helps_at_most_one_partner() -> None:
    o = resolve(P, (c(0, GUARD, 1), c(0, OUTSIDE, 0), c(0, OUTSIDE, 0)), None)
    assert o.outside == 3  # 2 for the named partner, 1 for the other


# -- sabotage -------------------------------------------------------------------------

G1 = (Plan(1, 1, 0, 1), Plan(1, 0, 0, 0))


def test_each_saboteur_raises_guards_needed_by_two() -> None:
    worker_sab = c(0, OUTSIDE, sab=True)
    three = (worker_sab, c(0, GUARD), c(0, GUARD), c(0, GUARD))
    assert resolve(G1, three, None).success  # 3 >= 1 + 2
    assert not resolve(G1, three[:3], None).guards_ok  # 2 < 3
    two_sab = (worker_sab, c(0, RADIO, sab=True), *(c(0, GUARD),) * 4)
    assert not resolve(G1, two_sab, None).guards_ok  # 4 < 1 + 4
    assert resolve(G1, (*two_sab, c(0, GUARD)), None).guards_ok  # 5 >= 5


def test_sabotage_counts_only_on_the_winning_plan() -> None:
    choices = (c(0, OUTSIDE), c(0, GUARD), c(1, GUARD, sab=True))
    assert resolve(G1, choices, None).success


def test_saboteur_guard_does_not_count_nor_help_partner() -> None:
    p = (Plan(1, 2, 0, 0),)
    p = (Plan(1, 2, 0, 1),)
    o = resolve(p, (c(0, GUARD, 1, sab=True), c(0, OUTSIDE, 0), c(0, GUARD), c(0, GUARD)), None)
    assert o.outside == 1  # no pair bonus from a sabotaging guard
    assert not o.guards_ok  # 2 working guards < 1 + 2
    o = resolve(p, (c(0, GUARD, 1, sab=True), c(0, OUTSIDE, 0), *(c(0, GUARD),) * 3), None)
    assert o.guards_ok  # 3 working guards, the saboteur not among them
    assert (resolve((Plan(1, 0, 0, 1),), (c(0, GUARD, sab=True),), None).guards_ok) is False


def test_saboteur_worker_still_covers_and_pairs() -> None:
    o = resolve(
        (Plan(1, 2, 0, 0),), (c(0, OUTSIDE, 1, sab=True), c(0, GUARD, 0), c(0, GUARD)), None
    )
    assert o.outside == 2  # a pair with a working guard
    assert o.guards_ok  # 2 >= 0 + 2
    assert o.success


# -- scoring ----------------------------------------------------------------------------


def test_success_adds_reward_and_failure_costs_a_part_and_damage() -> None:
    d = fixed(
        r1={"plans": [FREE, FREE, plan(3, 0, 0, 0)], "trap": None},
        r2={"plans": [HARD] * 3, "trap": None},
    )
    for p in d.players:
        d.choose(p, 3, "guard")
    d.next_round()
    assert (d.st.parts, d.st.damage) == (3, 0)
    assert last(d).success and last(d).parts == 3
    d.next_round()  # round 2 fails
    assert (d.st.parts, d.st.damage) == (2, 1)
    assert not last(d).success


def test_parts_never_go_below_zero_and_damage_never_heals() -> None:
    d = fixed(r1={"plans": [HARD] * 3, "trap": None}, r2={"plans": [HARD] * 3, "trap": None})
    d.next_round()
    assert (d.st.parts, d.st.damage) == (0, 1)
    d.next_round()
    assert (d.st.parts, d.st.damage) == (0, 2)


def test_reaching_the_target_early_does_not_end_the_game() -> None:
    big = plan(9, 0, 0, 0)
    d = fixed(r1={"plans": [big] * 3, "trap": None})
    d.next_round()
    assert d.st.parts == 9 >= d.st.config.target
    assert not d.game.over and d.game.phase.round == 2


# -- table sizes ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "rounds", "target", "limit", "cap"),
    [
        (5, 6, 8, 4, 1),
        (7, 6, 8, 4, 1),
        (8, 7, 9, 5, 2),
        (11, 7, 9, 5, 2),
        (12, 8, 10, 6, 3),
        (15, 8, 10, 6, 3),
    ],
)
def test_size_brackets(n: int, rounds: int, target: int, limit: int, cap: int) -> None:
    d = start(n, seed=n)
    cfg = d.st.config
    assert (cfg.rounds, cfg.target, cfg.limit, cfg.death_cap) == (rounds, target, limit, cap)
    assert cfg.injury_first == (n <= 6)
    pub = view(d.game, None)["station"]
    assert (pub["rounds"], pub["target"], pub["limit"]) == (rounds, target, limit)


@pytest.mark.parametrize("n", range(5, 16))
def test_infiltrator_counts_and_they_know_each_other(n: int) -> None:
    want = {5: 2, 6: 2, 7: 3, 8: 3, 9: 3, 10: 4, 11: 4, 12: 4, 13: 5, 14: 5, 15: 5}[n]
    assert infiltrator_count(n) == want
    d = Driver(new(n, seed=f"s{n}"))
    events = d.host(A.Start)
    assert sum(d.st.infiltrator) == want
    team = [p for s, p in enumerate(d.players) if d.st.infiltrator[s]]
    names = tuple(d.game.name_of(p) for p in team)
    for s, p in enumerate(d.players):
        told = [
            e.text
            for e in events
            if e.kind == Kind.TELL and e.to == p and e.text and e.text.param("profession")
        ]
        assert len(told) == 1 and told[0] is not None
        assert all(e.secret for e in events if e.kind == Kind.TELL and e.to == p)
        you = view(d.game, p)["you"]
        if d.st.infiltrator[s]:
            assert told[0].param("names") == names
            assert you["infiltrators"] == team and you["role"] == "infiltrator"
        else:
            assert told[0].param("names") is None
            assert "infiltrators" not in you and you["role"] == "loyal"


def test_infiltrator_count_option_overrides_the_table() -> None:
    d = start(9, options={"infiltrators": 2})
    assert sum(d.st.infiltrator) == 2
    bad = Driver(new(6, options={"infiltrators": 3}))
    bad.refused(A.Start(HOST), "bad_setup")


# -- private guard cards --------------------------------------------------------------


def card_tells(events: Any) -> dict[str, Any]:
    return {e.to: e for e in events if e.kind == Kind.TELL and e.text.msgid.startswith("Your card")}


@pytest.mark.parametrize("n", range(5, 16))
def test_cards_are_dealt_round_robin(n: int) -> None:
    d = Driver(new(n, seed=n * 7))
    events = d.host(A.Start)
    cards = d.st.cards
    assert all(0 <= x < 3 for x in cards)
    counts = sorted(cards.count(p) for p in range(3))
    assert counts[0] == n // 3 and counts[-1] == -(-n // 3)
    tells = card_tells(events)
    assert sorted(tells) == sorted(d.players)
    for s, p in enumerate(d.players):
        assert tells[p].secret
        assert tells[p].text.param("plan") == cards[s] + 1
        assert tells[p].text.param("guards") == d.st.plans[cards[s]].guards
        assert view(d.game, p)["you"]["card"] == {
            "plan": cards[s] + 1,
            "guards": d.st.plans[cards[s]].guards,
        }


def test_sitting_out_player_gets_no_card() -> None:
    d = fixed(6)
    d.to_vote()
    d.votes({"ana": "fred", "bo": "fred", "cy": "ana", "dag": "bo", "eli": "cy", "fred": "dag"})
    events = d.deadline()
    s = d.seat("fred")
    assert d.st.cards[s] == NOBODY
    tells = card_tells(events)
    assert "fred" not in tells and len(tells) == 5
    assert sorted(d.st.cards.count(p) for p in range(3)) == [1, 2, 2]
    assert "card" not in view(d.game, "fred")["you"]


# -- result and discussion ------------------------------------------------------------


def test_result_shows_shortfalls_without_saboteur_counts() -> None:
    d = fixed(r1={"plans": [plan(2, 2, 1, 1), FREE, FREE], "trap": None})
    d.choose("ana", 1, "guard", secret="sabotage")
    d.choose("bo", 1, "outside", secret="sabotage")
    d.choose("cy", 1, "guard")
    d.choose("dag", 1, "outside")
    d.choose("eli", 1, "guard")
    pub = view(d.game, None)["station"]
    assert "result" not in pub and "choices" not in pub
    assert all("guards" not in p for p in pub["plans"])  # hidden during the mission
    events = d.deadline()
    res = view(d.game, None)["station"]["result"]
    assert res == {
        "plan": 1,
        "success": False,
        "outside": 2,
        "outside_needed": 2,
        "radio": 0,
        "radio_needed": 1,
        "guards_ok": False,
    }
    (ann,) = [e for e in events if e.kind == Kind.ANNOUNCE]
    assert ann.text is not None and ann.text.param("radio") == 0
    for who in (None, HOST_VIEW, "cy"):
        seen = view(d.game, who)
        seen.pop("you", None)  # cy's own choice is cy's to see
        text = json.dumps(seen)
        assert "sabotage" not in text and "secret" not in text


def test_choices_and_the_played_plans_guards_are_revealed_after_the_mission() -> None:
    d = fixed(r1={"plans": [plan(1, 1, 1, 1), plan(2, 1, 1, 2), plan(3, 1, 1, 3)], "trap": None})
    d.choose("ana", 1, "guard", "cy", "sabotage")
    d.choose("cy", 1, "outside", "ana")
    d.deadline()
    pub = view(d.game, None)["station"]
    assert pub["choices"] == [
        {"player": "ana", "plan": 1, "job": "guard", "partner": "cy"},
        {"player": "cy", "plan": 1, "job": "outside", "partner": "ana"},
    ]
    assert [p.get("guards") for p in pub["plans"]] == [1, None, None]  # the played plan's
    d.deadline()
    assert view(d.game, None)["station"]["choices"][0] == pub["choices"][0]  # still in the vote


# -- votes -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("votes", "winner"),
    [
        ((1, 1, None, None, None), NOBODY),  # 2 for seat 1, 3 missing = Ingen 3
        ((1, 1, 0, NOBODY, None), NOBODY),  # Ingen (explicit + missing) ties with seat 1
        ((1, 1, 1, NOBODY, None), 1),
        ((2, 0, NOBODY, NOBODY, NOBODY), NOBODY),  # Ingen wins
        ((1, 0, 3, 2, 4), NOBODY),  # nobody has 2
        ((1, 1, 0, 0, NOBODY), NOBODY),  # tie
    ],
)
def test_vote_winner(votes: tuple[int | None, ...], winner: int) -> None:
    assert vote_winner(votes, list(range(5))) == winner


def test_vote_counts_only_active_voters() -> None:
    assert vote_winner((1, 1, None, None, None), [0, 1]) == 1  # 2 for seat 1
    assert vote_winner((1, 1, 2, 2, None), [0, 1, 2]) == 1
    assert vote_winner((None,) * 5, []) == NOBODY


def test_voted_out_player_sits_out_exactly_the_next_round() -> None:
    d = fixed()
    d.to_vote()
    d.votes({"ana": "cy", "bo": "cy", "cy": "ana", "dag": None, "eli": "cy"})
    d.deadline()
    assert last(d).out == d.seat("cy")
    assert d.game.phase.round == 2
    assert legal(d.game, "cy") == ()
    d.refused(d.choice("cy", 1, "guard"), "sitting_out")
    pub = view(d.game, None)["station"]
    assert {p["id"]: p["status"] for p in pub["table"]}["cy"] == "sitting_out"
    assert "teams" not in pub and "role" not in json.dumps(view(d.game, None))
    for p in ("ana", "bo", "dag", "eli"):
        d.choose(p, 1, "guard")
    assert d.seat("cy") not in d.game.rules.choices and d.st.choices[d.seat("cy")] is None
    d.to_vote()
    assert legal(d.game, "cy") == ()
    d.refused(Vote("cy", None, None), "sitting_out")
    d.refused(Vote("ana", None, "cy"), "bad_target")
    spec = legal(d.game, "ana")[0].field("for")
    assert spec is not None and "cy" not in spec.options and None in spec.options
    d.votes({"ana": None, "bo": None, "dag": None, "eli": None})  # ready without cy
    assert not awaiting(d.game)
    d.deadline()
    assert d.game.phase.round == 3
    assert legal(d.game, "cy") != ()  # back in


def test_vote_locks_at_once() -> None:
    d = fixed()
    d.to_vote()
    d.vote("ana", None)
    d.refused(Vote("ana", None, "bo"), "locked")
    assert view(d.game, "ana")["you"]["vote"] is None


# -- the end ----------------------------------------------------------------------------------


def test_destruction_ends_the_game_after_that_rounds_vote() -> None:
    d = fixed(5, **{f"r{r}": {"plans": [HARD] * 3, "trap": None} for r in range(1, 5)})
    for _ in range(3):
        d.next_round()
    assert d.st.damage == 3 and not d.game.over
    events = d.deadline()  # round 4's mission: damage 4 = the limit
    assert d.st.damage == 4
    assert any(e.text and "destroyed" in e.text.msgid for e in events)
    assert d.game.phase.name == "discussion" and not d.game.over
    d.deadline()
    d.votes({"ana": "cy", "bo": "cy", "dag": "cy", "cy": "ana"})
    d.deadline()
    assert d.game.over and d.game.winner == "infiltrators"
    assert last(d).out == 2 and len(d.st.history) == 4


def test_loyal_win_needs_the_target_and_a_working_station() -> None:
    rounds = {f"r{r}": {"plans": [plan(2, 0, 0, 0)] * 3, "trap": None} for r in range(1, 7)}
    d = fixed(5, **rounds)
    to_last_round(d)
    d.next_round()
    assert d.game.over and d.st.parts == 12 and d.game.winner == "loyal"


def test_too_few_parts_at_the_end_is_an_infiltrator_win() -> None:
    rounds = {f"r{r}": {"plans": [FREE] * 3, "trap": None} for r in range(1, 7)}
    d = fixed(5, **rounds)
    to_last_round(d)
    d.next_round()
    assert d.game.over and d.st.parts == 6 < 8 and d.game.winner == "infiltrators"
    assert len(d.st.history) == 6


def test_end_reveals_teams_and_secret_actions() -> None:
    rounds: dict[str, Any] = {f"r{r}": {"plans": [FREE] * 3, "trap": None} for r in range(1, 7)}
    rounds["r2"] = {"plans": [FREE] * 3, "trap": TRAP}
    d = fixed(5, **rounds)
    d.next_round()
    d.choose("bo", 1, "guard", secret="trap")
    d.choose("ana", 2, "radio", secret="sabotage")
    pub = json.dumps(view(d.game, None))
    assert "infiltrator" not in pub and '"trap"' not in pub and "sabotage" not in pub
    to_last_round(d)
    d.next_round()
    pub_v = view(d.game, None)["station"]
    assert pub_v["teams"] == {
        p: ("infiltrator" if p in ("ana", "bo") else "loyal") for p in players(5)
    }
    r2 = pub_v["history"][1]
    assert r2["trap"] == {"by": "bo", "victim": "eli", "job": "radio"}
    secrets = {ch["player"]: ch["secret"] for ch in r2["choices"]}
    assert secrets == {"bo": "trap", "ana": "sabotage"}


# -- refused inputs: the code, and nothing changed ----------------------------------------------


def test_refused_choices() -> None:
    d = fixed(5, r2={"plans": EASY, "trap": TRAP})
    d.refused(d.choice("cy", 0, "guard"), "bad_plan")
    d.refused(d.choice("cy", 4, "guard"), "bad_plan")
    d.refused(d.choice("cy", 1, "cook"), "bad_job")
    d.refused(d.choice("cy", 1, "guard", "zed"), "bad_partner")  # unknown partner
    d.refused(d.choice("cy", 1, "guard", "cy"), "bad_partner")  # oneself
    d.refused(d.choice("cy", 1, "guard", secret="sabotage"), "not_infiltrator")
    d.refused(d.choice("cy", 1, "guard", secret="trap"), "not_infiltrator")
    d.refused(d.choice("ana", 1, "guard", secret="trap"), "no_trap_card")  # round 1
    d.refused(d.choice("bo", 1, "guard", secret="trap"), "no_trap_card")
    d.refused(Vote("cy", None, None), "wrong_phase")
    d.choose("cy", 1, "guard")
    d.refused(d.choice("cy", 2, "radio"), "locked")
    d.deadline()
    d.refused(d.choice("dag", 1, "guard"), "wrong_phase")  # discussion
    d.refused(Vote("dag", None, None), "wrong_phase")
    d.deadline()
    d.refused(d.choice("dag", 1, "guard"), "wrong_phase")  # vote
    d.refused(Vote("dag", None, "dag"), "self_vote")
    d.refused(Vote("dag", None, "zed"), "bad_target")
    d.refused(Vote("dag", None, HOST), "bad_target")
    d.deadline()
    # round 2: bo holds the trap card; ana does not
    assert d.st.trap == Trap(1, 4, RADIO)
    d.refused(Choose("bo", None, 1, "guard", "eli", sabotage=True, trap=True), "both_secrets")
    d.refused(Choose("ana", None, 1, "guard", None, sabotage=True, trap=True), "both_secrets")
    d.refused(d.choice("ana", 1, "guard", secret="trap"), "no_trap_card")
    secret = legal(d.game, "bo")[0].field("secret")
    assert secret is not None and secret.options == (None, "sabotage", "trap")
    secret = legal(d.game, "ana")[0].field("secret")
    assert secret is not None and secret.options == (None, "sabotage")
    secret = legal(d.game, "cy")[0].field("secret")
    assert secret is not None and secret.options == (None,)
    d.choose("bo", 1, "guard", "eli", "trap")
    assert view(d.game, "bo")["you"]["choice"]["secret"] == "trap"


def test_legal_lists_exactly_what_is_accepted() -> None:
    d = fixed(5)
    spec = legal(d.game, "cy")[0]
    assert spec.kind == "choose" and spec.phase == d.game.phase.seq
    partner = spec.field("partner")
    assert partner is not None and partner.options == ("ana", "bo", "dag", "eli", None)
    assert spec.field("plan").options == (1, 2, 3)  # type: ignore[union-attr]
    assert spec.field("job").options == (OUTSIDE, RADIO, GUARD)  # type: ignore[union-attr]
    d.to_vote()
    spec = legal(d.game, "cy")[0]
    assert spec.kind == "vote"
    assert spec.field("for").options == ("ana", "bo", "dag", "eli", None)  # type: ignore[union-attr]
    d.vote("cy", "ana")
    assert legal(d.game, "cy") == ()


def test_rng_labels_are_independent() -> None:
    # the round-2 plans do not depend on how many draws came before them
    a = rng_for("7", "station/round/2/plans").random()
    rng_for("7", "station/round/1/plans").random()
    assert rng_for("7", "station/round/2/plans").random() == a
    assert start(5, seed=7).st.plans == start(5, seed=7).st.plans
    assert start(5, seed=7).st.infiltrator == start(5, seed=7).st.infiltrator
