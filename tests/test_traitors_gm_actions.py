"""The game master's actions in the Traitors (issue #32): each has a name and
one line saying what it does, the murder can be forbidden only once there is
a death list (never on a day before it is written), and scoring a mission
offers the silver it earned."""

from __future__ import annotations

import pytest
from traitors_helpers import BANISH_DAG, adv, codes, play, to_table

from gameflow.core import registry
from gameflow.core.engine import legal
from gameflow.games.traitors.actions import HOST_KINDS
from gameflow.games.traitors.control import SILVER_CHOICES
from gameflow.i18n import LANGUAGES, render

pytestmark = pytest.mark.core


def kinds(steps: list[dict[str, object]], **options: object) -> list[str]:
    game, rec = play(steps, **options)
    assert codes(rec) == [], codes(rec)
    return [s.kind for s in legal(game, "host")]


def test_every_game_master_action_says_what_it_does_in_every_language() -> None:
    words = registry.get("traitors").words
    assert set(words.action_help) == set(HOST_KINDS)
    assert words.kind_labels["murder_free"] == "Murder-free night"
    for lang in LANGUAGES:
        lines = {render(words.action_help[k], lang) for k in HOST_KINDS}
        assert len(lines) == len(HOST_KINDS), lang
        if lang != "en":
            assert not lines & set(words.action_help.values()), lang  # translated


def test_the_murder_cannot_be_forbidden_on_a_day_before_the_death_list() -> None:
    # the death list is in play for night 1 (the option), but not written yet
    assert "forbid_murder" not in kinds([], death_list=True)
    _, rec = play([{"as": "host", "do": "forbid_murder"}], death_list=True)
    assert codes(rec) == ["no_list"]
    # the host puts it in play on day 1: still no veto before the night
    assert "forbid_murder" not in kinds([{"as": "host", "do": "death_list_on"}])
    # at night, the night it is written, the veto is offered and applies
    night = [*to_table, *BANISH_DAG, adv]
    assert "forbid_murder" in kinds(night, death_list=True)
    game, rec = play([*night, {"as": "host", "do": "forbid_murder"}], death_list=True)
    assert codes(rec) == [] and game.rules.forbid_murder
    # without a death list, never
    assert "forbid_murder" not in kinds(night)


def test_the_published_list_allows_the_veto_all_the_next_day() -> None:
    steps = [
        *to_table,
        *BANISH_DAG,
        adv,
        {"as": "ana", "do": "death_list", "names": ["ana", "eli", "cy"]},
        adv,  # breakfast: the list is published; day 2's mission
    ]
    assert "forbid_murder" in kinds(steps, death_list=True)


def test_scoring_offers_the_silver() -> None:
    game, _ = play([])
    score = next(s for s in legal(game, "host") if s.kind == "score")
    silver = score.field("silver")
    assert silver is not None and tuple(silver.options) == SILVER_CHOICES
    assert not silver.many and 0 in silver.options
    for value in SILVER_CHOICES:
        step = {"as": "host", "do": "score", "silver": value, "access": ["cy"]}
        after, rec = play([step])
        assert codes(rec) == [] and after.rules.mission.silver == value
