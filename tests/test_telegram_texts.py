"""Every Telegram prompt, keyboard and editor of whole seeded games of all
three kinds, rendered in nb, sr and en: no raw id (a player id, a card or
kind id, a field name, an unfilled placeholder, None/True/False) and no
untranslated English word in nb or sr.

Random games are played on the core from the players' questions alone
(`gameflow.core.question`); at every state each player's question is drawn
as the adapter draws it (prompts.py), and every editor it can open is walked
step by step to its send button. A word counts as English when it occurs in
the English msgids of our catalogs but in no translation of that language."""

from __future__ import annotations

import random
import re
from functools import cache
from typing import Any

import pytest
from babel.messages.pofile import read_po

from adapters.telegram.choice import Draft, editor, next_field, pick, title_for
from adapters.telegram.keyboards import has_choice, inline_spec, is_draft, is_free
from adapters.telegram.prompts import draw
from gameflow.core import actions as A
from gameflow.core.engine import apply, new_game
from gameflow.core.legal import ActionSpec
from gameflow.core.question import Question, asked
from gameflow.core.result import Accepted
from gameflow.core.rules import rules_for
from gameflow.core.state import Game
from gameflow.i18n import DOMAINS
from gameflow.i18n.catalogs import po_path
from gameflow.replay import parse_step
from tests.play_helpers import random_walk
from tests.test_telegram_table import RAW

pytestmark = pytest.mark.telegram

NAMES = ("Ana", "Bo", "Cy", "Dag", "Eli", "Fred", "Gro", "Hal", "Ida", "Jon")
GAMES: list[tuple[str, int, dict[str, Any], dict[str, Any]]] = [
    ("station", 7, {}, {}),
    ("resistance", 9, {"plot_deck": "full"}, {}),
    ("traitors", 8, {"pacing": "fast", "missions": "builtin", "death_list": True}, {}),
    ("traitors", 10, {"pacing": "fast", "missions": "builtin", "recruit": True}, {}),
]
WANTED = {
    "station": {"choose", "vote"},
    "resistance": {"give", "mission", "pass", "play", "propose", "vote"},
    "traitors": {"mission", "vote", "murder", "end_vote"},
}
WORD = re.compile(r"[A-Za-zÆØÅæøåČĆŽŠĐčćžšđ]{4,}")


@cache
def words(lang: str, side: str) -> frozenset[str]:
    """The words of every catalog's msgids (side "id", from en) or msgstrs."""
    found: set[str] = set()
    for domain in DOMAINS:
        path = po_path(domain, lang)
        if not path.is_file():
            continue
        with path.open("rb") as f:
            for m in read_po(f, locale=lang):
                texts = m.id if side == "id" else m.string
                for text in texts if isinstance(texts, tuple) else (texts,):
                    found.update(w.casefold() for w in WORD.findall(text or ""))
    return frozenset(found)


def english_only(lang: str) -> frozenset[str]:
    names = {n.casefold() for n in NAMES}
    return words("en", "id") - words(lang, "str") - names


def check(text: str, lang: str, where: str) -> None:
    for pattern in RAW:
        found = pattern.search(text)
        assert found is None, f"{where} ({lang}): raw {found.group(0)!r} in {text!r}"
    if lang != "en":
        for word in WORD.findall(text):
            assert word.casefold() not in english_only(lang), (
                f"{where} ({lang}): untranslated {word!r} in {text!r}"
            )


def check_markup(markup: Any, lang: str, where: str) -> int:
    seen = 0
    for row in getattr(markup, "inline_keyboard", ()):
        for button in row:
            check(button.text, lang, f"{where} button")
            seen += 1
    placeholder = getattr(markup, "input_field_placeholder", None)
    if placeholder:
        check(placeholder, lang, f"{where} placeholder")
    return seen


