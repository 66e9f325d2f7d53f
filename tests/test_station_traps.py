"""Station's traps and the last round's check, one test per rule of
the public rules digest (split from test_station_rules.py to keep files small)."""

from __future__ import annotations

from typing import Any

import pytest
from station_helpers import EASY, FREE, TRAP, Driver, c, fixed, last, plan, start, to_last_round

from gameflow.core.engine import legal, view
from gameflow.games.station import flow
from gameflow.games.station.actions import Vote
from gameflow.games.station.mission import resolve
from gameflow.games.station.state import (
    GUARD,
    NOBODY,
    OUTSIDE,
    RADIO,
    Plan,
    Trap,
)

pytestmark = pytest.mark.station

# -- traps ---------------------------------------------------------------------------------


def test_traps_are_drawn_only_from_round_two() -> None:
    for seed in range(12):
        d = start(8, seed=seed)
        assert d.st.trap is None
        d.next_round()
        t = d.st.trap
        assert t is not None
        assert d.st.infiltrator[t.by] and not d.st.infiltrator[t.victim]
        assert d.st.active(t.by, 2) and d.st.active(t.victim, 2)
        assert t.job in (OUTSIDE, RADIO)


def test_no_trap_when_traps_are_off() -> None:
    d = start(8, seed=3, options={"traps": False})
    d.next_round()
    assert d.st.trap is None


@pytest.mark.parametrize(
    ("n", "deaths", "injury_used", "offered"),
    [
        (5, 0, False, True),
        (5, 0, True, True),
        (5, 1, True, False),
        (7, 0, False, True),
        (7, 1, False, False),
        (8, 1, False, True),
        (8, 2, False, False),
        (12, 2, False, True),
        (12, 3, False, False),
    ],
)
def test_trap_offered_only_while_a_hit_can_have_an_effect(
    n: int, deaths: int, injury_used: bool, offered: bool
) -> None:
    d = start(n, seed=11)
    dead = tuple(False for _ in d.players)
    st = d.st._replace(deaths=deaths, injury_used=injury_used, dead=dead)
    game = d.game._replace(rules=st)
    res = flow.start_round(game, 2, d.now, [])
    assert (res.state.rules.trap is not None) == offered


def test_trap_job_is_radio_for_an_injured_victim() -> None:
    d = start(5, seed=2)
    st = d.st
    loyal = [s for s in range(5) if not st.infiltrator[s]]
    # every loyal is injured in round 2 in turn: whoever is drawn must get radio
    for victim in loyal:
        game = d.game._replace(rules=st._replace(injured=victim, injured_round=2))
        t = flow.start_round(game, 2, d.now, []).state.rules.trap
        if t.victim == victim:
            assert t.job == RADIO
            break
    else:
        pytest.fail("the drawn victim never matched")


# a hit on the winning plan 0: bo (seat 1) sets the trap on eli (seat 4), job radio
HIT_TRAP = Trap(1, 4, RADIO)
HIT = (c(0, GUARD), c(0, GUARD, 4, trap=True), c(0, OUTSIDE), c(0, OUTSIDE), c(0, RADIO, 1))


def test_trap_hits_when_every_condition_holds() -> None:
    assert resolve((Plan(1, 1, 1, 1),), HIT, HIT_TRAP).hit


@pytest.mark.parametrize(
    ("seat", "change"),
    [
        (1, {"trap": False}),  # not set
        (1, {"sabotage": True, "trap": False}),
        (1, {"job": OUTSIDE}),  # not on guard
        (1, {"partner": 3}),  # partner is not the victim
        (1, {"plan": 1}),  # setter on the losing plan
        (4, {"partner": 0}),  # victim named someone else
        (4, {"partner": NOBODY}),
        (4, {"job": OUTSIDE}),  # the wrong job
        (4, {"job": GUARD}),
        (4, {"plan": 1}),  # victim on the losing plan
    ],
)
def test_trap_misses_when_any_condition_fails(seat: int, change: dict[str, Any]) -> None:
    choices = list(HIT)
    choices[seat] = choices[seat]._replace(**change)
    plans = (Plan(1, 1, 1, 1), Plan(1, 1, 1, 1))
    o = resolve(plans, tuple(choices), HIT_TRAP)
    assert o.plan == 0 and not o.hit


def test_trap_does_not_hurt_staffing_or_guarding() -> None:
    o = resolve((Plan(1, 2, 2, 2),), HIT, HIT_TRAP)
    assert o.hit and o.success  # radio 2 from the pair, 2 working guards


def set_trap_round(d: Driver, victim: str = "eli", setter: str = "bo") -> None:
    """Everyone on plan 1; the setter guards the victim, who takes radio: a hit."""
    d.choose(setter, 1, "guard", victim, "trap")
    d.choose(victim, 1, "radio", setter)
    for p in d.players:
        if p not in (setter, victim) and d.st.active(d.seat(p), d.game.phase.round):
            d.choose(p, 1, "outside")


