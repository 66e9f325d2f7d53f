"""A game is one definition: the core knows no game, nothing else branches on one.

Issue #30: adding a game should mean writing its package and one line that
registers it (docs/adding-a-game.md). These checks keep it so: the core
(`gameflow/core`) imports nothing from `gameflow.games`; no production module
outside a game's package compares a kind with a game's name (`game.kind ==
"station"`), since what differs between games is data in their definitions;
and every registered definition is complete enough for the channels, the TV
page and the catalogs to use.
"""

from __future__ import annotations

import ast
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from gameflow.core import registry
from gameflow.core.definition import GameDefinition
from gameflow.i18n import DOMAINS, LANGUAGES, catalogs, render
from tests.test_layers import imports

pytestmark = pytest.mark.core

ROOT = Path(__file__).resolve().parents[1]
GAMES = tuple(registry.all_games())
KINDS = frozenset(g.kind for g in GAMES)
PRODUCTION = ("gameflow", "service", "adapters", "scheduler", "bots")


def _outside_games() -> list[Path]:
    games = ROOT / "gameflow" / "games"
    return [
        path
        for layer in PRODUCTION
        for path in sorted((ROOT / layer).rglob("*.py"))
        if games not in path.parents
    ]


def _named_kind(node: ast.expr) -> bool:
    """`kind`, `game`, `x.kind` or `x.game`: what holds a game's kind."""
    if isinstance(node, ast.Name):
        return node.id in {"kind", "game"}
    return isinstance(node, ast.Attribute) and node.attr in {"kind", "game"}


def kind_branches(path: Path, root: Path = ROOT) -> list[str]:
    """Comparisons of a kind with a game's name (==, !=, in) in `path`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        named = [
            s.value
            for s in sides
            if isinstance(s, ast.Constant) and isinstance(s.value, str) and s.value in KINDS
        ]
        named += [
            e.value
            for s in sides
            if isinstance(s, ast.Tuple | ast.List | ast.Set)
            for e in s.elts
            if isinstance(e, ast.Constant) and e.value in KINDS
        ]
        if named and any(_named_kind(s) for s in sides):
            found.append(f"{path.relative_to(root)}:{node.lineno}")
    return found


def test_the_core_imports_no_game() -> None:
    bad = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for path in sorted((ROOT / "gameflow" / "core").rglob("*.py"))
        for line, name in imports(path, ROOT)
        if name == "gameflow.games" or name.startswith("gameflow.games.")
    ]
    assert not bad, bad


def test_nothing_outside_a_game_branches_on_its_kind() -> None:
    found = [hit for path in _outside_games() for hit in kind_branches(path)]
    assert not found, found


def test_the_checker_finds_a_kind_branch(tmp_path: Path) -> None:
    path = tmp_path / "probe.py"
    path.write_text(
        'def f(game, kind):\n    return game.kind == "station" or kind in ("traitors",)\n',
        encoding="utf-8",
    )
    assert len(kind_branches(path, tmp_path)) == 2
    path.write_text('def f(game):\n    return game.kind == kind or "station"\n', encoding="utf-8")
    assert kind_branches(path, tmp_path) == []


def test_every_game_is_registered_once_with_all_it_needs() -> None:
    assert len(KINDS) == len(GAMES) >= 3
    for game in GAMES:
        assert isinstance(game, GameDefinition)
        assert game.domain in DOMAINS, game.kind
        assert game.players and game.players[0] == game.rules.min_players
        assert isinstance(game.rules.windows, tuple)
        assert game.words.aliases and all(a == a.lower() for a in game.words.aliases)
        assert render(game.words.name, "nb") != "" and render(game.words.name, "en")
        if game.tv is not None:
            package, _, file = game.tv.template.partition(":")
            assert resources.files(package).joinpath(file).is_file(), game.kind
        assert game.simulator is None or game.simulator.players
        for option in game.options():
            assert isinstance(option.default, option.type), option
            assert option.help, (game.kind, option.name)
        assert set(game.option_help) <= {o.name for o in game.options()}, game.kind


def test_the_games_words_are_in_their_own_catalogs() -> None:
    """Every word a definition names is a msgid of the game's own domain (the
    catalog test checks that it is translated there)."""
    for game in GAMES:
        w = game.words
        texts = [
            w.name,
            *w.send_labels.values(),
            *w.titles.values(),
            *w.headings.values(),
            *w.card_headings.values(),
            *w.card_names.values(),
            *w.value_labels.values(),
            *w.sms_kind_names.values(),
            *w.sms_value_words.values(),
            *(m.msgid for m in w.short_forms.values()),
        ]
        for lang in LANGUAGES:
            catalog = catalogs.load(game.domain, lang)
            assert catalog is not None, (game.kind, lang)
            known = {catalogs.key_of(m) for m in catalog if m.id}
            missing = [t for t in texts if t not in known]
            assert not missing, (game.kind, lang, missing)


def test_a_new_games_own_words_reach_the_channels(monkeypatch: pytest.MonkeyPatch) -> None:
    """A game that is not one of ours names its action kinds, fields and TV
    labels in its definition, and the channels use them (no adapter edit)."""
    from types import SimpleNamespace

    from adapters.sms.render import field_name
    from adapters.telegram.labels import kind_label
    from adapters.tv.screens import Tr
    from gameflow.core.definition import Words

    words = Words(
        name="Station",  # any msgid the catalogs know
        aliases=("quiz",),
        kind_labels={"buzz": "Send vote"},
        sms_field_names={"buzz.answer": "Vote for"},
        tv_texts={"quiz_score": "Paused"},
    )
    quiz = GameDefinition(rules=SimpleNamespace(kind="quiz"), words=words)  # type: ignore[arg-type]
    monkeypatch.setitem(registry._GAMES, "quiz", quiz)
    game: Any = SimpleNamespace(kind="quiz")
    assert kind_label("buzz", "nb", game) == render("Send vote", "nb")
    assert kind_label("buzz", "nb") == render("Send vote", "nb")  # no game given: any game's
    station: Any = SimpleNamespace(kind="station")
    assert kind_label("buzz", "nb", station) == render("Answer", "nb")
    assert field_name("answer", "sr", "buzz") == render("Vote for", "sr")
    assert Tr("nb", quiz.words.tv_texts).t("quiz_score") == render("Paused", "nb")
