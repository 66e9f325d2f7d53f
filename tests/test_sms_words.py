"""Every SMS menu of whole seeded games of all three kinds, rendered in nb, sr
and en: no raw id (a plot card, a job, a kind of action) and, in nb and sr,
no English word of the SMS adapter's own (a field or action name left
untranslated). The games are played from `question()` as in
tests/test_question.py; each open sheet is rendered in every language."""

from __future__ import annotations

import random
import re

import pytest

from adapters.sms import render as R
from adapters.sms import sheet as S
from gameflow.core.registry import all_games
from gameflow.core.state import Game
from gameflow.i18n import render
from tests.play_helpers import random_walk
from tests.test_question import GAMES, _answer, _started

pytestmark = pytest.mark.sms

# What a menu may show that is spelled like an id: none of these.
IDS = re.compile(r"\b[a-z]+_[a-z_]+\b|\b[A-Z]+_[A-Z_]+\b")
# The games' own SMS words (their definitions), and the adapter's.
_GAME_WORDS = [
    m
    for game in all_games()
    for m in (
        *game.words.sms_kind_names.values(),
        *game.words.sms_field_names.values(),
        *game.words.sms_value_words.values(),
    )
]
# The adapter's own and the games' English words that must not be shown in nb or sr.
ENGLISH = sorted(
    {
        m
        for m in (*R.FIELD_NAMES.values(), *R.KIND_NAMES.values(), *_GAME_WORDS)
        if render(m, "nb") != m and render(m, "sr") != m and len(m) > 4
    },
    key=len,
    reverse=True,
)


def _sheets(kind: str, n: int, options: dict[str, object], seed: int) -> list[tuple[Game, str]]:
    out: list[tuple[Game, str]] = []
    for step in random_walk(_started(kind, n, options, seed), random.Random(seed), _answer, 1500):
        game = step.game
        for p in [*step.open, game.host]:
            if game.running and S.key_of(game, p) is not None:
                out.append((game, p))
    return out


@pytest.mark.parametrize(("kind", "n", "options"), [g for g in GAMES if g[1] <= 10])
def test_every_menu_in_every_language_names_things_by_their_words(
    kind: str, n: int, options: dict[str, object]
) -> None:
    seen = 0
    for game, player in _sheets(kind, n, options, 1)[::3]:
        sh = S.sheet(game, player)
        assert sh is not None
        for lang in ("nb", "sr", "en"):
            menu = S.menu_text(game, sh, lang)
            whole = S.text(game, sh, lang)
            assert not IDS.search(whole), (lang, whole)
            if lang != "en":
                for word in ENGLISH:
                    assert word not in menu, (lang, word, menu)
            seen += 1
    assert seen > 30
