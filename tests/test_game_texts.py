"""Every text a player reads is in their language, with no raw ids.

Whole seeded games of Station, Resistance and the Traitors are played with
random legal inputs (as tests/test_question.py does), in nb, sr and en. Every
event text (announcements, private tells, the host's reports, refusals) and
the context lines of every open question (`Rules.ask`) is rendered through
`gameflow.i18n.render` in the game's language and checked:

- no raw ids: snake_case tokens (`strong_leader`), ALL_CAPS ids
  (`TAKE_RESPONSIBILITY`), player ids, `None`, `{...}` leftovers;
- nothing untranslated in nb and sr: every message in the tree of a text (its
  msgid and the messages among its parameters) has a translation of its own
  unless its words are the same in that language (`SAME`), and a rendered text
  with several words is never word for word the English one.

Player ids are made unlike names (`id07`) so that one leaking shows.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any, Final

import pytest

from gameflow.core import actions as A
from gameflow.core.engine import apply, new_game
from gameflow.core.legal import ActionSpec
from gameflow.core.question import asked
from gameflow.core.result import Accepted, Rejected
from gameflow.core.rules import rules_for
from gameflow.core.state import Game
from gameflow.core.text import Msg
from gameflow.i18n import catalog, render
from gameflow.replay import parse_step

pytestmark = pytest.mark.core

LANGS = ("nb", "sr", "en")
NAMES = ("Ana", "Bo", "Cy", "Dag", "Eli", "Fred", "Gro", "Hal", "Ida", "Jon", "Kai", "Liv")
NAMES += ("Mia", "Ole", "Per", "Rut", "Siv", "Tor", "Una", "Vera", "Yngve", "Åse", "Ørn", "Zoe")

# Plans anyone can staff: a Station table that reaches its last round and its check.
_EASY = [{"reward": r, "outside": 0, "radio": 0, "guards": 0} for r in (1, 2, 3)]
EASY_STATION: Final = {"rounds": {str(r): {"plans": _EASY} for r in range(1, 9)}}

GAMES: list[tuple[str, int, dict[str, Any]]] = [
    ("station", 7, {}),
    ("station", 12, {}),
    ("station", 6, {"setup": EASY_STATION}),
    ("resistance", 5, {"plot_cards": False}),
    ("resistance", 7, {"plot_cards": True}),
    ("resistance", 10, {"plot_cards": True, "plot_deck": "full", "heroes": True}),
    ("traitors", 8, {"pacing": "fast", "dagger": True, "death_list": True}),
    ("traitors", 12, {"pacing": "fast"}),
]
SEEDS = (1, 2, 3, 4, 5, 6)

# Messages whose words are the same in a language (names of things, formats).
SAME: dict[str, frozenset[str]] = {
    "nb": frozenset({"radio", "pilot"}),
    "sr": frozenset({"radio", "pilot", "navigator", "infiltrator"}),
}
SNAKE = re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+\b")
CAPS_ID = re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b")
LEFTOVER = re.compile(r"[{}]|\bNone\b")
WORD = re.compile(r"[^\W\d_]{2,}")


def _started(kind: str, n: int, options: dict[str, Any], seed: int, lang: str) -> Game:
    defaults = rules_for(kind).default_options()
    opts = {k: v for k, v in options.items() if k in defaults}
    setup = options.get("setup")
    game = new_game(kind, f"g{seed}", "host", seed, lang=lang, options=opts, setup=setup)
    for i in range(n):
        result = apply(game, A.Join(f"id{i:02d}", name=NAMES[i]), 0.0)
        assert isinstance(result, Accepted)
        game = result.state
    return game


def _values(
    spec: ActionSpec, rng: random.Random, herd: dict[tuple[int, str], Any]
) -> dict[str, Any]:
    """Random legal values; most players follow the table's favourite value of
    each field in a phase (a plan, a vote), so that games get far enough to
    show their later texts (missions played, the last round, plot cards)."""
    step: dict[str, Any] = {}
    for f in spec.fields:
        if f.free:
            step[f.name] = "I am loyal, trust me."
        elif f.many:
            options = [o for o in f.options if o is not None]
            step[f.name] = rng.sample(options, rng.randint(1, max(1, len(options))))
        elif f.options:
            favourite = herd.setdefault((spec.phase, f.name), rng.choice(f.options))
            pick = favourite if favourite in f.options and rng.random() < 0.7 else None
            step[f.name] = pick if pick is not None else rng.choice(f.options)
    return step


def texts_of(kind: str, n: int, options: dict[str, Any], seed: int, lang: str) -> Iterator[Msg]:
    """Every message of one random whole game, in the order they arise: the
    events of every accepted input and deadline, every refusal, and the
    context lines of every open question after each of them."""
    rng = random.Random(seed)
    herd: dict[tuple[int, str], Any] = {}
    game = _started(kind, n, options, seed, lang)
    result: Accepted[Game] | Rejected = apply(game, A.Start("host"), 0.0)
    now = 1.0
    for _ in range(5000):
        if isinstance(result, Rejected):
            yield result.message
        else:
            game = result.state
            yield from (e.text for e in result.events if e.text is not None)
            for q in asked(game).values():
                yield from q.context
        if not game.running:
            return
        open_ = asked(game)
        if not open_ or rng.random() < 0.08:
            deadline = game.phase.deadline
            now = max(now, deadline if deadline is not None else now) + 0.001
            result = apply(game, A.Deadline(None, game.phase.seq), now)
            if isinstance(result, Rejected):
                result = apply(game, A.Advance("host", game.phase.seq), now)
            if isinstance(result, Rejected):
                return
            continue
        player = rng.choice(sorted(open_))
        spec = rng.choice(open_[player].specs)
        step = {"as": player, "do": spec.kind, "phase": spec.phase, **_values(spec, rng, herd)}
        try:
            action = parse_step(game, step)
        except ValueError:
            continue
        result = apply(game, action, now)


def _nodes(message: Msg) -> Iterator[Msg]:
    yield message
    for _, value in message.params:
        # A Msg is a tuple too: only a plain tuple is a list of values.
        items = (value,) if isinstance(value, Msg) or not isinstance(value, tuple) else value
        for item in items:
            if isinstance(item, Msg):
                yield from _nodes(item)


def _wordy(msgid: str) -> bool:
    """Whether a msgid has words of its own (not only placeholders and signs)."""
    return bool(WORD.search(re.sub(r"\{[^}]*\}", "", msgid)))


def problems(message: Msg, lang: str, game_players: tuple[str, ...]) -> list[str]:
    """What is wrong with `message` as read in `lang` (empty: nothing)."""
    text = render(message, lang)
    found: list[str] = []
    for pattern in (SNAKE, CAPS_ID, LEFTOVER):
        found += [f"raw {m!r}" for m in pattern.findall(text)]
    found += [f"player id {p!r}" for p in game_players if re.search(rf"\b{p}\b", text)]
    if lang != "en":
        cat = catalog(lang)
        for node in _nodes(message):
            if node.msgid in SAME.get(lang, ()) or not _wordy(node.msgid):
                continue
            if node.plural is not None:
                same = cat.ngettext(node.msgid, node.plural, node.n) in (node.msgid, node.plural)
            else:
                same = cat.gettext(node.msgid) == node.msgid
            if same:
                found.append(f"untranslated {node.msgid!r}")
        english = render(message, "en")
        if text == english and len(WORD.findall(text)) >= 3 and _wordy(message.msgid):
            found.append("the same as in English")
    return [f"{lang}: {p} in {text!r}" for p in found]


def _check(kind: str, n: int, options: dict[str, Any], lang: str) -> tuple[int, list[str]]:
    seen: set[Msg] = set()
    bad: dict[str, None] = {}
    for seed in SEEDS[:2] if "setup" in options else SEEDS:
        ids = tuple(f"id{i:02d}" for i in range(n))
        for message in texts_of(kind, n, options, seed, lang):
            if message in seen:
                continue
            seen.add(message)
            bad.update(dict.fromkeys(problems(message, lang, ids)))
    return len(seen), list(bad)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(("kind", "n", "options"), GAMES)
def test_every_text_of_a_whole_game_is_translated_and_has_no_raw_ids(
    kind: str, n: int, options: dict[str, Any], lang: str
) -> None:
    count, bad = _check(kind, n, options, lang)
    assert count > 30  # whole games were played and read
    assert bad == [], "\n".join(bad[:40])


def test_the_checks_catch_what_they_are_for() -> None:
    ids = ("id03",)
    raw = Msg("Hold {card}.", (("card", "strong_leader"),))
    assert any("raw 'strong_leader'" in p for p in problems(raw, "en", ids))
    caps = Msg("karta {card}", (("card", "TAKE_RESPONSIBILITY"),))
    assert any("TAKE_RESPONSIBILITY" in p for p in problems(caps, "en", ids))
    assert any("player id" in p for p in problems(Msg("{n}", (("n", "id03"),)), "en", ids))
    assert any("None" in p for p in problems(Msg("{n}", (("n", "None"),)), "en", ids))
    assert any("raw '{'" in p for p in problems(Msg("Keep {{this}} out"), "en", ids))
    english = Msg("This sentence was never translated at all.")
    assert any("untranslated" in p for p in problems(english, "nb", ids))
    assert problems(english, "en", ids) == []
    inside = Msg("Vote locked: {choice}.", (("choice", Msg("An untranslated word here")),))
    assert any("untranslated 'An untranslated" in p for p in problems(inside, "sr", ids))
    listed = Msg("Vote on the team {names}: approve or reject.", (("names", (inside, "Bo")),))
    assert any("untranslated 'An untranslated" in p for p in problems(listed, "nb", ids))
