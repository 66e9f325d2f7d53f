"""The Traitors' rules, one behaviour per test: the deal and pacing, missions,
the round table, views and the game master (the night and the end:
test_traitors_night.py; helpers: traitors_helpers.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from traitors_helpers import (
    BANISH_DAG,
    P6,
    adv,
    codes,
    play,
    script,
    st,
    to_night,
    to_table,
    votes,
)

from gameflow.core import actions as A
from gameflow.core.engine import apply, legal, view
from gameflow.core.events import Kind
from gameflow.core.result import Accepted, Rejected
from gameflow.core.state import HOST_VIEW
from gameflow.games.traitors import TRAITORS, gm_view, relay
from gameflow.games.traitors.options import traitor_count
from gameflow.i18n import render
from gameflow.replay import parse_step, replay_text, setup_game

pytestmark = pytest.mark.traitors

# -- the deal and pacing ----------------------------------------------------------


def test_traitor_count_follows_the_table() -> None:
    counts = [traitor_count(n) for n in (6, 7, 9, 10, 17, 18, 24)]
    assert counts == [1, 2, 2, 3, 3, 4, 4]


def test_drawn_deal_tells_the_traitors_each_other() -> None:
    two = {"game": "traitors", "players": P6, "seed": 3, "options": {"traitors": 2}}
    game, _now = setup_game(two)
    traitors = [p for p in P6 if st(game).role[game.seat(p)] == "traitor"]
    assert len(traitors) == 2
    for p in traitors:
        assert view(game, p)["you"]["traitors"] == traitors
    assert all("traitors" not in view(game, p)["you"] for p in P6 if p not in traitors)


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
        *to_night,
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


P8 = [*P6, "gus", "hal"]
# ana, bo and cy tie 2-2-2 (ana and bo are the traitors); in the re-vote the
# five others give ana and bo two votes each and cy one.
THREE_WAY_TIE = [
    *to_table,
    *votes({"cy": "ana", "dag": "ana", "eli": "bo", "fia": "bo", "gus": "cy", "hal": "cy"}),
    adv,
    *votes({"dag": "ana", "eli": "ana", "fia": "bo", "gus": "bo", "hal": "cy"}),
    adv,
]


def test_a_second_tie_excludes_everyone_the_revote_was_over() -> None:
    """Issue #35, 17: the seed's «Om det blir uavgjort resultat ved avstemming
    nummer to kan ikke disse spillerne lengre stemmes på»: "these players" are
    the ones the re-vote was over, so cy is out too, not only ana and bo."""
    game, rec = play(THREE_WAY_TIE, players=P8)
    assert game.phase.name == "revote" and st(game).table.kind == "open"
    out = {game.seat(p) for p in ("ana", "bo", "cy")}
    assert set(st(game).table.excluded) == out
    assert not out & set(st(game).table.candidates)
    ballot = next(s for s in legal(game, "dag") if s.kind == "vote")
    assert set(ballot.fields[0].options) == {"eli", "fia", "gus", "hal"}
    game, rec = play([*THREE_WAY_TIE, {"as": "dag", "do": "vote", "for": "cy"}], players=P8)
    assert codes(rec) == ["bad_target"]
    again = "A tie again: ana, bo, cy can no longer be voted for. A new vote follows."
    assert again in _announced(THREE_WAY_TIE)
    # then the others banish one of themselves
    game, rec = play(
        [*THREE_WAY_TIE, *votes({"ana": "hal", "bo": "hal", "cy": "hal"}), adv], players=P8
    )
    assert st(game).banished_today == (game.seat("hal"),)


def test_a_second_tie_may_exclude_only_the_tied_again() -> None:
    """[decision] `second_tie_excludes_all` off: the project's first reading,
    only the players tied again are excluded, so cy can still be banished."""
    steps = [*THREE_WAY_TIE, *votes({"ana": "cy", "bo": "cy", "dag": "cy"}), adv]
    game, rec = play(steps, players=P8, second_tie_excludes_all=False)
    assert codes(rec) == []
    assert set(st(game).table.excluded) == {game.seat("ana"), game.seat("bo")}
    assert st(game).banished_today == (game.seat("cy"),)


def _announced(steps: list[dict[str, Any]]) -> list[str]:
    """The public announcements of a script with P8, in English."""
    game, now = setup_game(script(steps, players=P8))
    out: list[str] = []
    for step in steps:
        now += 1.0
        action = parse_step(game, step)
        if isinstance(action, A.Deadline):
            now = max(now, game.phase.deadline or now)
        result = apply(game, action, now)
        if isinstance(result, Accepted):
            game = result.state
            said = [e for e in result.events if e.kind == Kind.ANNOUNCE and e.text]
            out += [render(e.text, "en") for e in said]
    return out


def test_silent_round_table_still_banishes_by_lot() -> None:
    game, _ = play([*to_table, adv])
    assert len(st(game).banished_today) == 1
    assert game.phase.name == "night"


# -- views, events and the game master ------------------------------------------------


def test_public_and_host_views_hold_no_secrets_but_gm_view_does() -> None:
    steps = [*to_night, {"as": "ana", "do": "murder", "target": "fia"}]
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
    game, _ = play([*to_night])
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
    night_skipped = [*to_night, adv]
    game, _ = play(
        [*night_skipped, *to_table, *votes({"ana": "eli", "bo": "eli", "cy": "eli"}), adv, adv]
    )
    missed = view(game, HOST_VIEW)["missed"]
    # ana and bo (the traitors) missed both night votes, but nights are not counted;
    # fia missed the day-1 and day-2 round-table votes like the other non-voters.
    assert missed["ana"] == missed["bo"] == 0
    assert missed["fia"] >= 1


def test_unset_final_day_follows_the_table_size() -> None:
    from gameflow.games.traitors.length import default_final_day

    for n in (6, 12, 24):
        players = [f"p{i}" for i in range(n)]
        game, _ = setup_game({"game": "traitors", "players": players, "seed": 1, "options": {}})
        assert st(game).final_day == default_final_day(n)
    game, _ = setup_game(script([], final_day=5))
    assert st(game).final_day == 5
