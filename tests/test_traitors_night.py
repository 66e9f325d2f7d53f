"""The Traitors' night (murders and their exceptions, shield, tempt, force, the
death list) and the end of the game, one behaviour per test (helpers:
traitors_helpers.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from traitors_helpers import (
    BANISH_BO,
    BANISH_DAG,
    FINAL_GOES_ON,
    LOYALS_GONE,
    P6,
    adv,
    both,
    codes,
    play,
    st,
    to_night,
    to_table,
    votes,
)

from gameflow.core.engine import apply, legal, view
from gameflow.core.result import Accepted, Rejected
from gameflow.core.state import HOST_VIEW, Game
from gameflow.games.traitors.actions import Murder, Tempt

pytestmark = pytest.mark.traitors

# -- night ------------------------------------------------------------------------------


def test_traitor_cannot_target_a_traitor_and_loyals_cannot_murder() -> None:
    steps = [
        *to_night,
        {"as": "ana", "do": "murder", "target": "bo"},
        {"as": "cy", "do": "murder", "target": "fia"},
        {"as": "ana", "do": "murder", "target": "dag"},
        {"as": "ana", "do": "tempt", "target": "cy"},
        {"as": "ana", "do": "murder", "target": "fia"},
        {"as": "ana", "do": "murder", "target": "eli"},
    ]
    _, rec = play(steps)
    assert codes(rec) == ["traitor_target", "not_traitor", "bad_target", "no_tempt", "locked"]


def test_shield_blocks_the_murder() -> None:
    steps = [
        *to_night,
        *both("murder", "cy"),
        adv,
    ]
    game, rec = play(steps, days={"1": {"shield": "cy"}})
    assert rec["days"][0]["murdered"] is None
    assert view(game, "cy")["traitors"]["table"][2]["status"] == "active"


def test_shield_is_private_and_lasts_one_night() -> None:
    steps = [{"as": "host", "do": "score", "silver": 5, "access": ["cy", "dag"]}, adv]
    game, _ = play(steps, days={"1": {"shield": "cy", "dagger": "dag"}})
    assert view(game, "cy")["you"]["shield"] is True
    assert view(game, "dag")["you"]["dagger"] is True
    assert "shield" not in json.dumps(view(game, None)["traitors"]["table"])
    game, _ = play([*steps, adv, *BANISH_DAG, adv, adv], days={"1": {"shield": "cy"}})
    assert "shield" not in view(game, "cy")["you"]


def test_murder_free_night() -> None:
    steps = [
        {"as": "host", "do": "murder_free"},
        *to_night,
        {"as": "ana", "do": "murder", "target": "fia"},
        adv,
    ]
    _, rec = play(steps)
    assert rec["days"][0]["murdered"] is None


def test_murder_tie_between_kinds_and_targets() -> None:
    steps = [
        *to_night,
        {"as": "ana", "do": "murder", "target": "fia"},
        {"as": "bo", "do": "murder", "target": "eli"},
        adv,
    ]
    _, rec = play(steps)
    assert rec["days"][0]["murdered"] in ("fia", "eli")


def test_silent_traitors_still_murder_a_loyal() -> None:
    _, rec = play([*to_night, adv])
    assert rec["days"][0]["murdered"] in ("cy", "eli", "fia")


def _tempt_night(accept: bool | None) -> tuple[Game, dict[str, Any]]:
    roles = {"ana": "traitor", "bo": "traitor", "cy": "traitor"}
    steps = [
        *to_table,
        *votes({"ana": "cy", "bo": "cy", "dag": "cy", "eli": "cy"}),
        adv,
        {"as": "ana", "do": "tempt", "target": "dag"},
        {"as": "bo", "do": "murder", "target": "eli"},
        adv,  # murder on a tie between kinds
    ]
    players = [*P6, "gus", "hal"]
    _game, rec = play(steps, roles=roles, players=players)
    assert rec["days"][0]["murdered"] == "eli"
    steps += [
        *to_table,
        *votes({"ana": "fia", "bo": "fia", "dag": "fia"}),
        adv,
        *both("tempt", "dag"),
    ]
    if accept is not None:  # asked as soon as the traitors have chosen
        steps.append({"as": "dag", "do": "answer", "accept": accept})
    steps.append(adv)
    return play(steps, roles=roles, players=players)


@pytest.mark.parametrize("accept", [True, False, None])
def test_tempt_accept_decline_silence(accept: bool | None) -> None:
    game, rec = _tempt_night(accept)
    day2 = rec["days"][1]
    assert day2["murdered"] is None
    assert day2["converted"] == ("dag" if accept else None)
    assert st(game).role[game.seat("dag")] == ("traitor" if accept else "loyal")
    if accept:
        assert "ana" in view(game, "dag")["you"]["traitors"]
    # who was recruited stays out of the public view while the game runs
    assert not game.over
    assert all("converted" not in day for day in view(game, None)["traitors"]["history"])


def test_the_tempted_player_is_asked_inside_the_night() -> None:
    roles = {"ana": "traitor", "bo": "traitor", "cy": "traitor"}
    steps = [
        *to_table,
        *votes({"ana": "cy", "bo": "cy", "dag": "cy", "eli": "cy"}),
        adv,
        {"as": "ana", "do": "tempt", "target": "dag"},
    ]
    game, _ = play(steps, roles=roles, players=[*P6, "gus", "hal"])
    assert st(game).pending is None  # bo has not voted yet
    game, _ = play(
        [*steps, {"as": "bo", "do": "tempt", "target": "eli"}],
        roles=roles,
        players=[*P6, "gus", "hal"],
    )
    assert game.phase.name == "night"
    tempted = st(game).pending
    assert tempted is not None
    name = game.players[tempted.target]
    assert name in ("dag", "eli")
    assert [s.kind for s in legal(game, name)] == ["answer"]
    assert view(game, name)["you"]["question"] == "tempt"
    assert "question" not in json.dumps(view(game, None))


def test_no_tempting_after_round_nine() -> None:
    roles = {"ana": "traitor", "bo": "traitor", "cy": "traitor"}
    steps = [*to_table, *votes({"ana": "cy", "bo": "cy", "dag": "cy", "eli": "cy"}), adv]
    game, _ = play(steps, roles=roles, players=[*P6, "gus", "hal"])
    assert any(s.kind == "tempt" for s in legal(game, "ana"))
    late = game._replace(phase=game.phase._replace(round=10))
    refused = apply(late, Tempt("ana", None, "dag"), 0.0)
    assert isinstance(refused, Rejected) and refused.code == "too_late"
    assert not any(s.kind == "tempt" for s in legal(late, "ana"))


def test_host_can_stop_recruitment() -> None:
    roles = {"ana": "traitor", "bo": "traitor", "cy": "traitor"}
    steps = [
        {"as": "host", "do": "recruit", "allow": False},
        *to_table,
        *votes({"ana": "cy", "bo": "cy", "dag": "cy", "eli": "cy"}),
        adv,
        {"as": "ana", "do": "tempt", "target": "dag"},
    ]
    _, rec = play(steps, roles=roles, players=[*P6, "gus", "hal"])
    assert codes(rec) == ["no_tempt"]


LONE = [*to_table, *BANISH_BO, adv]


def test_lone_traitor_forces_and_murders() -> None:
    steps = [
        *LONE,
        {"as": "ana", "do": "force", "target": "cy"},
        {"as": "ana", "do": "murder", "target": "cy"},
        {"as": "ana", "do": "murder", "target": "fia"},
        adv,
    ]
    game, rec = play(steps)
    assert codes(rec) == ["same_target"]
    assert rec["days"][0]["converted"] == "cy" and rec["days"][0]["murdered"] == "fia"
    assert sorted(view(game, "cy")["you"]["traitors"]) == ["ana", "bo", "cy"]


def test_forced_shield_holder_declines_then_traitor_forces_another() -> None:
    steps = [
        *LONE,
        {"as": "ana", "do": "force", "target": "cy"},
        {"as": "ana", "do": "murder", "target": "cy"},
        {"as": "ana", "do": "murder", "target": "fia"},
        {"as": "cy", "do": "answer", "accept": False},
        {"as": "ana", "do": "force", "target": "cy"},
        {"as": "ana", "do": "force", "target": "eli"},
        adv,
    ]
    game, rec = play(steps, days={"1": {"shield": "cy"}})
    assert codes(rec) == ["same_target", "declined"]
    assert rec["days"][0] == {
        "day": 1,
        "murdered": "fia",
        "banished": ["bo"],
        "revealed": {"bo": "traitor"},
        "converted": "eli",
        "pot": 0,
    }
    assert st(game).role[game.seat("cy")] == "loyal"


def test_forced_shield_holder_accepts_and_the_shield_still_blocks_their_murder() -> None:
    steps = [
        *LONE,
        {"as": "ana", "do": "force", "target": "eli"},
        {"as": "ana", "do": "murder", "target": "cy"},
        adv,
    ]
    _, rec = play(steps, days={"1": {"shield": "cy"}})
    assert rec["days"][0]["murdered"] is None and rec["days"][0]["converted"] == "eli"
    steps = [
        *LONE,
        {"as": "ana", "do": "force", "target": "cy"},
        {"as": "ana", "do": "murder", "target": "dag"},
    ]
    steps += [{"as": "cy", "do": "answer", "accept": True}, adv]
    _, rec = play(steps, days={"1": {"shield": "cy"}})
    assert rec["days"][0]["converted"] == "cy" and rec["days"][0]["murdered"] == "dag"


def test_no_force_after_round_ten() -> None:
    game, _ = play(LONE)
    assert any(s.kind == "force" for s in legal(game, "ana"))
    late = game._replace(phase=game.phase._replace(round=11))
    assert not any(s.kind == "force" for s in legal(late, "ana"))
    assert isinstance(apply(late, Murder("ana", None, "cy"), 0.0), Accepted)


def test_death_list_rules() -> None:
    steps = [
        *to_night,
        {"as": "ana", "do": "death_list", "names": ["ana", "bo"]},
        {"as": "cy", "do": "death_list", "names": ["ana", "eli"]},
        {"as": "ana", "do": "death_list", "names": ["eli", "eli"]},
        {"as": "ana", "do": "death_list", "names": ["ana", "eli", "cy"]},
        {"as": "ana", "do": "death_list", "names": ["ana", "eli"]},
        {"as": "bo", "do": "death_list", "names": ["fia", "cy"]},
        {"as": "ana", "do": "murder", "target": "fia"},
        adv,
        {"as": "fia", "do": "vote", "for": "ana"},
    ]
    game, rec = play(steps, death_list=True, death_list_size=2)
    assert codes(rec) == [
        "no_loyal",
        "not_traitor",
        "bad_list",
        "bad_list",
        "locked",
        "wrong_phase",
    ]
    assert view(game, None)["traitors"]["death_list"] == ["ana", "eli"]
    assert rec["days"][0]["murdered"] == "fia"
    more = [
        *to_table,
        *votes({"ana": "cy", "bo": "cy", "eli": "cy"}),
        adv,
        {"as": "ana", "do": "murder", "target": "bo"},
        {"as": "bo", "do": "murder", "target": "cy"},
        {"as": "bo", "do": "murder", "target": "eli"},
        adv,
    ]
    game, rec = play([*steps, *more], death_list=True, death_list_size=2)
    assert codes(rec)[-2:] == ["traitor_target", "bad_target"]
    assert rec["days"][1]["murdered"] == "eli"
    assert view(game, None)["traitors"]["death_list"] == []


def test_forbidden_death_list_murder_and_shield_against_the_list() -> None:
    base = [
        *to_night,
        {"as": "ana", "do": "death_list", "names": ["ana", "eli", "cy"]},
        {"as": "ana", "do": "murder", "target": "fia"},
        adv,
        {"as": "host", "do": "forbid_murder"},
        *to_table,
        *votes({"ana": "cy", "bo": "cy", "eli": "cy"}),
        adv,
        {"as": "ana", "do": "murder", "target": "eli"},
        adv,
    ]
    _, rec = play(base, death_list=True)
    assert rec["days"][1]["murdered"] is None
    no_forbid = [s for s in base if s.get("do") != "forbid_murder"]
    _, rec = play(no_forbid, death_list=True)
    assert rec["days"][1]["murdered"] == "eli"
    _, rec = play(no_forbid, death_list=True, days={"2": {"shield": "eli"}})
    assert rec["days"][1]["murdered"] is None


def test_forbid_murder_only_on_a_death_list_night() -> None:
    _, rec = play([{"as": "host", "do": "forbid_murder"}])
    assert codes(rec) == ["no_list"]


def test_host_puts_the_death_list_in_play() -> None:
    steps = [
        {"as": "host", "do": "death_list_on"},
        *to_night,
        {"as": "ana", "do": "death_list", "names": ["ana", "eli", "cy"]},
        adv,
    ]
    game, rec = play(steps)
    assert codes(rec) == []
    assert view(game, None)["traitors"]["death_list"] == ["ana", "cy", "eli"]


@pytest.mark.parametrize("written", [True, False])
def test_the_death_list_may_be_put_in_play_after_the_nights_choice(written: bool) -> None:
    """The game master may put the death list in play all night, whatever the
    traitors have sent (a refusal once they had chosen told the host they had,
    issue #35, 18): the traitors may still write it, else it is drawn."""
    late = [
        *to_night,
        *both("murder", "fia"),
        {"as": "host", "do": "death_list_on"},
    ]
    game, _ = play(late)
    assert st(game).pending is not None
    assert "death_list" in [s.kind for s in legal(game, "ana")]
    write = [{"as": "ana", "do": "death_list", "names": ["ana", "eli", "cy"]}] if written else []
    game, rec = play([*late, *write, adv])
    assert codes(rec) == [] and rec["days"][0]["murdered"] == "fia"
    listed = view(game, None)["traitors"]["death_list"]
    if written:
        assert listed == ["ana", "cy", "eli"]
    else:  # drawn: among the living, a loyal first
        assert len(listed) == 3 and "fia" not in listed and "dag" not in listed


# -- the end --------------------------------------------------------------------------


def test_no_early_end_without_traitors_the_final_end_vote_decides() -> None:
    """The last traitor is banished on day 1: nobody is told the game could
    end; it plays on to the final round table, and the loyal win at its end vote."""
    banish_ana = votes({"ana": "dag", "cy": "ana", "dag": "ana", "eli": "ana"})
    steps = [{"as": "host", "do": "score", "silver": 31, "access": []}, *to_table, *banish_ana, adv]
    game, rec = play(steps, roles={"ana": "traitor"}, final_day=2)
    assert not rec["over"] and game.phase.name == "night"
    assert st(game).traitors() == ()
    steps += [adv, *to_table, *votes({"bo": "cy", "dag": "cy", "eli": "cy"}), adv]
    game, rec = play(steps, roles={"ana": "traitor"}, final_day=2)
    assert not rec["over"] and game.phase.name == "end_vote"
    game, rec = play([*steps, adv], roles={"ana": "traitor"}, final_day=2)
    assert rec["over"] and rec["winner"] == "loyal"
    assert rec["share"] == 31 // len(rec["winners"]) and rec["pot"] == 31
    assert "ana" not in rec["winners"] and "cy" not in rec["winners"]
    assert rec["days"][0]["revealed"] == {"ana": "traitor"}
    # [decision] the night without traitors still brings a murder, drawn as for
    # silent traitors: a first murder-free morning would tell everyone.
    assert rec["days"][0]["murdered"] is not None


def test_traitors_win_at_once_when_no_loyal_is_left() -> None:
    _game, rec = play(LOYALS_GONE)
    assert rec["over"] and rec["winner"] == "traitors"
    assert rec["winners"] == ["ana", "bo"]
    assert len(rec["days"]) == 2 and rec["days"][1]["murdered"] == "eli"


def test_final_round_table_hides_roles_and_mixed_roles_go_to_the_traitors() -> None:
    steps = [
        {"as": "host", "do": "score", "silver": 40, "access": []},
        {"as": "host", "do": "final"},
        {"as": "host", "do": "final"},
        *to_night,
        {"as": "ana", "do": "end_vote", "end": True},
        adv,  # missing end votes count as end
    ]
    _game, rec = play(steps)
    assert codes(rec) == ["already"]
    assert rec["days"][0]["revealed"] == {}
    assert rec["winner"] == "traitors" and rec["winners"] == ["ana", "bo"]
    assert rec["share"] == 20


def test_final_continue_banishes_again_until_two_remain() -> None:
    steps = list(FINAL_GOES_ON)
    game, rec = play(steps)
    assert game.phase.name == "roundtable" and not rec["over"]
    steps += [
        *votes({"ana": "cy", "bo": "cy", "eli": "cy"}),
        adv,
        {"as": "fia", "do": "end_vote", "end": False},
        adv,
    ]
    steps += [*votes({"ana": "fia", "bo": "fia"}), adv]
    game, rec = play(steps)
    assert [game.players[s] for s in st(game).banished_today] == ["dag", "cy", "fia"]
    assert game.phase.name == "end_vote"
    steps += [
        {"as": "eli", "do": "end_vote", "end": False},
        adv,
        *votes({"ana": "eli", "bo": "eli"}),
        adv,
    ]
    game, rec = play(steps)
    assert rec["over"] and rec["winner"] == "traitors"
    assert rec["days"][0]["banished"] == ["dag", "cy", "fia", "eli"]
    assert rec["days"][0]["revealed"] == {}


def test_dagger_on_the_final_day_doubles_one_vote_only() -> None:
    steps = [
        {"as": "host", "do": "final"},
        *to_table,
        *votes({"ana": "fia", "bo": "fia", "cy": "dag", "eli": "dag"}, cy={"dagger": True}),
        adv,
        {"as": "cy", "do": "end_vote", "end": False},
        adv,
        {"as": "cy", "do": "vote", "for": "eli", "dagger": True},
    ]
    game, rec = play(steps, days={"1": {"shield": None, "dagger": "cy"}})
    assert codes(rec) == ["dagger_spent"]
    assert rec["days"] == [] and st(game).banished_today == (game.seat("dag"),)


def test_final_day_option_sets_the_length() -> None:
    steps = [
        *to_night,
        {"as": "ana", "do": "murder", "target": "fia"},
        adv,
        *to_table,
        *votes({"ana": "cy", "bo": "cy", "eli": "cy"}),
        adv,
    ]
    game, rec = play(steps, final_day=2)
    assert game.phase.name == "end_vote" and game.phase.round == 2
    assert st(game).revealed_today == ()
    assert codes(rec) == []


def test_pleas_are_awaited_from_the_tied() -> None:
    steps = [*to_table, *votes({"ana": "fia", "bo": "fia", "cy": "dag", "eli": "dag"}), adv]
    game, _ = play(steps)
    waiting = set(view(game, HOST_VIEW)["waiting"])
    assert waiting == {"ana", "bo", "cy", "eli", "dag", "fia"}
    game, _ = play([*steps, {"as": "fia", "do": "plea", "text": "not me"}])
    assert "fia" not in view(game, HOST_VIEW)["waiting"]
    assert view(game, None)["traitors"]["vote"]["pleas"] == {"fia": "not me"}
