"""The texts that list the games, and one game's field words, come from the
registered definitions (issue #30, item 1).

SMS HELP and the NEW usage, and Telegram's /help line for /new, name the games
from `gameflow.core.registry`; an SMS menu's yes/no words and empty values and
Telegram's empty-field buttons come from the game's `Words`. So a fourth game,
registered here by the test alone, appears in those texts and has its own
words used, with no line of the channels edited; and the shared tables hold
no game's words.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from adapters.sms import grammar
from adapters.sms import render as sms
from adapters.telegram import labels
from adapters.telegram.help import help_text
from gameflow.core import registry
from gameflow.core.definition import GameDefinition, Words
from gameflow.i18n import LANGUAGES, catalogs, render

pytestmark = pytest.mark.core

ROOT = Path(__file__).resolve().parents[1]
SHARED = (
    "adapters/sms/render.py",
    "adapters/sms/short.py",
    "adapters/telegram/labels.py",
    "adapters/telegram/help.py",
    "adapters/tv/demo.py",
)
NEW_WORD = {"en": "NEW", "nb": "NY", "sr": "NOVA"}

# Any msgids the catalogs translate serve as the made-up game's words.
QUIZ_WORDS = Words(
    name="Quiz",  # no catalog has it: the same in every language
    aliases=("quiz", "kviss"),
    bool_words={("buzz", True): "with the dagger", ("buzz", False): ""},
    none_labels={"answer": "No secret action"},
    sms_none_words={"answer": "no partner"},
)


def quiz_definition() -> GameDefinition:
    rules: Any = SimpleNamespace(kind="quiz")  # the texts here ask no rules
    return GameDefinition(rules=rules, words=QUIZ_WORDS)


def quiz_game() -> Any:
    return SimpleNamespace(kind="quiz", lang="nb", host="tg:host", seat=lambda _: -1, names=())


@pytest.fixture
def three_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """The registry with the three games these texts were written with (Werewolf,
    issue #34, left out; restored after)."""
    three = {k: g for k, g in registry._GAMES.items() if k in ("station", "resistance", "traitors")}
    monkeypatch.setattr(registry, "_GAMES", three)


@pytest.fixture
def quiz_last(three_games: None, monkeypatch: pytest.MonkeyPatch) -> GameDefinition:
    """A fourth game, registered after the three (the registry is restored after)."""
    quiz = quiz_definition()
    monkeypatch.setitem(registry._GAMES, "quiz", quiz)
    return quiz


def test_the_three_games_texts_are_as_before(three_games: None) -> None:
    """The templates give the texts the catalogs held before, word for word."""
    assert sms.t(sms.NEW_USAGE, "en") == (
        "Write NEW and the game: STATION, RESISTANCE or TRAITORS."
    )
    assert sms.t(sms.NEW_USAGE, "nb") == "Skriv NY og spillet: STASJON, MOTSTAND eller FORRÆDERE."
    assert sms.t(sms.NEW_USAGE, "sr") == "Napiši NOVA i igru: STANICA, OTPOR ili IZDAJNICI."
    assert "Host: NEW STATION, START GAME," in sms.t(sms.HELP, "en")
    assert "Vert: NY STASJON, START SPILL," in sms.t(sms.HELP, "nb")
    assert "Domaćin: NOVA STANICA, POČNI," in sms.t(sms.HELP, "sr")
    assert help_text(None, None, "en").splitlines()[1] == (
        "/new station, /new resistance or /new traitors: host a new game."
    )
    assert help_text(None, None, "nb").splitlines()[1] == (
        "/new station, /new resistance eller /new traitors: start et nytt spill som vert."
    )


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_word_after_new_is_one_the_grammar_reads(lang: str) -> None:
    """Each game as the help texts write it, after NEW in the same language,
    makes that game: the texts never name a word the SMS gateway does not know."""
    for game in registry.all_games():
        word = sms.keyword(game, lang)
        assert word in sms.t(sms.NEW_USAGE, lang)
        command = grammar.parse(f"{NEW_WORD[lang]} {word}")
        assert (command.kind, command.args) == ("new", (game.kind,)), (lang, word)


def test_a_fourth_game_is_listed_by_sms_and_telegram(quiz_last: GameDefinition) -> None:
    assert sms.t(sms.NEW_USAGE, "en") == (
        "Write NEW and the game: STATION, RESISTANCE, TRAITORS or QUIZ."
    )
    assert sms.t(sms.NEW_USAGE, "nb") == (
        "Skriv NY og spillet: STASJON, MOTSTAND, FORRÆDERE eller QUIZ."
    )
    assert sms.t(sms.NEW_USAGE, "sr").endswith("IZDAJNICI ili QUIZ.")
    assert help_text(None, None, "en").splitlines()[1] == (
        "/new station, /new resistance, /new traitors or /new quiz: host a new game."
    )
    assert (
        help_text(None, None, "sr")
        .splitlines()[1]
        .startswith("/new station, /new resistance, /new traitors ili /new quiz:")
    )
    assert grammar.parse("NY QUIZ").args == ("quiz",)


def test_sms_help_names_the_first_registered_game(monkeypatch: pytest.MonkeyPatch) -> None:
    quiz = quiz_definition()
    monkeypatch.setattr(registry, "_GAMES", {"quiz": quiz, **registry._GAMES})
    assert "Host: NEW QUIZ, START GAME," in sms.t(sms.HELP, "en")
    assert "Vert: NY QUIZ, START SPILL," in sms.t(sms.HELP, "nb")
    assert registry.first() is quiz
    assert help_text(None, None, "en").splitlines()[1].startswith("/new quiz, /new station,")


def test_a_fourth_games_field_words_are_its_own(quiz_last: GameDefinition) -> None:
    game = quiz_game()
    for lang in LANGUAGES:
        # SMS: its yes/no words and its empty value, else the generic ones
        assert sms.label(game, "buzz", True, lang) == render("with the dagger", lang)
        assert sms.label(game, "buzz", False, lang) == ""
        assert sms.label(game, "other", True, lang) == render(sms.YES, lang)
        assert sms.label(game, "answer", None, lang) == render("no partner", lang)
        assert sms.label(game, "other", None, lang) == render(sms.NOBODY, lang)
        # Telegram: its empty-field button, else the generic one
        assert labels.value_label(game, "answer", None, lang) == render("No secret action", lang)
        assert labels.value_label(game, "for", None, lang) == render("Nobody", lang)
        assert labels.value_label(game, "other", None, lang) == render(labels.NOTHING, lang)
    # what a player may text for the dagger entry: its words in every language
    words = sms._label_words("quiz", "nb", "buzz", True)
    assert {"med", "dolken", "dagger", "ja", "yes"} <= set(words)


def test_the_real_games_keep_their_field_words() -> None:
    """Station's empty partner and secret action, the Traitors' dagger: as before."""
    station: Any = SimpleNamespace(kind="station", host="tg:host", seat=lambda _: -1)
    traitors: Any = SimpleNamespace(kind="traitors", host="tg:host", seat=lambda _: -1)
    assert sms.label(station, "partner", None, "nb") == "ingen partner"
    assert sms.label(station, "secret", None, "nb") == "Ingen"
    assert labels.value_label(station, "partner", None, "sr") == "bez partnera"
    assert labels.value_label(station, "secret", None, "nb") == "Ingen hemmelig handling"
    assert sms.label(traitors, "dagger", True, "en") == "with the dagger"
    assert sms.label(traitors, "drop", True, "sr") == "ispusti je"
    assert sms.label(traitors, "drop", False, "nb") == ""
    assert labels.value_label(traitors, "dagger", True, "en") == "Yes"  # Telegram: yes/no


def _texts(path: Path) -> list[str]:
    """The msgids marked with N_ in `path`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        node.args[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "N_"
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ]


def test_the_shared_tables_hold_no_games_words() -> None:
    """No text of the channels' shared modules names a game or holds one of a
    game's own field words."""
    own: set[str] = set()
    for game in registry.all_games():
        w = game.words
        own |= {*w.bool_words.values(), *w.none_labels.values(), *w.sms_none_words.values()}
    own.discard("")
    names = {sms.keyword(g, lang).lower() for g in registry.all_games() for lang in LANGUAGES} | {
        a for g in registry.all_games() for a in g.words.aliases
    }
    for rel in SHARED:
        texts = _texts(ROOT / rel)
        assert texts, rel
        assert not own & set(texts), (rel, own & set(texts))
        named = [t for t in texts if set(re.findall(r"\w+", grammar.fold(t))) & names]
        assert not named, (rel, named)


def test_the_games_new_words_are_in_their_own_catalogs() -> None:
    """A game's keyword, yes/no words and empty-field words are msgids of its
    own domain (the catalog test checks that they are translated there)."""
    for game in registry.all_games():
        w = game.words
        texts = {
            w.keyword,
            *w.bool_words.values(),
            *w.none_labels.values(),
            *w.sms_none_words.values(),
        } - {""}
        assert w.keyword, game.kind
        for lang in LANGUAGES:
            catalog = catalogs.load(game.domain, lang)
            assert catalog is not None, (game.kind, lang)
            known = {catalogs.key_of(m) for m in catalog if m.id}
            assert texts <= known, (game.kind, lang, texts - known)