@pytest.mark.parametrize("n", [5, 6])
def test_hits_at_five_or_six_players_injure_first_then_kill_then_stop(n: int) -> None:
    tr = {"plans": EASY, "trap": TRAP}
    d = fixed(n, r2=tr, r3=tr, r4=tr)
    d.next_round()
    set_trap_round(d)
    d.to_vote()
    assert not d.st.dead[4] and d.st.injured == NOBODY  # applied after the vote only
    d.vote("eli", "bo")  # the victim still finishes the round
    # even voting out the setter does not stop the trap
    d.votes({"cy": "bo", "dag": "bo", "ana": "cy", "bo": None})
    d.deadline()
    assert last(d).out == 1
    assert last(d).hit == (4, "injured")
    assert (d.st.injured, d.st.injured_round) == (4, 3)
    assert not d.st.dead[4]
    # round 3: eli is injured: no outside; bo sits out, so the trap misses
    job = legal(d.game, "eli")[0].field("job")
    assert job is not None and job.options == (RADIO, GUARD)
    d.refused(d.choice("eli", 1, "outside"), "injured")
    assert view(d.game, None)["station"]["table"][4]["injured"] is True
    d.next_round()
    assert last(d).hit is None
    # round 4: no longer injured; the second hit kills
    assert OUTSIDE in legal(d.game, "eli")[0].field("job").options  # type: ignore[union-attr]
    set_trap_round(d)
    d.next_round()
    assert last(d).hit == (4, "killed")
    assert d.st.dead[4] and d.st.deaths == 1
    # the cap (1 death at 5–7 players) is reached: no more trap cards
    assert d.st.trap is None


@pytest.mark.parametrize(("n", "cap"), [(7, 1), (8, 2), (12, 3)])
def test_hits_at_seven_and_more_kill_up_to_the_cap(n: int, cap: int) -> None:
    victims = ["eli", "fred", "gro", "cy"]
    rounds = {
        f"r{r}": {"plans": EASY, "trap": {"by": "bo", "victim": victims[r - 2], "job": "radio"}}
        for r in range(2, 6)
    }
    d = fixed(n, **rounds)
    d.next_round()
    for r in range(2, 6):
        set_trap_round(d, victims[r - 2])
        d.next_round()
        hit = last(d).hit
        if r - 1 <= cap:
            assert hit is not None and hit.effect == "killed"
            assert d.st.dead[d.seat(victims[r - 2])]
        else:
            assert hit is None  # would pass the cap: nothing happens
            assert not d.st.dead[d.seat(victims[r - 2])]
    assert d.st.deaths == cap
    assert d.st.injured == NOBODY


def test_dead_player_is_out_of_the_game() -> None:
    d = fixed(7, r2={"plans": EASY, "trap": TRAP})
    d.next_round()
    set_trap_round(d)
    d.next_round()
    assert d.st.dead[4]
    assert legal(d.game, "eli") == ()
    d.refused(d.choice("eli", 1, "guard"), "dead")
    assert d.st.cards[4] == NOBODY
    assert "card" not in view(d.game, "eli")["you"]
    assert view(d.game, None)["station"]["table"][4]["status"] == "dead"
    d.to_vote()
    d.refused(Vote("eli", None, None), "dead")
    d.refused(Vote("ana", None, "eli"), "bad_target")


# -- the last round's check ----------------------------------------------------------------


def test_last_round_check_removes_sabotage_and_recomputes() -> None:
    rounds = {f"r{r}": {"plans": [FREE] * 3, "trap": None} for r in range(1, 6)}
    d = fixed(5, **rounds, r6={"plans": [plan(3, 1, 0, 1), FREE, FREE], "trap": None})
    to_last_round(d)
    assert d.st.parts == 5
    d.choose("ana", 1, "guard", "dag", "sabotage")
    d.choose("dag", 1, "outside", "ana")
    d.choose("cy", 1, "guard")
    d.deadline()
    assert d.st.outcome is not None and not d.st.outcome.success
    assert (d.st.parts, d.st.damage) == (4, 1)
    d.deadline()
    d.votes({"bo": "ana", "cy": "ana", "dag": "ana"})
    d.deadline()
    assert d.game.over
    rec = last(d)
    assert rec.checked == 0 and rec.out == NOBODY
    assert rec.success and (rec.parts, rec.damage) == (8, 0)
    assert (d.st.parts, d.st.damage) == (8, 0)
    assert rec.outcome.outside == 2  # the checked guard helps their partner again
    assert d.game.winner == "loyal"


def test_last_round_check_of_an_innocent_changes_nothing() -> None:
    rounds = {f"r{r}": {"plans": [FREE] * 3, "trap": None} for r in range(1, 6)}
    d = fixed(5, **rounds, r6={"plans": [plan(3, 1, 0, 1), FREE, FREE], "trap": None})
    to_last_round(d)
    d.choose("ana", 1, "guard", secret="sabotage")
    d.choose("dag", 1, "outside")
    d.choose("cy", 1, "guard")
    d.to_vote()
    d.votes({"bo": "cy", "ana": "cy", "dag": "cy"})
    d.deadline()
    rec = last(d)
    assert rec.checked == 2 and not rec.success and (rec.parts, rec.damage) == (4, 1)
    assert d.game.winner == "infiltrators"


def _last_round_trap_set() -> Driver:
    """Seven players at the last round's vote, a trap set in it."""
    rounds = {f"r{r}": {"plans": [FREE] * 3, "trap": None} for r in range(1, 6)}
    d = fixed(7, **rounds, r6={"plans": EASY, "trap": TRAP})
    to_last_round(d)
    set_trap_round(d)
    d.to_vote()
    return d


def test_last_round_check_stops_the_checked_players_trap() -> None:
    d = _last_round_trap_set()
    d.votes({"cy": "bo", "dag": "bo", "eli": "bo", "fred": "bo", "gro": "ana"})
    d.deadline()
    assert last(d).checked == 1 and last(d).hit is None
    assert not d.st.dead[4]


def test_last_round_trap_of_someone_else_still_hits() -> None:
    d = _last_round_trap_set()
    d.votes({"cy": "ana", "dag": "ana", "eli": "ana", "fred": "ana"})
    d.deadline()
    assert last(d).checked == 0 and last(d).hit == (4, "killed")
