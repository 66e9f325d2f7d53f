"""What a Traitors player is asked (views.ask, via gameflow.core.question):
every open question carries the lines a player without a TV needs, in the
player's language, and only what that player may know."""

from __future__ import annotations

from typing import Any

import pytest
from traitors_helpers import BANISH_BO, BANISH_DAG, P6, adv, play, to_table, votes

from gameflow.core.question import asked, question
from gameflow.core.state import Game
from gameflow.i18n import render

pytestmark = pytest.mark.traitors

P8 = [*P6, "gus", "hal"]
THREE = {"ana": "traitor", "bo": "traitor", "cy": "traitor"}


def lines(game: Game, player: str, lang: str = "en") -> list[str]:
    q = question(game, player)
    assert q is not None, f"{player} is asked nothing"
    return [render(m, lang) for m in q.context]


def test_the_relay_tells_everyone_to_pass_and_only_traitors_that_they_may_drop() -> None:
    game, _ = play([], missions="relay")
    assert lines(game, "cy") == [
        "Pass your silver bag to one player: a clean handover adds 10 silver."
    ]
    assert lines(game, "ana")[1] == (
        "As a traitor you may drop it instead: the pot loses 10 silver."
    )


def test_the_chests_name_the_cursed_one_to_traitors_only() -> None:
    game, _ = play([], missions="chests")
    cursed = game.rules.mission.cursed
    loyal, traitor = lines(game, "cy"), lines(game, "ana")
    assert loyal == [
        "Open chest 1, 2 or 3: the treasure chest lets its openers into the shield room."
    ]
    assert traitor == [*loyal, f"Chest {cursed} is cursed: each opener costs the pot 10 silver."]


def test_the_round_table_names_the_candidates_and_the_dagger_to_its_holder() -> None:
    game, _ = play(to_table, days={"1": {"shield": None, "dagger": "cy"}})
    assert lines(game, "dag") == ["Vote to banish one of: ana, bo, cy, eli, fia."]
    assert lines(game, "cy") == [
        "Vote to banish one of: ana, bo, dag, eli, fia.",
        "You hold the dagger: lay it down with your vote and it counts twice.",
    ]


def test_a_tie_asks_the_tied_for_a_plea_and_the_others_to_vote_again() -> None:
    steps = [*to_table, *votes({"ana": "fia", "bo": "fia", "cy": "dag", "eli": "dag"}), adv]
    game, _ = play(steps)
    assert lines(game, "fia") == ["Write your plea in one line: it is read to everyone."]
    assert lines(game, "ana") == ["Re-vote between dag, fia; they don't vote."]
    steps += [*votes({"ana": "fia", "cy": "dag"}), adv]
    game, _ = play(steps)
    assert lines(game, "cy") == [
        "A new vote: dag, fia can no longer be voted for.",
        "Vote to banish one of: ana, bo, eli.",
    ]


def test_the_traitors_are_told_their_night_choices() -> None:
    game, _ = play([*to_table, *BANISH_DAG, adv], death_list=True, death_list_size=2)
    assert lines(game, "ana") == [
        "Tonight: choose the loyal player to murder.",
        "Write 2 names on the death list, at least one of them loyal.",
    ]
    assert question(game, "cy") is None
    roles = THREE
    steps = [*to_table, *votes({"ana": "cy", "bo": "cy", "dag": "cy", "eli": "cy"}), adv]
    game, _ = play(steps, roles=roles, players=P8)
    assert lines(game, "bo") == ["Tonight: murder a loyal player, or tempt one to join you."]


def test_the_lone_traitor_and_the_forced_shield_holder() -> None:
    lone = [*to_table, *BANISH_BO, adv]
    game, _ = play(lone, days={"1": {"shield": "cy"}})
    assert lines(game, "ana") == [
        "You are the last traitor: force one player to join, and murder another."
    ]
    steps = [
        *lone,
        {"as": "ana", "do": "murder", "target": "fia"},
        {"as": "ana", "do": "force", "target": "cy"},
    ]
    game, _ = play(steps, days={"1": {"shield": "cy"}})
    assert question(game, "ana") is None
    assert lines(game, "cy") == [
        "The last traitor forces you to join. Yes: give up your shield and join. "
        "No or silence: use it and stay loyal."
    ]
    game, _ = play(
        [*steps, {"as": "cy", "do": "answer", "accept": False}], days={"1": {"shield": "cy"}}
    )
    assert lines(game, "ana") == ["The player you forced used the shield: force another player."]


def test_the_tempted_hear_what_yes_means_in_their_language() -> None:
    steps: list[dict[str, Any]] = [
        *to_table,
        *votes({"ana": "cy", "bo": "cy", "dag": "cy", "eli": "cy"}),
        adv,
        {"as": "ana", "do": "tempt", "target": "dag"},
        {"as": "bo", "do": "tempt", "target": "dag"},
    ]
    game, _ = play(steps, roles=THREE, players=P8)
    assert lines(game, "dag") == [
        "The traitors invite you to join them. Yes: you become a traitor for good. "
        "No or silence: you stay loyal."
    ]
    assert lines(game, "dag", "nb")[0].startswith("Forræderne")
    assert set(asked(game)) == {"dag"}


def test_the_end_vote_says_what_ending_means() -> None:
    steps = [{"as": "host", "do": "final"}, *to_table, *BANISH_DAG, adv]
    game, _ = play(steps)
    assert lines(game, "eli") == ["End the game now? If everyone says end, roles are revealed."]


@pytest.mark.parametrize("lang", ["nb", "sr", "en"])
def test_every_line_is_translated_and_short(lang: str) -> None:
    from gameflow.games.traitors import questions

    texts = questions.TEXTS
    assert len(texts) == 17
    from gameflow.i18n import catalog

    tr = catalog(lang)
    for text in texts:
        out = tr.gettext(text)
        assert lang == "en" or out != text, text
        assert len(out.replace("{names}", "")) <= 160, out


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_every_open_question_has_its_context(seed: int) -> None:
    """Random whole games answered from the questions alone: whoever is asked
    anything is told what it is about."""
    import random

    from traitors_helpers import script

    from gameflow.core import actions as A
    from gameflow.core.engine import apply
    from gameflow.core.result import Accepted
    from gameflow.replay import parse_step, setup_game

    rng = random.Random(seed)
    options = {"missions": "builtin", "death_list": seed % 2 == 0, "final_day": 2}
    roles = {"ana": "traitor", "bo": "traitor"}
    game, now = setup_game(script([], roles=roles, players=P8, **options))
    seen: set[str] = set()
    for _ in range(600):
        if game.over:
            break
        open_ = asked(game)
        for player, q in open_.items():
            assert q.context, (game.phase.name, player, [s.kind for s in q.specs])
            seen.update(s.kind for s in q.specs)
        now += 1.0
        if not open_ or rng.random() < 0.15:
            now = max(now, game.phase.deadline or now)
            result = apply(game, A.Deadline(None, game.phase.seq), now)
        else:
            player = rng.choice(sorted(open_))
            spec = rng.choice(open_[player].specs)
            step: dict[str, Any] = {"as": player, "do": spec.kind, "phase": spec.phase}
            for f in spec.fields:
                if f.free:
                    step[f.name] = "I am loyal."
                elif f.many:
                    step[f.name] = rng.sample(list(f.options), 2)
                else:
                    step[f.name] = rng.choice(f.options)
            result = apply(game, parse_step(game, step), now)
        if isinstance(result, Accepted):
            game = result.state
    assert game.over
    assert {"mission", "vote", "murder", "end_vote"} <= seen
