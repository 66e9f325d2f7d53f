"""Werewolf's rules (issue #34): the night, the lynch and the end, by short
scripts through gameflow.replay, and random legal games against invariants.

Hypothesis draws the table (6–18 players), the seed and the options; a
`random.Random` then plays by picking from `engine.legal()` and sometimes
strikes the deadline. Checked at every step: legal() offers only what apply()
accepts, a refusal changes nothing, at most one player dies a night, the dead
never act, a dead player's role shows only as the options say, the game ends
exactly when a side has won, and always ends.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hst

from gameflow.core import actions as A
from gameflow.core.engine import apply, legal, view
from gameflow.core.result import Accepted
from gameflow.core.state import HOST_VIEW, Game
from gameflow.core.text import Msg
from gameflow.games.werewolf import GAME, WEREWOLF
from gameflow.games.werewolf.pacing import wolf_count
from gameflow.games.werewolf.state import NIGHT, VILLAGE, WOLVES, Werewolf
from gameflow.games.werewolf.texts import QUIET_NIGHT as QUIET
from gameflow.replay import record, run, setup_game

pytestmark = pytest.mark.werewolf

P7 = ["ana", "bo", "cy", "dag", "eli", "fia", "gus"]
ROLES = {"ana": "wolf", "bo": "wolf", "cy": "seer", "dag": "doctor"}
ADV: dict[str, Any] = {"do": "advance"}
NAMES = [f"p{i}" for i in range(18)]


def play(steps: list[dict[str, Any]], **options: Any) -> tuple[Game, dict[str, Any]]:
    script = {
        "game": "werewolf",
        "players": P7,
        "seed": 3,
        "options": {"pacing": "fast", **options},
        "setup": {"roles": ROLES},
        "steps": steps,
    }
    game, rejected = run(script)
    return game, record(game, rejected)


def lynch(**votes: str | None) -> list[dict[str, Any]]:
    return [{"as": p, "do": "lynch", "target": q} for p, q in votes.items()]


def night(kills: dict[str, str | None], look: str, guard: str) -> list[dict[str, Any]]:
    steps = [{"as": w, "do": "kill", "target": t} for w, t in kills.items()]
    return [
        *steps,
        {"as": "cy", "do": "inspect", "target": look},
        {"as": "dag", "do": "protect", "target": guard},
    ]


def codes(rec: dict[str, Any]) -> list[str]:
    return [r["code"] for r in rec["rejected"]]


def test_the_wolves_majority_kills_and_a_split_pack_kills_nobody() -> None:
    _, rec = play([*night({"ana": "eli", "bo": "eli"}, "ana", "gus"), ADV])
    assert rec["nights"][0]["victim"] == "eli" and not rec["nights"][0]["saved"]
    game, rec = play([*night({"ana": "eli", "bo": "fia"}, "ana", "gus"), ADV])
    assert rec["nights"][0]["victim"] is None
    assert all(not d for d in game.rules.dead)


def test_the_doctor_saves_and_may_not_protect_the_same_player_twice_running() -> None:
    steps = [*night({"ana": "eli", "bo": "eli"}, "ana", "eli"), ADV, ADV]
    steps += [
        *lynch(ana="gus", bo="gus", cy="gus", dag="fia", eli="gus", fia="gus", gus="fia"),
        ADV,
    ]
    steps += [{"as": "dag", "do": "protect", "target": "eli"}]
    _, rec = play(steps)
    assert rec["nights"][0]["saved"] and rec["nights"][0]["lynched"] == "gus"
    assert codes(rec) == ["bad_target"]
    _, rec = play(steps, doctor_repeat=True)
    assert codes(rec) == []


def test_the_seer_alone_learns_the_side() -> None:
    game, _ = play([*night({"ana": "eli", "bo": "eli"}, "bo", "gus"), ADV])
    seer = view(game, "cy")["you"]
    assert seer["findings"] == [{"night": 1, "player": "bo", "wolf": True}]
    for p in ("ana", "dag", "fia"):
        assert "findings" not in view(game, p)["you"]
    assert view(game, "ana")["you"]["pack"] == ["ana", "bo"]
    assert "pack" not in view(game, "dag")["you"]
    assert "roles" not in view(game, None)["werewolf"]
    assert GAME.gm_view is not None and GAME.gm_view(game)["roles"]["bo"] == "wolf"


def test_a_tie_is_voted_again_among_the_tied_then_nobody() -> None:
    first = lynch(ana="cy", bo="cy", cy="ana", dag="ana", eli="fia", fia="gus", gus="eli")
    again = lynch(ana="cy", bo="cy", cy="ana", dag="ana", eli=None, fia=None, gus=None)
    game, rec = play(
        [*night({"ana": None, "bo": None}, "ana", "gus"), ADV, ADV, *first, ADV, *again, ADV]
    )
    assert rec["nights"][0]["lynched"] is None and game.phase.name == NIGHT
    assert codes(rec) == []
    # the re-vote offers the tied only
    game, _ = play([*night({"ana": None, "bo": None}, "ana", "gus"), ADV, ADV, *first, ADV])
    (spec,) = legal(game, "eli")
    assert set(spec.options("target")) == {"cy", "ana", None}
    _, rec = play(
        [*night({"ana": None, "bo": None}, "ana", "gus"), ADV, ADV, *first, ADV], revote=False
    )
    assert rec["nights"][0]["lynched"] is None


def test_the_dead_role_is_shown_by_option() -> None:
    steps = [*night({"ana": "eli", "bo": "eli"}, "ana", "gus"), ADV]
    game, _ = play(steps)
    eli = next(e for e in view(game, None)["werewolf"]["table"] if e["id"] == "eli")
    assert eli == {"id": "eli", "name": "eli", "alive": False, "role": "villager"}
    game, _ = play(steps, reveal_dead=False)
    eli = next(e for e in view(game, None)["werewolf"]["table"] if e["id"] == "eli")
    assert eli["role"] is None and not eli["alive"]


def test_the_wolves_win_when_as_many_as_the_rest() -> None:
    # 7 players, 2 wolves: a kill (5 others left... 4 after the lynch of a villager) then another
    steps = [*night({"ana": "eli", "bo": "eli"}, "ana", "gus"), ADV, ADV]
    steps += [*lynch(ana="fia", bo="fia", cy="ana", dag="fia", fia="ana", gus="fia"), ADV]
    steps += [*night({"ana": "gus", "bo": "gus"}, "bo", "cy"), ADV]
    game, rec = play(steps)
    assert game.over and rec["winner"] == WOLVES
    assert [n["victim"] for n in rec["nights"]] == ["eli", "gus"]


def test_the_wolf_table_leaves_fewer_wolves_than_others() -> None:
    for n in range(6, 19):
        k = wolf_count(n)
        assert 0 < k < (n - k) / 2


def test_scripts_round_trip_through_steps() -> None:
    for step in (
        {"as": "ana", "do": "kill", "target": None},
        {"as": "cy", "do": "inspect", "target": "bo"},
    ):
        action = WEREWOLF.parse_step(step)
        assert action is not None and WEREWOLF.step_of(action) == step
    with pytest.raises(ValueError):
        WEREWOLF.parse_step({"as": "cy", "do": "inspect", "target": None})


def random_game(seed: int, n: int, options: dict[str, Any], p_advance: float) -> Game:
    players = NAMES[:n]
    game, now = setup_game(
        {"game": "werewolf", "players": players, "seed": seed, "options": options}
    )
    rng = random.Random(seed)
    for _ in range(3000):
        if game.over:
            return game
        now += 1.0
        st: Werewolf = game.rules
        before_dead = sum(st.dead)
        phase = game.phase.name
        if rng.random() < p_advance:
            now = max(now, game.phase.deadline or now)
            result = apply(game, A.Deadline(None, game.phase.seq), now)
            assert isinstance(result, Accepted)
            new: Werewolf = result.state.rules
            deaths = sum(new.dead) - before_dead
            assert deaths <= 1, (phase, deaths)  # one death a night (or a lynch) at most
        else:
            by = rng.choice(players)
            seat = game.seat(by)
            specs = legal(game, by)
            if st.dead[seat]:
                assert specs == ()  # the dead never act
                target = rng.choice([*players, None])
                for kind in ("kill", "inspect", "protect", "lynch"):
                    action = WEREWOLF.parse_step({"as": by, "do": kind, "target": target or by})
                    assert action is not None
                    assert not isinstance(apply(game, action, now), Accepted)
                continue
            if not specs:
                continue
            spec = rng.choice(specs)
            picked = rng.choice(spec.options("target"))
            action = WEREWOLF.parse_step({"as": by, "do": spec.kind, "target": picked})
            assert action is not None
            result = apply(game, action, now)
            assert isinstance(result, Accepted), (spec, picked, result)
            assert result.state.version == game.version + 1
            assert sum(result.state.rules.dead) == before_dead
        game = result.state
        st = game.rules
        # the end exactly when a side has won
        assert game.over == (st.winner() is not None)
        if game.over:
            assert game.winner == st.winner() in (VILLAGE, WOLVES)
        public = view(game, None)["werewolf"]
        host = view(game, HOST_VIEW)["werewolf"]
        for v in (public, host):
            for s, entry in enumerate(v["table"]):
                if entry["role"] is not None and not game.over:
                    assert st.dead[s]
    raise AssertionError("the game did not end")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=hst.integers(0, 10**6),
    n=hst.integers(6, 18),
    reveal=hst.booleans(),
    revote=hst.booleans(),
    repeat=hst.booleans(),
    p_advance=hst.floats(0.02, 0.3),
)
def test_random_legal_games_keep_the_invariants(
    seed: int, n: int, reveal: bool, revote: bool, repeat: bool, p_advance: float
) -> None:
    options = {"pacing": "fast", "reveal_dead": reveal, "revote": revote, "doctor_repeat": repeat}
    game = random_game(seed, n, options, p_advance)
    assert game.over and game.winner in (VILLAGE, WOLVES)


def test_the_reveal_and_the_story_tell_every_secret_at_the_end() -> None:
    import json
    from pathlib import Path

    from gameflow.i18n import render

    script = json.loads((Path(__file__).parent / "scenarios" / "werewolf-basic.json").read_text())
    game, _ = run(script)
    assert game.over and GAME.reveal is not None and GAME.story is not None
    lines = [render(m, "en") for m in GAME.reveal(game, False)]
    assert lines[0] == "Winners: the village."
    assert "ana: werewolf" in lines and "cy: seer" in lines and "eli: villager" in lines
    assert "Night 2: the doctor saved dag." in lines
    brief = [render(m, "nb") for m in GAME.reveal(game, True)]
    assert "eli: landsbyboer" not in brief and "ana: varulv" in brief
    story = GAME.story(game)
    assert story is not None and story.seed == game.seed
    assert [p.hidden_side for p in story.cast] == [True, True, False, False, False, False, False]
    first, second = story.chapters
    assert [render(m, "en") for m in first.secret] == [
        "The werewolves chose nobody.",
        "The seer looked at ana.",
        "The doctor protected gus.",
    ]
    assert render(second.public[0], "sr") == render(Msg(QUIET), "sr")
    assert "The village lynched bo." in [render(m, "en") for m in second.public]
    running, _ = run({**script, "steps": script["steps"][:5]})
    assert GAME.story(running) is None and GAME.reveal(running, False) == ()
    # the host ends a running game: nobody won, and the reveal says so
    ended = apply(running, A.End(running.host), 1e9)
    assert isinstance(ended, Accepted) and ended.state.winner is None
    assert render(GAME.reveal(ended.state, False)[0], "en") == (
        "The host ended the game: no side won."
    )
    assert render(GAME.reveal(ended.state, True)[0], "nb") == (
        "Verten avsluttet spillet: ingen side vant."
    )


def test_the_setup_options_and_their_help_as_for_every_game() -> None:
    """tests/test_setup_balance.py's checks of every option, run on Werewolf."""
    from tests.test_setup_balance import (
        test_every_option_has_a_help_line_in_every_language as helped,
    )
    from tests.test_setup_balance import (
        test_every_value_the_setup_shows_is_read_back_as_it_is as read_back,
    )

    helped("werewolf")
    read_back("werewolf")


