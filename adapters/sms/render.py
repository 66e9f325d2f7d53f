"""Short texts: menus from legal actions, replies, and the adapter's own messages.

Every menu is built from `gameflow.core.engine.legal` and nothing else, and the
same `Menu` is what `grammar.match` reads the answer against, so a text menu can
never offer what the rules would refuse. Values are named by their translated
labels (player names for players); any language's label, or a prefix that fits
one value only, is understood.

SMS costs money per segment: prompts are one line (`Reply: plan 1-3, job
OUTSIDE/RADIO/GUARD, partner (name/-). E.g. 2 G ANA`), and a single-field menu is
a numbered list on one line (`Vote for: 1 Ana 2 Bo 3 Nobody. Reply with the number.`).
"""

from __future__ import annotations

import functools

from adapters.sms.grammar import Menu, MenuField, Option, Unmatched, fold
from gameflow.core import actions as A
from gameflow.core.engine import legal
from gameflow.core.legal import ActionSpec, Value
from gameflow.core.state import Game
from gameflow.core.text import N_, msg
from gameflow.i18n import LANGUAGES, render

# Host controls and lobby actions have their own keywords; menus list game actions only.
CONTROL_KINDS = frozenset(cls.kind for cls in A.CORE_ACTIONS)

FIELD_NAMES: dict[str, str] = {
    "plan": N_("plan"),
    "job": N_("job"),
    "partner": N_("partner"),
    "secret": N_("secret"),
    "for": N_("Vote for"),
    "target": N_("target"),
    "to": N_("to"),
    "card": N_("card"),
    "team": N_("team"),
    "approve": N_("Approve"),
    "names": N_("names"),
}
KIND_NAMES: dict[str, str] = {
    "choose": N_("choice"),
    "vote": N_("vote"),
    "propose": N_("propose a team"),
    "give": N_("give a card"),
    "play": N_("play a card"),
    "mission": N_("mission card"),
    "pass": N_("pass"),
}
YES, NO = N_("yes"), N_("no")
NOBODY, NO_PARTNER = N_("Nobody"), N_("no partner")
NAME_OR_NONE = N_("name/-")

REPLY = N_("Reply: {fields}. E.g. {example}")
NUMBERED = N_("{field}: {options}. Reply with the number.")
HELP = N_(
    "JOIN code name: join a game. STATUS: your question again. "
    "Host: NEW STATION, START GAME, PAUSE, RESUME, ADVANCE, END GAME."
)
CREATED = N_("Game {code} is open. Players text: JOIN {code} name. Then text START GAME.")
WELCOME = N_("Welcome, {name}! You are in game {code}. Wait for the host to start.")
NOT_IN_GAME = N_("You are not in a game. Text JOIN code name, or HELP.")
NO_SUCH_CODE = N_("No game has the code {code}. Text JOIN code name.")
JOIN_USAGE = N_("Write JOIN, the game code and your name, e.g. JOIN KPRT Ana.")
NEW_USAGE = N_("Write NEW and the game: STATION, RESISTANCE or TRAITORS.")
IN_ANOTHER = N_("You are already in a game. Text STATUS for your question.")
NOTHING_NOW = N_("Nothing to answer right now. HELP lists the commands.")
UNCLEAR = N_("Not understood. {hint}")
UNCLEAR_FIELD = N_("Not understood: check the {field}. {hint}")
AMBIGUOUS = N_("Unclear: write - for an empty field. {hint}")
TOO_LONG = N_("Too many words. {hint}")
OK = N_("OK.")
REMINDER = N_("Reminder: time is nearly up.")
FAILED = N_("Something went wrong. Please try again.")
OPTED_OUT = N_("{name} has stopped texts and gets no private information now.")
OPTED_IN = N_("{name} gets texts again.")
UNDELIVERED = N_("A private text to {name} was not delivered.")

