"""The Traitors keeps the format's secrets (issue #17): nothing public tells how
many traitors there are, whether any remain, or whether anyone was recruited;
and the rules at the edges (forcing, the dagger's box, the game master's veto,
the end). Each test fails without the rule it names. Helpers:
traitors_helpers.py; the night's own rules: test_traitors_night.py."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from traitors_helpers import (
    BANISH_BO,
    FINAL_GOES_ON,
    LOYALS_GONE,
    P6,
    adv,
    both,
    codes,
    play,
    script,
    st,
    to_night,
    to_table,
    votes,
)

from adapters.tv.screens import render_screen
from gameflow.core import actions as A
from gameflow.core.engine import apply, legal, new_game, view
from gameflow.core.events import Kind
from gameflow.core.result import Accepted
from gameflow.core.state import HOST_VIEW, Game
from gameflow.games.traitors.actions import Force
from gameflow.i18n import render
from gameflow.replay import parse_step, record, setup_game

pytestmark = pytest.mark.traitors

P8 = [*P6, "gus", "hal"]
THREE = {"ana": "traitor", "bo": "traitor", "cy": "traitor"}


def states(
    s: dict[str, Any], *, auto: bool = False
) -> Iterator[tuple[Game, float, tuple[Any, ...]]]:
    """Every state of a script as replay plays it (one second a step, `advance`
    at the deadline), with the clock and the events of the step that made it."""
    game, now = setup_game(s, auto_advance=auto)
    yield game, now, ()
    for step in s["steps"]:
        now += 1.0
        action = parse_step(game, step)
        if isinstance(action, A.Deadline):
            now = max(now, game.phase.deadline or now)
        result = apply(game, action, now)
        if isinstance(result, Accepted):
            game = result.state
            yield game, now, result.events


def public(game: Game) -> dict[str, Any]:
    """The public view without the version, which counts every input."""
    return {k: v for k, v in view(game, None).items() if k != "version"}


def announced(events: tuple[Any, ...]) -> list[str]:
    return [render(e.text, "en") for e in events if e.kind == Kind.ANNOUNCE and e.text]


# -- 1. no count of traitors anywhere public ----------------------------------------


def _start(roles: dict[str, str]) -> tuple[Game, tuple[Any, ...]]:
    s = script([], roles=roles, players=P8)
    game = new_game("traitors", "t", "host", 5, lang="en", options=s["options"], setup=s["setup"])
    for p in P8:
        joined = apply(game, A.Join(p, None, p), 0.0)
        assert isinstance(joined, Accepted)
        game = joined.state
    started = apply(game, A.Start("host"), 0.0)
    assert isinstance(started, Accepted)
    return started.state, started.events


def test_nothing_public_at_the_start_tells_how_many_traitors_there_are() -> None:
    seen = []
    for roles in ({"ana": "traitor"}, {"ana": "traitor", "bo": "traitor"}, THREE):
        game, events = _start(roles)
        seen.append(
            (
                view(game, None),
                render_screen(view(game, None), None),
                record(game, []),
                announced(events),
            )
        )
    assert seen[0] == seen[1] == seen[2]
    assert seen[0][3][0] == "The Traitors begins: 8 players, 12 days."


def test_the_traitors_know_each_other_and_so_their_number() -> None:
    game, events = _start(THREE)
    assert sorted(view(game, "bo")["you"]["traitors"]) == ["ana", "bo", "cy"]
    told = [render(e.text, "en") for e in events if e.to == "cy" and e.text]
    assert told == ["You are a TRAITOR. The traitors are: ana, bo, cy."]


# -- 2./3. the end ---------------------------------------------------------------------


def test_an_emptied_loyal_side_still_ends_at_once() -> None:
    _game, rec = play(LOYALS_GONE)
    assert rec["over"] and rec["winner"] == "traitors" and len(rec["days"]) == 2


def test_two_players_left_in_the_final_round_reveal_at_once() -> None:
    steps = [
        *FINAL_GOES_ON,
        *votes({"ana": "cy", "bo": "cy", "eli": "cy"}),
        adv,
        {"as": "eli", "do": "end_vote", "end": False},
        adv,
        *votes({"ana": "eli", "bo": "eli", "fia": "eli"}),
        adv,
    ]
    game, rec = play(steps)
    assert game.phase.name == "end_vote" and len(st(game).seats()) == 3
    steps += [{"as": "fia", "do": "end_vote", "end": False}, adv, *votes({"ana": "fia"}), adv]
    phases = [g.phase.name for g, _, _ in states(script(steps))]
    game, rec = play(steps)
    assert rec["over"] and rec["winner"] == "traitors"
    assert len(st(game).seats()) == 2
    assert phases[-2] == "roundtable"  # no end vote between the banishment and the end


# -- 4. recruitment nights look like every other night --------------------------------


def _night(steps: list[dict[str, Any]], **kw: Any) -> list[tuple[Game, float, tuple[Any, ...]]]:
    auto = kw.pop("auto", False)
    return list(states(script(steps, **kw), auto=auto))


def _public_night(
    run: list[tuple[Game, float, tuple[Any, ...]]],
) -> tuple[set[str], float | None, float | None, int]:
    """What the public saw of the first night: its distinct views, when it ends,
    when the next day started, and how many public messages came during it."""
    night = [(g, e) for g, _, e in run if g.phase.name == "night" and g.phase.round == 1]
    seen = {repr(public(g)) for g, _ in night}
    deadline = night[0][0].phase.deadline
    after = next(g for g, _, _ in run if g.phase.round == 2)
    said = sum(len(announced(e)) for _, e in night[1:])
    return seen, deadline, after.phase.started, said


BEFORE_NIGHT = [*to_table, *votes({"ana": "cy", "bo": "cy", "dag": "cy", "eli": "cy"}), adv]


@pytest.mark.parametrize("pacing", ["fast", "campaign"])
@pytest.mark.parametrize("answer", [True, False, None])
def test_a_tempting_night_looks_like_a_murder_night(pacing: str, answer: bool | None) -> None:
    murder, tempt = both("murder", "dag"), both("tempt", "dag")
    if answer is not None:
        tempt.append({"as": "dag", "do": "answer", "accept": answer})
    kw: dict[str, Any] = {"roles": THREE, "players": P8, "pacing": pacing}
    plain = _public_night(_night([*BEFORE_NIGHT, *murder, adv, adv], **kw))
    tempted_run = _night([*BEFORE_NIGHT, *tempt, adv, adv], **kw)
    tempted = _public_night(tempted_run)
    assert len(plain[0]) == 1 and plain == tempted
    final = tempted_run[-1][0]
    assert st(final).history[0].tempted
    assert (st(final).role[final.seat("dag")] == "traitor") is bool(answer)


@pytest.mark.parametrize("answer", [True, False, None])
def test_a_forcing_night_looks_like_a_murder_night(answer: bool | None) -> None:
    lone = [*to_table, *BANISH_BO, adv]
    plain = [
        {"as": "ana", "do": "force", "target": "eli"},
        {"as": "ana", "do": "murder", "target": "fia"},
    ]
    shielded = [
        {"as": "ana", "do": "force", "target": "cy"},
        {"as": "ana", "do": "murder", "target": "fia"},
    ]
    if answer is not None:
        shielded.append({"as": "cy", "do": "answer", "accept": answer})
    if answer is False:
        shielded.append({"as": "ana", "do": "force", "target": "dag"})
    days = {"1": {"shield": "cy"}}
    a = _public_night(_night([*lone, *plain, adv, adv], days=days))
    run = _night([*lone, *shielded, adv, adv], days=days)
    assert a == _public_night(run)
    final = st(run[-1][0])
    assert final.history[0].murdered == 5  # fia
    assert final.role[2] == ("traitor" if answer else "loyal")  # cy


def test_the_night_never_ends_early_even_with_automatic_advancing() -> None:
    steps = [
        *BEFORE_NIGHT,
        *both("tempt", "dag"),
        {"as": "dag", "do": "answer", "accept": True},
    ]
    run = _night(steps, roles=THREE, players=P8, auto=True)
    game = run[-1][0]
    assert game.phase.name == "night" and st(game).answer is True
    night_seq = game.phase.seq
    assert all(g.phase.seq == night_seq for g, _, _ in run[-4:])


def test_nobody_is_shown_awaited_at_night() -> None:
    game, _ = play(
        [*BEFORE_NIGHT, {"as": "ana", "do": "tempt", "target": "dag"}], roles=THREE, players=P8
    )
    from gameflow.games.traitors import TRAITORS

    assert TRAITORS.expected(game) == ()
    assert "ready" not in view(game, None)["traitors"]


EARLY = {"as": "host", "do": "advance_early"}
NIGHT_MURDER = [
    *both("murder", "dag"),
]


@pytest.mark.parametrize("pacing", ["fast", "campaign"])
def test_the_host_cannot_end_a_night_early(pacing: str) -> None:
    """Issue #35, 16: the host's early advance is refused alike before and after
    the traitors have voted, and never offered at night: accepting it once
    nobody is awaited would tell the host that the traitors are done."""
    steps = [*BEFORE_NIGHT, EARLY, *NIGHT_MURDER, EARLY]
    game, rec = play(steps, pacing=pacing)
    assert game.phase.name == "night" and st(game).pending is not None
    assert codes(rec) == ["not_early", "not_early"]
    assert rec["rejected"][0]["error"] == rec["rejected"][1]["error"]
    assert "deadline" in rec["rejected"][0]["error"]
    nights = [g for g, _, _ in states(script(steps, pacing=pacing)) if g.phase.name == "night"]
    assert len(nights) == 3  # the night, then each traitor's vote
    assert all("advance_early" not in [s.kind for s in legal(g, "host")] for g in nights)


def test_a_replayed_automatic_advance_does_not_end_a_night_either() -> None:
    """An exported script's `advance` with `auto` (a phase that ended by
    itself) is refused at night, as the live game never advances a night."""
    steps = [*BEFORE_NIGHT, *NIGHT_MURDER, {"do": "advance", "auto": True}]
    game, rec = play(steps)
    assert game.phase.name == "night" and codes(rec) == ["not_early"]


def test_a_night_without_traitors_does_not_end_early_either() -> None:
    """With no traitor left nobody is awaited at night from its start; an
    accepted early advance would bring breakfast at once and so tell everyone
    the traitors are gone (the seed: the loyal don't know how many there are)."""
    banish_ana = votes({"ana": "dag", "cy": "ana", "dag": "ana", "eli": "ana"})
    steps = [*to_table, *banish_ana, adv, EARLY]
    game, rec = play(steps, roles={"ana": "traitor"})
    assert st(game).traitors() == ()
    assert game.phase.name == "night" and game.phase.round == 1
    assert codes(rec) == ["not_early"]


def test_the_hosts_view_does_not_move_with_the_night_votes() -> None:
    """Issue #35, 18: the host's ordinary view holds nothing secret, so it
    carries no version (which counts every input, the night's votes too) and
    nothing in it, the host's menu included, changes when the traitors vote."""
    steps = [*BEFORE_NIGHT, *NIGHT_MURDER]
    nights = [g for g, _, _ in states(script(steps)) if g.phase.name == "night"]
    assert len(nights) == 3 and nights[0].version + 2 == nights[2].version
    hosts = [view(g, HOST_VIEW) for g in nights]
    assert "version" not in hosts[0]
    assert hosts[0] == hosts[1] == hosts[2]
    assert legal(nights[0], "host") == legal(nights[1], "host") == legal(nights[2], "host")
    assert "death_list_on" in [s.kind for s in legal(nights[2], "host")]
    # the version is still the engine's (the secret view and the service use it)
    assert nights[2].version > nights[0].version


# -- 5./6. forcing --------------------------------------------------------------------


LONE = [*to_table, *BANISH_BO, adv]


def test_forcing_needs_the_game_masters_permission() -> None:
    game, _ = play([{"as": "host", "do": "recruit", "allow": False}, *LONE])
    assert "force" not in [s.kind for s in legal(game, "ana")]
    refused = apply(game, Force("ana", None, "cy"), 0.0)
    assert not isinstance(refused, Accepted) and refused.code == "no_force"
    game, rec = play([{"as": "host", "do": "recruit", "allow": False}, *LONE, adv])
    assert rec["days"][0]["converted"] is None and rec["days"][0]["murdered"] is not None


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("murder", [None, "fia"])
def test_a_forcing_night_always_murders_someone_else(seed: int, murder: str | None) -> None:
    """The lone traitor forces nobody in particular (drawn at the night's end),
    and murders fia or nobody in particular: the traitor's own murder stands,
    and the forced player is never the night's victim."""
    from gameflow.replay import run

    chosen = [] if murder is None else [{"as": "ana", "do": "murder", "target": murder}]
    final, _ = run({**script([*LONE, *chosen, adv]), "seed": seed})
    day = st(final).history[0]
    assert day.murdered >= 0 and day.converted >= 0 and day.murdered != day.converted
    if murder is not None:
        assert final.players[day.murdered] == murder


@pytest.mark.parametrize("seed", range(12))
def test_a_redrawn_force_is_never_the_victim_nor_the_one_who_refused(seed: int) -> None:
    from gameflow.replay import run

    steps = [
        *LONE,
        {"as": "ana", "do": "murder", "target": "fia"},
        {"as": "ana", "do": "force", "target": "cy"},
        {"as": "cy", "do": "answer", "accept": False},
        adv,  # the traitor does not force again: drawn at breakfast
    ]
    final, rejected = run({**script(steps, days={"1": {"shield": "cy"}}), "seed": seed})
    assert rejected == []
    day = st(final).history[0]
    assert day.murdered == final.seat("fia")
    assert day.converted not in (final.seat("fia"), final.seat("cy"), -1)


def test_one_who_refused_with_the_shield_is_not_forced_again_tonight() -> None:
    steps = [
        *LONE,
        {"as": "ana", "do": "murder", "target": "fia"},
        {"as": "ana", "do": "force", "target": "cy"},
        {"as": "cy", "do": "answer", "accept": False},
    ]
    game, _ = play(steps, days={"1": {"shield": "cy"}})
    force = [s for s in legal(game, "ana") if s.kind == "force"]
    assert force and "cy" not in force[0].options("target")
    assert "fia" not in force[0].options("target")
    _, rec = play(
        [*steps, {"as": "ana", "do": "force", "target": "cy"}], days={"1": {"shield": "cy"}}
    )
    assert codes(rec) == ["declined"]


def test_a_silent_shield_holder_keeps_the_shield() -> None:
    steps = [
        *LONE,
        {"as": "ana", "do": "murder", "target": "cy"},
        {"as": "ana", "do": "force", "target": "cy"},
    ]
    _, rec = play(steps, days={"1": {"shield": "cy"}})
    assert codes(rec) == ["same_target"]
    steps = [
        *LONE,
        {"as": "ana", "do": "murder", "target": "fia"},
        {"as": "ana", "do": "force", "target": "cy"},
        adv,
    ]
    game, rec = play(steps, days={"1": {"shield": "cy"}})
    assert st(game).role[game.seat("cy")] == "loyal"
    assert rec["days"][0]["converted"] not in ("cy", "fia", None)


# -- 7. the dagger's box ------------------------------------------------------------


def test_the_dagger_and_recruitment_are_off_by_default() -> None:
    game, _ = setup_game({"game": "traitors", "players": P6, "seed": 1, "options": {}})
    assert st(game).dagger_on is False
    assert st(game).recruit is False  # the game master must allow it


@pytest.mark.parametrize("same", [True, False])
def test_the_dagger_may_lie_in_the_shields_box(same: bool) -> None:
    access = {"as": "host", "do": "score", "silver": 0, "access": ["cy", "dag", "eli", "fia"]}
    run = list(states(script([access, adv], dagger_with_shield=same)))
    game, _, events = run[-1]
    rules = st(game)
    assert rules.shield >= 0 and rules.dagger >= 0
    assert (rules.shield == rules.dagger) is same
    told = {e.to: e.text.msgid for e in events if e.kind == Kind.TELL and e.text}
    holder = game.players[rules.shield]
    assert ("DAGGER" in told[holder]) is same


# -- 8. the game master's veto while the death list is in play -------------------------


def test_the_murder_may_be_forbidden_on_the_night_the_list_is_written() -> None:
    steps = [
        {"as": "host", "do": "death_list_on"},
        *to_night,
        {"as": "ana", "do": "death_list", "names": ["ana", "eli", "cy"]},
        {"as": "ana", "do": "murder", "target": "fia"},
        {"as": "host", "do": "forbid_murder"},
        adv,
    ]
    _, rec = play(steps)
    assert codes(rec) == []
    assert rec["days"][0]["murdered"] is None
    _, rec = play([s for s in steps if s.get("do") != "forbid_murder"])
    assert rec["days"][0]["murdered"] == "fia"


def test_without_a_death_list_the_murder_cannot_be_forbidden() -> None:
    _, rec = play([*to_night, {"as": "host", "do": "forbid_murder"}])
    assert codes(rec) == ["no_list"]


# -- 9. the end names the winners and the survivors' roles only -----------------------


def test_the_end_does_not_name_players_banished_in_the_final_round() -> None:
    steps = [
        {"as": "host", "do": "final"},
        *to_table,
        *votes({"ana": "dag", "cy": "bo", "dag": "bo", "eli": "bo", "fia": "bo"}),
        adv,  # bo (a traitor) is banished in the final round: no role revealed
        {"as": "ana", "do": "end_vote", "end": True},
        adv,
    ]
    run = list(states(script(steps)))
    game, _, events = run[-1]
    assert game.over and game.winner == "traitors"
    lines = announced(events)
    assert not any("bo" in line.split(":")[-1] for line in lines if "raitor" in line), lines
    assert "Traitors among the survivors: ana." in lines
    assert "Loyal among the survivors: cy, dag, eli, fia." in lines
    table = {p["id"]: p.get("role") for p in view(game, None)["traitors"]["table"]}
    assert table["bo"] is None and table["ana"] == "traitor" and table["cy"] == "loyal"
    assert record(game, [])["winners"] == ["ana"]


def test_two_players_left_on_any_day_reveal_at_once() -> None:
    """No traitor left and a long game: the table shrinks by a banishment and a
    murder a day, and the roles are revealed once two players are left (the
    loyal win), instead of a lone loyal voting at a round table."""
    steps = [
        *to_table,
        *votes({"ana": "dag", "cy": "ana", "dag": "ana", "eli": "ana"}),
        adv,
        adv,  # a murder is drawn
    ]
    for _ in range(2):
        steps += [*to_table, adv, adv]  # silent tables: banished by lot
    game, rec = play(steps, roles={"ana": "traitor"}, final_day=12)
    assert rec["over"] and rec["winner"] == "loyal"
    assert len(st(game).seats()) == 2 and game.phase.round < 12
