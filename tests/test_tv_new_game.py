"""A new game's TV screen touches nothing in adapters/tv (issue #30): its
template, its styles (tv.css beside the template, inlined in the page's head)
and its phase names (its definition's Words.tv_texts) come from its package."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from adapters.tv.screens import game_css, phase_text, render_page, render_screen
from gameflow.core import registry
from gameflow.core.definition import GameDefinition, TvScreen, Words
from gameflow.i18n import render


def build(view: dict[str, Any], tr: Any, name_of: Any) -> dict[str, Any]:
    return {"question": f"Q{view['round']}"}


@pytest.fixture
def quiz(monkeypatch: pytest.MonkeyPatch) -> GameDefinition:
    words = Words(name="Station", tv_texts={"phase_buzz": "Vote"})  # msgids the catalogs know
    game = GameDefinition(
        rules=SimpleNamespace(kind="quiz"),  # type: ignore[arg-type]
        words=words,
        tv=TvScreen("tests.tvquiz:tv.html", build),
    )
    monkeypatch.setitem(registry._GAMES, "quiz", game)
    return game


def quiz_view(phase: str = "buzz") -> dict[str, Any]:
    return {"game": "quiz", "lang": "nb", "phase": phase, "round": 3, "players": [],
            "deadline": None, "paused": False, "over": False}  # fmt: skip


def test_a_new_games_screen_styles_and_phase_names_come_from_its_package(
    quiz: GameDefinition,
) -> None:
    page = render_page(quiz_view(), None, 0.0)
    assert '<h1 class="quiz-question">Q3</h1>' in page
    head = page.split("</head>", 1)[0]
    assert "<style>" in head and ".quiz-question { color: rgb(1, 2, 3); }" in head
    assert f'<div class="bar-phase">{render("Vote", "nb")}</div>' in page
    assert phase_text("quiz", "buzz").msgid == "Vote"
    # the event stream's screen carries no styles: they are the page's, once
    assert "<style>" not in render_screen(quiz_view(), None)


def test_a_game_without_a_screen_or_a_phase_name_still_renders(
    quiz: GameDefinition, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(
        registry._GAMES,
        "bare",
        GameDefinition(rules=SimpleNamespace(kind="bare"), words=Words(name="Station")),
    )  # type: ignore[arg-type]
    assert game_css("bare") == "" and game_css("unknown") == ""
    page = render_page({**quiz_view("other"), "game": "bare"}, None, 0.0)
    assert "<style>" not in page and 'class="generic"' in page  # the generic screen
    html = render_screen(quiz_view("other"), None)
    assert '<div class="bar-phase">other</div>' in html  # no name: the id, as before