def walk(game: Game, player: str, q: Question, index: int, spec: ActionSpec, lang: str) -> int:
    """Render `spec`'s editor at every step, to its send button."""
    draft = Draft(game.id, q.phase, game.seat(player), spec.kind, spec=index)
    head = title_for(game, spec, lang, game.phase.started, q.context)
    seen = 0
    for _ in range(12):
        text, markup = editor(game, spec, draft, lang, head)
        check(text, lang, f"{game.kind} {spec.kind} editor")
        seen += check_markup(markup, lang, f"{game.kind} {spec.kind} editor")
        step = next_field(spec, draft)
        if step is None:
            return seen
        f = step[1]
        options = [o for o in f.options if o is not None] or list(f.options)
        if f.many:
            for option in options[:2]:
                pick(draft, f, option)
            pick(draft, f, None, done=True)
        else:
            pick(draft, f, options[-1])
    raise AssertionError(f"{spec.kind}: the editor never reached its send button")


def render_all(game: Game, seen_keys: set[str]) -> int:
    shown = 0
    for player, q in asked(game).items():
        if q.key in seen_keys:
            continue
        seen_keys.add(q.key)
        for lang in ("nb", "sr", "en"):
            drawn = draw(game, player, q, lang, game.phase.started)
            check(drawn.text, lang, f"{game.kind} {game.phase.name} prompt")
            shown += 1 + check_markup(drawn.markup, lang, f"{game.kind} {game.phase.name}")
            inline = inline_spec(q.specs)
            for i, spec in enumerate(q.specs):
                if is_free(spec):
                    continue
                if is_draft(spec) or (i != inline and has_choice(spec)):
                    shown += walk(game, player, q, i, spec, lang)
    return shown


def answer(game: Game, player: str, q: Question, rng: random.Random) -> A.Action | None:
    tempt = [s for s in q.specs if s.kind == "tempt"]
    spec = tempt[0] if tempt else rng.choice(q.specs)  # a tempted player is asked too
    step: dict[str, Any] = {"as": player, "do": spec.kind, "phase": spec.phase}
    for f in spec.fields:
        if game.kind == "traitors" and spec.kind == "vote" and f.name == "for":
            # banish traitors, so that tempting, forcing and answering come up
            traitors = [o for o in f.options if game.rules.role[game.seat(str(o))] == "traitor"]
            step[f.name] = rng.choice(traitors or list(f.options))
        elif f.free:
            step[f.name] = "Trust me."
        elif f.many:
            step[f.name] = rng.sample([o for o in f.options if o is not None], 2)
        elif f.options:
            step[f.name] = rng.choice(f.options)
    try:
        return parse_step(game, step)
    except ValueError:
        return None


@pytest.mark.parametrize(("kind", "n", "options", "setup"), GAMES)
def test_every_prompt_and_editor_reads_in_every_language(
    kind: str, n: int, options: dict[str, Any], setup: dict[str, Any]
) -> None:
    shown = 0
    kinds: set[str] = set()
    for seed in (1, 2):
        rng = random.Random(seed)
        defaults = rules_for(kind).default_options()
        opts = {k: v for k, v in options.items() if k in defaults}
        game = new_game(kind, f"g{seed}", "tg:1", seed, lang="en", options=opts, setup=setup)
        for i in range(n):
            joined = apply(game, A.Join(f"tg:{7_000_000_000 + i}", name=NAMES[i]), 0.0)
            assert isinstance(joined, Accepted)
            game = joined.state
        started = apply(game, A.Start("tg:1"), 0.0)
        assert isinstance(started, Accepted), started
        seen_keys = set[str]()
        for step in random_walk(started.state, rng, answer, 3000, host="tg:1", chance=0.05):
            if step.game.running:
                shown += render_all(step.game, seen_keys)
                kinds.update(s.kind for q in step.open.values() for s in q.specs)
    assert shown > 100, shown
    assert kinds >= WANTED[kind], WANTED[kind] - kinds
    if kind == "traitors":
        assert kinds >= ({"tempt", "force", "answer"} if n == 10 else {"plea", "death_list"})