# Every template with realistic parameters: the segment test renders them all.
TEMPLATES: dict[str, dict[str, str | int]] = {
    REPLY: {"fields": "", "example": ""},
    NUMBERED: {"field": "", "options": ""},
    HELP: {},
    CREATED: {"code": "KPRT"},
    WELCOME: {"name": "Kristoffer", "code": "KPRT"},
    NOT_IN_GAME: {},
    NO_SUCH_CODE: {"code": "KPRT"},
    JOIN_USAGE: {},
    NEW_USAGE: {},
    IN_ANOTHER: {},
    NOTHING_NOW: {},
    UNCLEAR: {"hint": ""},
    UNCLEAR_FIELD: {"field": "", "hint": ""},
    AMBIGUOUS: {"hint": ""},
    TOO_LONG: {"hint": ""},
    OK: {},
    REMINDER: {},
    FAILED: {},
    OPTED_OUT: {"name": "Kristoffer"},
    OPTED_IN: {"name": "Kristoffer"},
    UNDELIVERED: {"name": "Kristoffer"},
}


def t(msgid: str, lang: str, **params: str | int) -> str:
    return render(msg(msgid, **params), lang)


# -- labels -------------------------------------------------------------------------


def label(game: Game, field: str, value: Value, lang: str) -> str:
    """How `value` of `field` is written in `lang`."""
    if isinstance(value, str):
        seat = game.seat(value)
        if seat >= 0:
            return game.names[seat]
    return _plain_label(field, value, lang)


def _words(game: Game, field: str, value: Value) -> tuple[str, ...]:
    """The folded words that name `value`, in every language. They depend only on
    the game's language and table, so they are cached: every transition renders
    each SMS player's menu, and a worker serving many games would otherwise
    translate and fold the same labels again and again."""
    if value is None or isinstance(value, bool | int):
        return _label_words(game.lang, field, value)
    if game.seat(value) >= 0:
        return _player_words(game.names[game.seat(value)], value)
    return _label_words(game.lang, field, value)


@functools.lru_cache(maxsize=4096)
def _label_words(lang: str, field: str, value: Value) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    if value is not None and not isinstance(value, bool | int):
        seen[fold(value)] = None
    for each in (lang, *LANGUAGES):
        text = fold(_plain_label(field, value, each))
        seen[text] = None
        seen.update(dict.fromkeys(text.split()))
    return tuple(seen)


@functools.lru_cache(maxsize=16384)
def _player_words(name: str, player: str) -> tuple[str, ...]:
    """A player is named by their name, the same in every language."""
    text = fold(name)
    return tuple(dict.fromkeys((fold(player), text, *text.split())))


def _plain_label(field: str, value: Value, lang: str) -> str:
    """`label` for a value that is not a player."""
    if value is None:
        return render(NO_PARTNER if field == "partner" else NOBODY, lang)
    if isinstance(value, bool):
        return render(YES if value else NO, lang)
    if isinstance(value, int):
        return str(value)
    return render(value, lang)


def menus(game: Game, player: str) -> tuple[Menu, ...]:
    """The player's answerable menus, straight from the core's legal actions."""
    return tuple(
        menu_of(game, spec) for spec in legal(game, player) if spec.kind not in CONTROL_KINDS
    )


def menu_of(game: Game, spec: ActionSpec) -> Menu:
    fields = tuple(
        MenuField(
            f.name,
            tuple(Option(v, _words(game, f.name, v)) for v in f.options),
            f.many,
        )
        for f in spec.fields
    )
    return Menu(spec.kind, spec.phase, fields)


# -- prompts ------------------------------------------------------------------------


def field_name(name: str, lang: str) -> str:
    return render(FIELD_NAMES[name], lang) if name in FIELD_NAMES else name


def _shown(menu: Menu) -> tuple[MenuField, ...]:
    """Fields worth a word: a field whose only option is "nothing" is left out."""
    return tuple(f for f in menu.fields if any(o.value is not None for o in f.options))


