"""Game options by declared type and range (gameflow.core.options, issue #35
item 3): every option of every game has a limit its default fits; the host's
set and a new game refuse a value of the wrong type or out of range, change
nothing, and say what fits in the reader's language; Telegram's /set answers so."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pytest

from gameflow.core import actions as A
from gameflow.core.engine import new_game
from gameflow.core.options import FLAG, WEEK, OptionError, fit, limits_of
from gameflow.core.rules import known_games, rules_for
from gameflow.i18n import render
from tests.station_helpers import HOST, Driver, new
from tests.store_helpers import run
from tests.telegram_helpers import telegram_bot


@pytest.mark.parametrize("kind", known_games())
def test_every_option_declares_a_limit_its_default_fits(kind: str) -> None:
    rules = rules_for(kind)
    defaults, limits = rules.default_options(), limits_of(rules)
    assert set(limits) == set(defaults)
    for name, default in defaults.items():
        if not isinstance(default, bool):
            assert limits[name] != FLAG, f"{kind}.{name} has no range"
        value, problem = fit(rules, name, default)
        assert problem is None and value == default, (name, problem)
        numeric = isinstance(default, int | float) and not isinstance(default, bool)
        if numeric:  # the top of the range fits, one past it doesn't
            top = limits[name].hi
            assert fit(rules, name, int(top) if isinstance(default, int) else top)[1] is None
            assert fit(rules, name, top + 1)[1] is not None


@pytest.mark.parametrize(
    ("name", "value", "english"),
    [
        (
            "vote_seconds",
            1e309,
            "vote_seconds takes a duration from 0 to 7 days, e.g. 90s, 5m, 2h.",
        ),
        (
            "vote_seconds",
            math.nan,
            "vote_seconds takes a duration from 0 to 7 days, e.g. 90s, 5m, 2h.",
        ),
        (
            "vote_seconds",
            10**400,
            "vote_seconds takes a duration from 0 to 7 days, e.g. 90s, 5m, 2h.",
        ),
        (
            "vote_seconds",
            WEEK + 1,
            "vote_seconds takes a duration from 0 to 7 days, e.g. 90s, 5m, 2h.",
        ),
        ("vote_seconds", -1, "vote_seconds takes a duration from 0 to 7 days, e.g. 90s, 5m, 2h."),
        (
            "vote_seconds",
            "60 minutes",
            "vote_seconds takes a duration from 0 to 7 days, e.g. 90s, 5m, 2h.",
        ),
        ("infiltrators", 1_000_000, "infiltrators takes a whole number from 0 to 7."),
        ("infiltrators", 2.0, "infiltrators takes a whole number from 0 to 7."),
        ("infiltrators", True, "infiltrators takes a whole number from 0 to 7."),
        ("traps", 2, "traps takes yes or no (on/off, ja/nei, da/ne, 1/0)."),
        ("traps", "maybe", "traps takes yes or no (on/off, ja/nei, da/ne, 1/0)."),
        ("reveal_guards", "some", "reveal_guards takes played or all."),
        ("pacing", ["fast"], "pacing takes campaign or fast."),
        (
            "campaign_mission",
            "25:00",
            "campaign_mission takes a clock time such as 18:00.",
        ),
        (
            "quiet_hours",
            "late",
            'quiet_hours takes a span of clock times such as 23:00-07:00, or "" for none.',
        ),
        (
            "timezone",
            "../../etc/passwd",
            "timezone takes a time zone such as Europe/Oslo.",
        ),
    ],
)
def test_set_option_refuses_what_does_not_fit_and_says_what_does(
    name: str, value: Any, english: str
) -> None:
    d = Driver(new(5))
    refused = d.refused(A.SetOption(HOST, None, name, value), "bad_value")  # nothing changed
    assert render(refused.message, "en") == english
    for lang in ("nb", "sr"):
        text = render(refused.message, lang)
        assert text != english and name in text, (lang, text)
    with pytest.raises(OptionError) as made:
        new_game("station", "g", HOST, 1, options={name: value})
    assert str(made.value) == english


def test_the_ranges_are_said_in_every_language() -> None:
    d = Driver(new(5))
    refused = d.refused(A.SetOption(HOST, None, "infiltrators", 10**6), "bad_value")
    assert render(refused.message, "nb") == "infiltrators tar et heltall fra 0 til 7."
    assert render(refused.message, "sr") == "infiltrators prima ceo broj od 0 do 7."
    refused = d.refused(A.SetOption(HOST, None, "vote_seconds", "forever"), "bad_value")
    assert render(refused.message, "nb") == (
        "vote_seconds tar en varighet fra 0 til 7 dager, f.eks. 90s, 5m, 2h."
    )
    assert (
        render(refused.message, "sr")
        == "vote_seconds prima trajanje od 0 do 7 dana, npr. 90s, 5m, 2h."
    )


def test_values_inside_the_ranges_are_taken() -> None:
    d = Driver(new(5))
    for name, value in (
        ("vote_seconds", WEEK),
        ("mission_seconds", 0),
        ("infiltrators", 7),
        ("quiet_hours", ""),
        ("timezone", "America/Argentina/Buenos_Aires"),
        ("reveal_guards", "all"),
    ):
        d.ok(A.SetOption(HOST, None, name, value))
    assert d.game.option("mission_seconds") == 0.0
    assert isinstance(d.game.option("mission_seconds"), float)


@pytest.mark.parametrize(
    ("kind", "name", "value"),
    [
        ("resistance", "spies", 5),
        ("resistance", "max_rejections", 0),
        ("resistance", "hero_cards", "x" * 4001),
        ("resistance", "plot_deck", "tiny"),
        ("traitors", "traitors", 12),
        ("traitors", "final_day", 61),
        ("traitors", "death_list_size", 0),
        ("traitors", "missions", "none"),
        ("traitors", "campaign_revote", 86401.0),
        ("traitors", "fast_night", math.inf),
    ],
)
def test_each_game_declares_its_own_ranges(kind: str, name: str, value: Any) -> None:
    game = new_game(kind, "g", HOST, 1)
    d = Driver(game)
    d.refused(A.SetOption(HOST, None, name, value), "bad_value")
    with pytest.raises(ValueError, match=re.escape(name)):
        new_game(kind, "g", HOST, 1, options={name: value})


def test_new_game_options_must_be_a_mapping() -> None:
    with pytest.raises(OptionError, match="list of names and values"):
        new_game("station", "g", HOST, 1, options=["vote_seconds"])  # type: ignore[arg-type]


@pytest.mark.telegram
def test_telegram_set_answers_what_fits_in_the_hosts_language(tmp_path: Path) -> None:
    async def go() -> tuple[list[str], Any]:
        async with telegram_bot(tmp_path) as (api, h):
            _code, game_id = await h.new(1, "station")
            await h.command(1, "Hana", "/lang nb")
            before = len(api.texts(1))
            await h.command(1, "Hana", "/set vote_seconds 1e309\n/set infiltrators 1000000")
            answers = api.texts(1)[before:]
            game = await h.service.load(game_id)
        return answers, game

    answers, game = run(go())
    assert answers == [
        "vote_seconds tar en varighet fra 0 til 7 dager, f.eks. 90s, 5m, 2h.\n"
        "infiltrators tar et heltall fra 0 til 7."
    ]
    assert game.option("vote_seconds") == 120.0 and game.option("infiltrators") == 0