def test_no_table_size_is_lopsided_at_the_default_settings() -> None:
    from gameflow.games.werewolf.balance import VILLAGE_WIN, lopsided

    assert sorted(VILLAGE_WIN) == list(range(6, 19))
    assert all(35 <= pct <= 65 for pct in VILLAGE_WIN.values())
    assert all(lopsided(n, {}) is None for n in range(6, 19))
    assert lopsided(12, {"wolves": 4}) is None  # not measured: no figure


def test_simulate_werewolf_prints_the_table_with_no_bot_action_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from gameflow.simulate import main

    assert main("werewolf", "6,12", 20, "t", bots="reasoning") == 0
    out = capsys.readouterr().out
    assert "| 6 | 1 | 20 |" in out and "| 12 | 2 | 20 |" in out
    assert "bot actions refused: 0" in out
    assert main("werewolf", "6", 10, "t", bots="random") == 0


def test_a_campaign_plays_a_night_and_a_day_per_calendar_day() -> None:
    """On campaign pacing the night closes at 08:00, the talk at 18:00 and the
    vote at 21:00 of the game's zone (UTC without a zone table); a game started
    in the evening plays its first night until the next morning."""
    from datetime import UTC, datetime

    start = datetime(2026, 3, 2, 19, 30, tzinfo=UTC).timestamp()
    script = {
        "game": "werewolf",
        "players": P7,
        "seed": 3,
        "at": start,
        "options": {"pacing": "campaign", "quiet_hours": ""},
        "setup": {"roles": ROLES},
        "steps": [],
    }

    def clock(game: Game) -> str:
        assert game.phase.deadline is not None
        return datetime.fromtimestamp(game.phase.deadline, UTC).strftime("%d %H:%M")

    game, _ = run(script)
    assert (game.phase.name, clock(game)) == ("night", "03 08:00")
    game, _ = run({**script, "steps": [ADV]})
    assert (game.phase.name, clock(game)) == ("day", "03 18:00")
    game, _ = run({**script, "steps": [ADV, ADV]})
    assert (game.phase.name, clock(game)) == ("vote", "03 21:00")
    game, _ = run({**script, "steps": [ADV, ADV, ADV]})
    assert (game.phase.name, clock(game)) == ("night", "04 08:00")


def test_the_pack_talks_privately_at_night_only_and_the_dead_not_at_all() -> None:
    assert GAME.team is not None and GAME.silenced is not None
    game, _ = play([])
    assert game.phase.name == NIGHT
    assert GAME.team(game, "ana") == ("ana", "bo") and GAME.team(game, "bo") == ("bo", "ana")
    assert GAME.team(game, "cy") == () and not GAME.silenced(game, "ana")
    day, _ = play([*night({"ana": "eli", "bo": "eli"}, "ana", "gus"), ADV])
    assert day.phase.name == "day" and GAME.team(day, "ana") == ()
    assert GAME.silenced(day, "eli") and not GAME.silenced(day, "fia")
    off, _ = play([], team_talk=False)
    assert GAME.team(off, "ana") == ()
    steps = [*night({"ana": None, "bo": None}, "ana", "gus"), ADV, ADV]
    steps += [*lynch(ana="cy", bo="cy", cy="ana", dag="ana", eli="ana", fia="ana", gus="ana"), ADV]
    later, _ = play(steps)
    assert later.phase.name == NIGHT and GAME.team(later, "bo") == ("bo",)
    assert GAME.team(later, "ana") == () and GAME.silenced(later, "ana")
