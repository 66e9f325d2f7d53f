"""The Traitors' rules, one behaviour per test, through game scripts and the engine.

Most tests play a short script through `gameflow.replay.run` (the same path as
`python -m gameflow replay`) with a fixed deal: ana and bo are the traitors among
six players unless a test says otherwise. `adv` ends the current phase as its
deadline would; `to_table` runs the mission and the shield room.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from gameflow.core import actions as A
from gameflow.core.engine import apply, legal, view
from gameflow.core.events import Kind
from gameflow.core.result import Accepted, Rejected
from gameflow.core.state import HOST_VIEW, Game
from gameflow.games.traitors import TRAITORS, gm_view, relay
from gameflow.games.traitors.actions import Murder, Tempt, Vote
from gameflow.games.traitors.options import traitor_count
from gameflow.games.traitors.state import Traitors
from gameflow.replay import record, replay_text, run, setup_game

pytestmark = pytest.mark.traitors

P6 = ["ana", "bo", "cy", "dag", "eli", "fia"]
ROLES = {"ana": "traitor", "bo": "traitor"}
adv: dict[str, Any] = {"do": "advance"}
to_table = [adv, adv]


def script(
    steps: list[dict[str, Any]],
    *,
    players: list[str] | None = None,
    roles: dict[str, str] | None = None,
    days: dict[str, Any] | None = None,
    **options: Any,
) -> dict[str, Any]:
    opts = {"pacing": "fast", "missions": "host", "dagger": True, "recruit": True}
    opts.update(options)
    return {
        "game": "traitors",
        "players": players or P6,
        "seed": 5,
        "options": opts,
        "setup": {"roles": ROLES if roles is None else roles, "days": days or {}},
        "steps": steps,
    }


def play(steps: list[dict[str, Any]], **kw: Any) -> tuple[Game, dict[str, Any]]:
    game, rejected = run(script(steps, **kw))
    return game, record(game, rejected)


def votes(table: dict[str, str], **extra: Any) -> list[dict[str, Any]]:
    out = []
    for p, q in table.items():
        step: dict[str, Any] = {"as": p, "do": "vote", "for": q}
        step.update(extra.get(p, {}))
        out.append(step)
    return out


def codes(rec: dict[str, Any]) -> list[str]:
    return [r["code"] for r in rec["rejected"]]


def st(game: Game) -> Traitors:
    rules: Traitors = game.rules
    return rules


BANISH_DAG = votes({"ana": "dag", "bo": "dag", "cy": "dag", "eli": "dag"})
BANISH_BO = votes({"ana": "cy", "cy": "bo", "dag": "bo", "eli": "bo", "fia": "bo"})


# -- the deal and pacing ----------------------------------------------------------


def test_traitor_count_follows_the_table() -> None:
    assert [traitor_count(n) for n in (6, 9, 10, 17, 18, 24)] == [2, 2, 3, 3, 4, 4]


def test_drawn_deal_tells_the_traitors_each_other() -> None:
    game, _now = setup_game({"game": "traitors", "players": P6, "seed": 3, "options": {}})
    traitors = [p for p in P6 if st(game).role[game.seat(p)] == "traitor"]
    assert len(traitors) == 2
    for p in traitors:
        assert view(game, p)["you"]["traitors"] == traitors
    assert all("traitors" not in view(game, p)["you"] for p in P6 if p not in traitors)


def test_campaign_pacing_runs_on_the_digest_schedule() -> None:
    game, t = setup_game(
        {"game": "traitors", "players": P6, "seed": 3, "options": {}, "setup": {"roles": ROLES}}
    )
    hour = 3600.0

    def early(g: Game, at: float) -> Game:
        res = apply(g, A.Advance("host", g.phase.seq), at)
        assert isinstance(res, Accepted), res
        return res.state

    assert game.phase.name == "mission"
    assert game.phase.deadline == t + 9 * hour  # 08:00 -> 17:00
    game = early(game, t + 1 * hour)
    assert game.phase.name == "shield_room"
    assert game.phase.deadline == t + 11 * hour  # until 19:00, whenever it opened
    game = early(game, t + 2 * hour)
    assert game.phase.deadline == t + 12.5 * hour  # round table until 20:30
    for p, q in (
        ("ana", "dag"),
        ("bo", "dag"),
        ("cy", "dag"),
        ("dag", "ana"),
        ("eli", "dag"),
        ("fia", "dag"),
    ):
        game = apply(game, Vote(p, None, q), t + 3 * hour).state  # type: ignore[union-attr]
    game = early(game, t + 3 * hour)
    assert game.phase.name == "night"
    assert game.phase.deadline == t + 23 * hour  # until 07:00
    res = apply(game, A.Deadline(None, game.phase.seq), t + 23 * hour)
    assert isinstance(res, Accepted)
    game = res.state
    assert (game.phase.name, game.phase.round) == ("mission", 2)
    assert game.phase.deadline == t + 33 * hour  # day 2, 17:00
    assert any(e.kind == Kind.TIMER and e.at == t + 33 * hour for e in res.events)


def test_fast_pacing_uses_minutes() -> None:
    game, now = setup_game(script([]))
    assert game.phase.deadline == now + 300


# -- missions ---------------------------------------------------------------------


def test_host_scores_the_mission_and_players_cannot() -> None:
    steps = [
        {"as": "cy", "do": "score", "silver": 10, "access": ["cy"]},
        {"as": "host", "do": "score", "silver": -1, "access": []},
        {"as": "host", "do": "score", "silver": 30, "access": ["cy", "dag"]},
        adv,
    ]
    game, rec = play(steps)
    assert codes(rec) == ["host_only", "bad_silver"]
    assert st(game).pot == 30
    assert sorted(view(game, None)["traitors"]["access"]) == ["cy", "dag"]


def test_score_is_a_legal_host_action_in_a_host_mission() -> None:
    game, _ = setup_game(script([]))
    kinds = [s.kind for s in legal(game, "host")]
    assert "score" in kinds and "final" in kinds and "murder_free" in kinds


def test_relay_mission_traitor_drop_costs_silver_and_decides_access() -> None:
    steps = [
        {"as": "ana", "do": "mission", "to": "cy", "drop": True},
        {"as": "cy", "do": "mission", "to": "dag", "drop": True},
        {"as": "bo", "do": "mission", "to": "eli"},
        {"as": "cy", "do": "mission", "to": "dag"},
        {"as": "dag", "do": "mission", "to": "dag"},
        {"as": "dag", "do": "mission", "to": "fia"},
        {"as": "dag", "do": "mission", "to": "eli"},
        adv,
    ]
    game, rec = play(steps, missions="relay")
    assert codes(rec) == ["not_traitor", "bad_target", "locked"]
    # three clean (+10 each), one dropped (-10)
    assert st(game).pot == 20
    assert view(game, None)["traitors"]["access"] == ["dag", "eli", "fia"]


def test_chests_mission_cursed_chest_is_known_to_traitors_only() -> None:
    game, _ = setup_game(script([], missions="chests"))
    m = st(game).mission
    assert m is not None and m.cursed != m.treasure
    assert view(game, "ana")["you"]["cursed_chest"] == m.cursed
    assert "cursed_chest" not in view(game, "cy")["you"]
    assert str(m.cursed) not in json.dumps(view(game, None)["traitors"].get("mission"))
    steps = [
        {"as": p, "do": "mission", "chest": c}
        for p, c in zip(
            P6, [m.cursed, m.cursed, m.treasure, m.treasure, m.treasure, 9], strict=True
        )
    ]
    game, rec = play([*steps, adv], missions="chests")
    assert codes(rec) == ["bad_chest"]
    assert st(game).pot == 10  # 3 x 10 treasure - 2 x 10 cursed
    assert view(game, None)["traitors"]["access"] == ["cy", "dag", "eli"]


def test_pot_never_goes_negative() -> None:
    steps = [
        {"as": "ana", "do": "mission", "to": "cy", "drop": True},
        {"as": "bo", "do": "mission", "to": "cy", "drop": True},
        adv,
    ]
    game, _ = play(steps, missions="relay")
    assert st(game).pot == 0


# -- round table -------------------------------------------------------------------


def test_votes_are_read_out_and_the_banished_role_revealed() -> None:
    steps = [
        *to_table,
        *votes({"ana": "dag", "bo": "dag", "cy": "dag"}, cy={"reason": "too quiet"}),
        adv,
    ]
    game, _rec = play(steps)
    assert st(game).banished_today == (game.seat("dag"),)
    pub = view(game, None)["traitors"]
    assert pub["votes"][0][2] == {"voter": "cy", "for": "dag", "weight": 1, "reason": "too quiet"}
    assert {"id": "dag", "name": "dag", "status": "banished", "role": "loyal"} in pub["table"]
    assert game.phase.name == "night"


def test_refused_votes() -> None:
    steps = [
        {"as": "cy", "do": "vote", "for": "cy"},
        {"as": "cy", "do": "vote", "for": "nobody"},
        {"as": "cy", "do": "vote", "for": "dag", "dagger": True},
        {"as": "cy", "do": "vote", "for": "dag", "reason": "x" * 200},
        {"as": "cy", "do": "vote", "for": "dag"},
        {"as": "cy", "do": "vote", "for": "eli"},
    ]
    _, rec = play([*to_table, *steps], days={"1": {"shield": None, "dagger": None}})
    assert codes(rec) == ["self_vote", "bad_target", "no_dagger", "long_reason", "locked"]


def test_murdered_player_cannot_vote_or_be_voted_for() -> None:
    steps = [
        *to_table,
        *BANISH_DAG,
        adv,
        {"as": "ana", "do": "murder", "target": "fia"},
        adv,
        *to_table,
        {"as": "fia", "do": "vote", "for": "ana"},
        {"as": "cy", "do": "vote", "for": "fia"},
    ]
    _, rec = play(steps)
    assert codes(rec) == ["not_active", "bad_target"]


def test_dagger_doubles_the_vote_laid_before_the_first_reading() -> None:
    steps = [
        *to_table,
        *votes({"ana": "fia", "bo": "fia", "cy": "dag", "eli": "dag"}, cy={"dagger": True}),
        adv,
    ]
    game, rec = play(steps, days={"1": {"shield": "dag", "dagger": "cy"}})
    assert rec["days"] == [] and st(game).banished_today == (game.seat("dag"),)
    assert view(game, None)["traitors"]["votes"][0][2]["weight"] == 2


def test_dagger_counts_again_in_the_tie_revote_but_not_later() -> None:
    steps = [
        *to_table,
        *votes({"ana": "fia", "bo": "fia", "cy": "dag"}, cy={"dagger": True}),
        adv,  # fia 2, dag 2: tie
        {"as": "fia", "do": "vote", "for": "ana"},  # tied: may not vote
        {"as": "fia", "do": "plea", "text": "I am loyal!"},
        {"as": "ana", "do": "plea", "text": "me too"},  # not tied: no plea
        {"as": "cy", "do": "vote", "for": "fia"},  # still counts twice
        {"as": "eli", "do": "vote", "for": "dag"},
        adv,
    ]
    game, rec = play(steps, days={"1": {"shield": "dag", "dagger": "cy"}})
    assert codes(rec) == ["tied", "no_plea"]
    assert st(game).banished_today == (game.seat("fia"),)
    assert st(game).readings[1][0].weight == 2


def test_full_tie_protocol_excludes_the_twice_tied() -> None:
    steps = [
        *to_table,
        *votes({"ana": "fia", "bo": "fia", "cy": "dag", "eli": "dag"}),
        adv,  # tie fia/dag -> re-vote among them
        *votes({"ana": "fia", "cy": "dag"}),
        adv,  # tie again -> fia and dag excluded, new vote
        {"as": "cy", "do": "vote", "for": "dag"},
        {"as": "cy", "do": "vote", "for": "eli", "dagger": True},
        *votes({"ana": "eli", "cy": "eli", "bo": "cy"}),
        adv,
    ]
    game, rec = play(steps, days={"1": {"shield": None, "dagger": "cy"}})
    assert codes(rec) == ["bad_target", "dagger_spent"]
    assert st(game).banished_today == (game.seat("eli"),)
    assert [r["day"] for r in rec["days"]] == []
    assert game.phase.name == "night"


def test_silent_round_table_still_banishes_by_lot() -> None:
    game, _ = play([*to_table, adv])
    assert len(st(game).banished_today) == 1
    assert game.phase.name == "night"


# -- night ------------------------------------------------------------------------------


def test_traitor_cannot_target_a_traitor_and_loyals_cannot_murder() -> None:
    steps = [
        *to_table,
        *BANISH_DAG,
        adv,
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
        *to_table,
        *BANISH_DAG,
        adv,
        {"as": "ana", "do": "murder", "target": "cy"},
        {"as": "bo", "do": "murder", "target": "cy"},
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
        *to_table,
        *BANISH_DAG,
        adv,
        {"as": "ana", "do": "murder", "target": "fia"},
        adv,
    ]
    _, rec = play(steps)
    assert rec["days"][0]["murdered"] is None


def test_murder_tie_between_kinds_and_targets() -> None:
    steps = [
        *to_table,
        *BANISH_DAG,
        adv,
        {"as": "ana", "do": "murder", "target": "fia"},
        {"as": "bo", "do": "murder", "target": "eli"},
        adv,
    ]
    _, rec = play(steps)
    assert rec["days"][0]["murdered"] in ("fia", "eli")


def test_silent_traitors_still_murder_a_loyal() -> None:
    _, rec = play([*to_table, *BANISH_DAG, adv, adv])
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
        {"as": "ana", "do": "tempt", "target": "dag"},
        {"as": "bo", "do": "tempt", "target": "dag"},
        adv,
    ]
    if accept is not None:
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


def test_tempt_answer_phase_is_reached() -> None:
    roles = {"ana": "traitor", "bo": "traitor", "cy": "traitor"}
    steps = [
        *to_table,
        *votes({"ana": "cy", "bo": "cy", "dag": "cy", "eli": "cy"}),
        adv,
        {"as": "ana", "do": "tempt", "target": "dag"},
        {"as": "bo", "do": "tempt", "target": "eli"},
        adv,
    ]
    game, _ = play(steps, roles=roles, players=[*P6, "gus", "hal"])
    assert game.phase.name == "answer"
    tempted = st(game).pending
    assert tempted is not None and game.players[tempted.target] in ("dag", "eli")
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
        adv,
        {"as": "cy", "do": "answer", "accept": False},
        adv,
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
        adv,
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
        *to_table,
        *BANISH_DAG,
        adv,
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
        *to_table,
        *BANISH_DAG,
        adv,
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
        *to_table,
        *BANISH_DAG,
        adv,
        {"as": "ana", "do": "death_list", "names": ["ana", "eli", "cy"]},
        adv,
    ]
    game, rec = play(steps)
    assert codes(rec) == []
    assert view(game, None)["traitors"]["death_list"] == ["ana", "cy", "eli"]


# -- the end --------------------------------------------------------------------------


def test_loyal_win_at_once_when_no_traitor_is_left_and_pot_split() -> None:
    steps = [
        {"as": "host", "do": "score", "silver": 31, "access": []},
        *to_table,
        *votes({"ana": "dag", "cy": "ana", "dag": "ana", "eli": "ana"}),
        adv,
        {"as": "cy", "do": "vote", "for": "dag"},
    ]
    game, rec = play(steps, roles={"ana": "traitor"})
    assert rec["over"] and rec["winner"] == "loyal"
    assert rec["winners"] == ["bo", "cy", "dag", "eli", "fia"]
    assert rec["share"] == 6 and rec["pot"] == 31
    assert rec["days"] == [
        {
            "day": 1,
            "murdered": None,
            "banished": ["ana"],
            "revealed": {"ana": "traitor"},
            "converted": None,
            "pot": 31,
        }
    ]
    assert codes(rec) == ["over"]
    assert {p["id"]: p["role"] for p in view(game, None)["traitors"]["table"]}["bo"] == "loyal"


def test_traitors_win_at_once_when_no_loyal_is_left() -> None:
    steps = [
        *to_table,
        *votes({"ana": "dag", "bo": "dag", "cy": "dag"}),
        adv,
        {"as": "ana", "do": "murder", "target": "fia"},
        adv,
        *to_table,
        *votes({"ana": "cy", "bo": "cy", "eli": "cy"}),
        adv,
        {"as": "ana", "do": "murder", "target": "eli"},
        adv,
    ]
    _game, rec = play(steps)
    assert rec["over"] and rec["winner"] == "traitors"
    assert rec["winners"] == ["ana", "bo"]
    assert len(rec["days"]) == 2 and rec["days"][1]["murdered"] == "eli"


def test_final_round_table_hides_roles_and_mixed_roles_go_to_the_traitors() -> None:
    steps = [
        {"as": "host", "do": "score", "silver": 40, "access": []},
        {"as": "host", "do": "final"},
        {"as": "host", "do": "final"},
        *to_table,
        *BANISH_DAG,
        adv,
        {"as": "ana", "do": "end_vote", "end": True},
        adv,  # missing end votes count as end
    ]
    _game, rec = play(steps)
    assert codes(rec) == ["already"]
    assert rec["days"][0]["revealed"] == {}
    assert rec["winner"] == "traitors" and rec["winners"] == ["ana", "bo"]
    assert rec["share"] == 20


def test_final_continue_banishes_again_until_two_remain() -> None:
    steps = [
        {"as": "host", "do": "final"},
        *to_table,
        *BANISH_DAG,
        adv,
        {"as": "cy", "do": "end_vote", "end": False},
        adv,
    ]
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
        *to_table,
        *BANISH_DAG,
        adv,
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


# -- views, events and the game master ------------------------------------------------


def test_public_and_host_views_hold_no_secrets_but_gm_view_does() -> None:
    steps = [*to_table, *BANISH_DAG, adv, {"as": "ana", "do": "murder", "target": "fia"}]
    game, _ = play(steps, days={"1": {"shield": "cy", "dagger": "eli"}})
    for v in (view(game, None), view(game, HOST_VIEW), view(game, "cy")):
        text = json.dumps(v)
        assert "secrets" not in text and "night_votes" not in text
        roles = {p["id"]: p.get("role") for p in v["traitors"]["table"]}
        assert roles["ana"] is None and roles["bo"] is None
    assert view(game, HOST_VIEW)["waiting"] == []
    gm = gm_view(game)
    assert gm["secrets"]["roles"]["ana"] == "traitor"
    assert gm["secrets"]["shield"] == "cy"
    assert gm["secrets"]["night_votes"]["ana"] == {"kind": "murder", "target": "fia"}
    assert view(game, "bo")["you"]["night_votes"]["ana"]["target"] == "fia"
    assert view(game, "bo")["you"]["chat_with"] == ["ana"]
    assert view(game, "cy")["you"]["chat_with"] == []


def test_secret_events_go_only_to_their_player() -> None:
    game, now = setup_game(script([]))
    res = apply(game, A.Deadline(None, game.phase.seq), game.phase.deadline or now)
    assert isinstance(res, Accepted)
    for e in res.events:
        if e.kind == Kind.ANNOUNCE:
            assert "SHIELD" not in e.text.msgid if e.text else True


def test_rules_object_round_trips_steps() -> None:
    steps = [
        {"as": "host", "do": "score", "silver": 3, "access": ["cy"]},
        {"as": "cy", "do": "vote", "for": "dag", "dagger": True, "reason": "hm"},
        {"as": "ana", "do": "murder", "target": "cy"},
        {"as": "ana", "do": "death_list", "names": ["cy", "dag", "ana"]},
        {"as": "cy", "do": "answer", "accept": True},
        {"as": "cy", "do": "end_vote", "end": False},
        {"as": "cy", "do": "plea", "text": "hi"},
        {"as": "cy", "do": "mission", "to": "dag", "drop": True},
        {"as": "cy", "do": "mission", "chest": 2},
        {"as": "host", "do": "recruit", "allow": False},
        {"as": "host", "do": "dagger", "on": False},
        {"as": "host", "do": "final"},
        {"as": "host", "do": "murder_free"},
    ]
    for step in steps:
        action = TRAITORS.parse_step(step)
        assert action is not None
        assert TRAITORS.step_of(action) == step


def test_traitors_talk_in_secret_at_night_only() -> None:
    game, _ = play([*to_table, *BANISH_DAG])
    refused = relay(game, "ana", "hello")
    assert isinstance(refused, Rejected) and refused.code == "no_chat"
    game, _ = play([*to_table, *BANISH_DAG, adv])
    events = relay(game, "ana", "  murder fia?  ")
    assert not isinstance(events, Rejected)
    assert [(e.to, e.secret, e.text.param("text") if e.text else None) for e in events] == [
        ("bo", True, "murder fia?")
    ]
    loyal = relay(game, "cy", "who are you?")
    assert isinstance(loyal, Rejected) and loyal.code == "no_chat"
    assert isinstance(relay(game, "ana", "x" * 600), Rejected)


def test_replay_output_is_byte_identical() -> None:
    steps = [
        {"as": "host", "do": "score", "silver": 12, "access": ["cy", "dag", "eli"]},
        *to_table,
        adv,
        adv,
        *to_table,
        adv,
        adv,
    ]
    text = json.dumps(script(steps, days={}))
    first = replay_text(text)
    assert first == replay_text(text)
    out = json.loads(first)
    assert out["game"] == "traitors" and len(out["days"]) == 2 and out["pot"] == 12


def test_missed_night_votes_are_not_counted_so_the_host_cannot_spot_traitors() -> None:
    # Two nights in which the traitors send nothing, then the next day's deadlines.
    night_skipped = [*to_table, *BANISH_DAG, adv, adv]
    game, _ = play(
        [*night_skipped, *to_table, *votes({"ana": "eli", "bo": "eli", "cy": "eli"}), adv, adv]
    )
    missed = view(game, HOST_VIEW)["missed"]
    # ana and bo (the traitors) missed both night votes, but nights are not counted;
    # fia missed the day-1 and day-2 round-table votes like the other non-voters.
    assert missed["ana"] == missed["bo"] == 0
    assert missed["fia"] >= 1
