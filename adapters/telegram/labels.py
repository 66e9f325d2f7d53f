"""What a Telegram question says: titles, field headings and button labels.

Every word a player reads on a prompt, a keyboard or a choice editor comes from
here, translated: a kind's title ("The silver relay"), a field's heading in the
game it belongs to (Station's vote says what it is for; Resistance's "Give it
to:" names the card being given: the game's definition says so), and an option's label (players by name, plot
and mission cards by their translated names, yes/no as words). A value the
tables don't know is never shown as its raw id: it falls back to a generic
word. The game's own context lines for a question (`Rules.ask`) come first.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gameflow.core import registry
from gameflow.core.definition import Words
from gameflow.core.legal import ActionSpec, Field, Value
from gameflow.core.state import Game
from gameflow.core.text import N_, Msg, msg
from gameflow.i18n import render

# A kind's name on its button, and in "✓ ..." once sent: a game's own kinds
# are named by its definition (`Words.kind_labels`); these are every game's.
KIND_LABELS: dict[str, str] = {
    "vote": N_("Send vote"),
    "leave": N_("Leave the game"),
}

# The game's own words (a send button, a title, a heading, a card or value
# name) come from its definition (gameflow/core/definition.py `Words`); these
# are the generic ones for anything a game leaves out.
FIELD_HEADINGS: dict[str, str] = {
    "for": N_("Your vote:"),
    "target": N_("Choose a target:"),
    "card": N_("Choose a card:"),
    "to": N_("Give it to:"),
    "team": N_("Pick the team, then tap Done:"),
    "names": N_("Pick the names, then tap Done:"),
}
ANY_FIELD = N_("Choose:")

# The button that leaves a field empty: a game's own by field first
# (`Words.none_labels`: Station's "no partner"), then these, then `NOTHING`.
NONE_LABELS: dict[str, str] = {
    "for": N_("Nobody"),
    "target": N_("Nobody"),
}

CHEST = N_("Chest {n}")
PLAY_CARD = N_("Play: {card}")
UNKNOWN_VALUE = N_("this option")

YES, NO = N_("Yes"), N_("No")
NOTHING = N_("None")


def kind_label(kind: str, lang: str, game: Game | None = None) -> str:
    """A kind's name on its button: the game's own (any game's when `game`
    is not given) or the generic one."""
    games = (registry.get(game.kind),) if game is not None else registry.all_games()
    own = next((g.words.kind_labels[kind] for g in games if kind in g.words.kind_labels), None)
    return render(own or KIND_LABELS.get(kind, N_("Answer")), lang)


def _words(game: Game) -> Words:
    return registry.get(game.kind).words


def send_label(game: Game, kind: str, lang: str) -> str:
    """The button that sends an editor's choices."""
    text = _words(game).send_labels.get(kind)
    return render(text, lang) if text else kind_label(kind, lang, game)


def title(game: Game, spec: ActionSpec, lang: str) -> str:
    """What the question of `spec` is about, in one line."""
    words = _words(game)
    special = words.title_of(game, spec) if words.title_of is not None else None
    if special is not None:
        return render(special, lang)
    text = words.titles.get(spec.kind)
    return render(text, lang) if text else kind_label(spec.kind, lang, game)


def question_lines(game: Game, spec: ActionSpec) -> tuple[Msg, ...]:
    """The lines the game puts in place of a question's title (Station's
    choice: the round and its plans), when `Rules.ask` gives none."""
    lines = _words(game).question_lines
    return lines(game, spec) if lines is not None else ()


def heading(
    game: Game, spec: ActionSpec | None, f: Field, lang: str, values: Mapping[str, Any] = {}
) -> str:
    """The heading above a field's buttons. `values` are the fields already
    chosen in the draft (so "Give it to:" can name the card)."""
    kind = spec.kind if spec is not None else ""
    words = _words(game)
    named = words.card_headings.get((kind, f.name))
    if named is not None:
        card = values.get("card")
        if card is None and spec is not None and len(spec.options("card")) == 1:
            card = spec.options("card")[0]
        if card is not None:
            return render(msg(named, card=value_label(game, "card", card, lang)), lang)
    text = (
        words.headings.get((kind, f.name))
        or words.field_headings.get(f.name)
        or FIELD_HEADINGS.get(f.name, ANY_FIELD)
    )
    return render(text, lang)


def field_heading(name: str, lang: str) -> str:
    """A field's heading with no game or kind known: the generic one, or any
    game's own."""
    own = (g.words.field_headings.get(name) for g in registry.all_games())
    text = FIELD_HEADINGS.get(name) or next((t for t in own if t), ANY_FIELD)
    return render(text, lang)


def card_label(game: Game, card: str, lang: str) -> str | None:
    """A card of the game (a plot card, a mission card) by its translated name."""
    name = _words(game).card_names.get(card)
    return render(name, lang) if name is not None else None


def value_label(game: Game, field: str, value: Value, lang: str) -> str:
    """How an option reads on a button: players by name, cards and words
    translated, yes/no as words; never a raw id."""
    if value is None:
        own = _words(game).none_labels.get(field)
        return render(own or NONE_LABELS.get(field, NOTHING), lang)
    if isinstance(value, bool):
        return render(YES if value else NO, lang)
    if isinstance(value, int):
        return render(msg(CHEST, n=value), lang) if field == "chest" else str(value)
    if game.seat(value) >= 0:
        return game.name_of(value)
    if value == game.host:
        return render(N_("the game master"), lang)
    card = card_label(game, value, lang)
    if card is not None:
        return card
    word = _words(game).value_labels.get(value)
    return render(word if word else UNKNOWN_VALUE, lang)


def button_label(game: Game, spec: ActionSpec, lang: str) -> str:
    """The one button of a spec offered as a whole (no choice on the keyboard
    itself): its kind, and for a plot card the card's name."""
    if spec.kind in _words(game).card_buttons:
        cards = spec.options("card")
        if cards and isinstance(cards[0], str):
            name = value_label(game, "card", cards[0], lang)
            return render(msg(PLAY_CARD, card=name), lang)
    label = kind_label(spec.kind, lang, game)
    fixed = [f for f in spec.fields if len(f.options) == 1 and not f.many and not f.free]
    if fixed and fixed[0].options[0] is not None and spec.kind != "mission":
        label = f"{label}: {value_label(game, fixed[0].name, fixed[0].options[0], lang)}"
    return label
