"""The host's setup, below the channels (issue #32 item 2): the yes/no words
and durations gameflow/core/options.py reads for every channel, a value as
the setup shows it read back unchanged, every option's help line in every
language, and each game's balance warning against its measured table
(docs/balance.md): a side over 65 % is warned of, a balanced setup is not."""

from __future__ import annotations

from typing import Any

import pytest

from adapters import setup_view
from gameflow.core import registry
from gameflow.core.engine import new_game
from gameflow.core.options import compact, duration, fit, flag
from gameflow.core.rules import rules_for
from gameflow.games.resistance.balance import SPY_WIN
from gameflow.games.station.balance import LOYAL_WIN
from gameflow.games.traitors.balance_table import TRAITOR_WIN
from gameflow.games.traitors.length import default_final_day
from gameflow.i18n import render

YES = ("on", "ON", "yes", "Yes", "true", "TRUE", "ja", "JA", "da", "Da", "1", "på", "PÅ")
NO = ("off", "Off", "no", "NO", "false", "False", "nei", "Nei", "ne", "NE", "0", "av")


@pytest.mark.parametrize("word", YES)
def test_every_languages_yes_is_yes(word: str) -> None:
    assert flag(word) is True
    assert fit(rules_for("traitors"), "recruit", word) == (True, None)


@pytest.mark.parametrize("word", NO)
def test_every_languages_no_is_no(word: str) -> None:
    assert flag(word) is False
    assert fit(rules_for("traitors"), "recruit", word) == (False, None)


@pytest.mark.parametrize("word", ("maybe", "2", "", "yess", "nein", "-1"))
def test_other_words_are_neither(word: str) -> None:
    assert flag(word) is None
    value, problem = fit(rules_for("traitors"), "recruit", word)
    assert value is None and problem is not None


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("90", 90.0), ("90s", 90.0), ("5m", 300.0), ("5min", 300.0), ("2h", 7200.0),
     ("2t", 7200.0), ("1d", 86400.0), ("1h30m", 5400.0), ("1.5h", 5400.0), (" 5 m ", 300.0)],
)  # fmt: skip
def test_durations(text: str, seconds: float) -> None:
    assert duration(text) == seconds


@pytest.mark.parametrize("text", ("", "soon", "5x", "m5", "1e309", "5m-", "9" * 40 + "d"))
def test_not_durations(text: str) -> None:
    value = duration(text)
    assert value is None or fit(rules_for("station"), "vote_seconds", text)[1] is not None


@pytest.mark.parametrize("kind", ["station", "resistance", "traitors"])
def test_every_value_the_setup_shows_is_read_back_as_it_is(kind: str) -> None:
    game = new_game(kind, "g", "host", 1)
    rules = rules_for(kind)
    for info in setup_view.options(game):
        shown = setup_view.shown(game, info)
        typed = render(shown, "nb") if not isinstance(shown, str | int) else str(shown)
        value, problem = fit(rules, info.name, setup_view.read(typed))
        assert problem is None and value == info.default, (info.name, typed, problem)


def test_compact_durations() -> None:
    assert [compact(s) for s in (0, 45, 90, 300, 3600, 5400, 86400, 604800)] == [
        "0", "45s", "1m30s", "5m", "1h", "1h30m", "1d", "7d"
    ]  # fmt: skip


@pytest.mark.parametrize("kind", ["station", "resistance", "traitors"])
def test_every_option_has_a_help_line_in_every_language(kind: str) -> None:
    for info in registry.get(kind).options():
        english = render(info.help, "en")
        assert english == info.help and len(english) > 10, info.name
        for lang in ("nb", "sr"):
            assert render(info.help, lang) != english, (kind, info.name, lang)


def warn(kind: str, players: int, **options: Any) -> str | None:
    found = registry.get(kind).lopsided(players, options)  # type: ignore[misc]
    return None if found is None else render(found, "en")


def test_station_and_resistance_are_balanced_at_every_measured_size() -> None:
    assert all(35 <= pct <= 65 for pct in LOYAL_WIN.values())
    assert all(35 <= pct <= 65 for pct in SPY_WIN.values())
    for n in range(5, 16):
        assert warn("station", n) is None
        assert warn("station", n, infiltrators=3) is None  # not measured: no figure
    for n in range(5, 11):
        assert warn("resistance", n) is None and warn("resistance", n, plot_cards=False) is None


def test_traitors_default_lengths_are_balanced_and_the_table_covers_them() -> None:
    for n in range(6, 25):
        assert (n, default_final_day(n), False) in TRAITOR_WIN
        assert warn("traitors", n) is None, n
        assert warn("traitors", n, final_day=default_final_day(n)) is None, n
    assert warn("traitors", 5) is None and warn("traitors", 25) is None  # no figure


def test_traitors_lopsided_setups_are_warned_of() -> None:
    # docs/balance.md: two traitors among six give them 83.9 % at three days.
    assert warn("traitors", 6, traitors=2) == (
        "Lopsided: by the balance table the traitors win about 84 % of games with 6 players "
        "and 2 traitors (traitors 0 evens it)."
    )
    assert warn("traitors", 6, traitors=1) is None  # the table's own count
    # Issue #32's campaign: twelve days for ten players.
    assert warn("traitors", 10, final_day=12) == (
        "Lopsided: by the balance table the traitors win about 72 % of games with 10 players "
        "and 12 days; final_day 0 plays the balanced 3."
    )
    assert "win about 72 % of games with 10 players and 40 days" in str(
        warn("traitors", 10, final_day=40)
    )
    assert warn("traitors", 10, recruit=True) is None  # 40 % at ten players, three days
    # Every cell of the measured table over 65 % for a side is warned of.
    for (n, days, recruit), pct in TRAITOR_WIN.items():
        said = warn("traitors", n, final_day=days, recruit=recruit)
        if pct > 65:
            assert said is not None and f"traitors win about {round(pct)} %" in said, (n, days)
        elif pct < 35:
            assert said is not None and f"loyal win about {round(100 - pct)} %" in said, (n, days)
        else:
            assert said is None, (n, days, recruit, said)
    # Longer than measured: warned only where the longest measured length is.
    for (n, days, recruit), pct in TRAITOR_WIN.items():
        if days == 12:
            assert (warn("traitors", n, final_day=30, recruit=recruit) is None) == (pct <= 65)
    # Settings the table did not vary: no figure.
    assert warn("traitors", 6, traitors=2, dagger=True) is None