def prompt(game: Game, menus_: tuple[Menu, ...], lang: str) -> str:
    """The one-line question for the player's menus ("" when there is none)."""
    if not menus_:
        return ""
    if len(menus_) == 1 and menus_[0].fields:
        return _prompt_one(game, menus_[0], lang)
    lines = []
    for i, m in enumerate(menus_, 1):
        fields = _fields_text(game, m, lang)
        name = render(KIND_NAMES.get(m.kind, m.kind), lang)
        lines.append(f"{i}) {name}: {fields}" if fields else f"{i}) {name}")
    return "\n".join(lines)


def _prompt_one(game: Game, menu: Menu, lang: str) -> str:
    shown = _shown(menu)
    if len(shown) == 1 and len(menu.fields) == 1 and not shown[0].many:
        f = shown[0]
        if not any(isinstance(o.value, int) and not isinstance(o.value, bool) for o in f.options):
            options = " ".join(
                f"{i} {label(game, f.name, o.value, lang)}" for i, o in enumerate(f.options, 1)
            )
            return t(NUMBERED, lang, field=field_name(f.name, lang), options=options)
    return t(REPLY, lang, fields=_fields_text(game, menu, lang), example=example(game, menu, lang))


def _fields_text(game: Game, menu: Menu, lang: str) -> str:
    parts = []
    for f in _shown(menu):
        values = [o.value for o in f.options if o.value is not None]
        name = field_name(f.name, lang)
        if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            ints = sorted(int(v) for v in values if isinstance(v, int))
            contiguous = ints == list(range(ints[0], ints[-1] + 1))
            opts = (
                f"{ints[0]}-{ints[-1]}"
                if contiguous and len(ints) > 2
                else "/".join(map(str, ints))
            )
            parts.append(f"{name} {opts}")
        elif all(isinstance(v, str) and game.seat(v) >= 0 for v in values):
            tail = render(NAME_OR_NONE, lang) if f.optional else name
            parts.append(f"{name} ({tail})" if f.optional else name)
        else:
            opts = "/".join(label(game, f.name, v, lang).upper() for v in values)
            parts.append(f"[{opts}]" if f.optional else f"{name} {opts}")
    return ", ".join(parts)


def example(game: Game, menu: Menu, lang: str) -> str:
    """A valid answer, written the short way (first letters, first names)."""
    words = []
    for f in _shown(menu):
        if f.optional and not any(game.seat(str(o.value)) >= 0 for o in f.options):
            continue  # secret actions and the like: not in the example
        values = [o.value for o in f.options if o.value is not None]
        v = values[min(1, len(values) - 1)]
        text = label(game, f.name, v, lang)
        if isinstance(v, int) or game.seat(str(v)) >= 0:
            words.append(text.split()[0].upper() if text else "-")
        else:
            words.append(_short(text, [label(game, f.name, w, lang) for w in values]))
    return " ".join(words)


def _short(text: str, others: list[str]) -> str:
    """The shortest prefix of `text` no other label starts with."""
    for n in range(1, len(text) + 1):
        head = fold(text[:n])
        if sum(fold(o).startswith(head) for o in others) == 1:
            return text[:n].upper()
    return text.upper()


def unmatched(game: Game, result: Unmatched, menus_: tuple[Menu, ...], lang: str) -> str:
    """The reply to an answer that fits no menu: what was expected."""
    if not menus_:
        return t(NOTHING_NOW, lang)
    hint = prompt(game, menus_, lang)
    if result.reason == "ambiguous":
        return t(AMBIGUOUS, lang, hint=hint)
    if result.reason == "too_long":
        return t(TOO_LONG, lang, hint=hint)
    if result.field is not None and len(menus_) == 1 and len(menus_[0].fields) > 1:
        return t(UNCLEAR_FIELD, lang, field=field_name(result.field, lang), hint=hint)
    return t(UNCLEAR, lang, hint=hint)
