"""The SMS adapter's own words: templates, and the labels of every value.

A value is named by its translated label, never its id: players by their
name, a plot card by the Resistance's own catalog name, a job or secret action
by Station's words, yes/no by yes/no (or a yes/no field's own words: "with
the dagger"). Any language's label, or a prefix that fits one value only, is
understood (`_words`). The menus themselves are built in `adapters.sms.sheet`.
A game's own words come from its definition; the texts that name the games
(HELP, the NEW usage) take them from the registry, so a new game needs no line
here.

SMS costs money per segment, so the templates are short: `Reply: plan 1-3, job
OUTSIDE/RADIO/GUARD, partner (name/-). E.g. 2 G ANA`, `Vote for: 1 Ana 2 Bo 3
Nobody. Reply with the number.`
"""

from __future__ import annotations

import functools

from adapters.sms.grammar import Menu, MenuField, Option, fold
from gameflow.core import actions as A
from gameflow.core import registry
from gameflow.core.definition import GameDefinition
from gameflow.core.engine import legal
from gameflow.core.legal import ActionSpec, Value
from gameflow.core.state import Game
from gameflow.core.text import N_, Param, msg
from gameflow.i18n import LANGUAGES, render
from service import talk

# Host controls and lobby actions have their own keywords; menus list game actions only.
CONTROL_KINDS = frozenset(cls.kind for cls in A.CORE_ACTIONS)

# Field names, by "kind.field" first (the same field reads differently in
# different questions: "to" in a relay, "to" when giving a card), then by field;
# a game's own fields and kinds are named by its definition
# (`Words.sms_field_names`, `sms_kind_names`): these are the generic words.
FIELD_NAMES: dict[str, str] = {
    "for": N_("Vote for"),
    "target": N_("target"),
    "to": N_("to"),
    "card": N_("card"),
    "team": N_("team"),
    "names": N_("names"),
    "text": N_("text"),
    "vote.for": N_("Vote for"),
}
KIND_NAMES: dict[str, str] = {
    "vote": N_("Vote"),
    "play": N_("Play"),
}
# A game's own kind names, its words for values that are not players
# (Station's jobs, the Resistance's cards), for a yes/no field that reads
# better as words of its own ("with the dagger", `Words.bool_words`) and for a
# field's empty value ("no partner", `Words.sms_none_words`) come from its
# definition (gameflow/core/definition.py `Words`): these are the generic words.
YES, NO = N_("yes"), N_("no")
NOBODY = N_("Nobody")
NAME_OR_NONE = N_("name/-")
NAME = N_("name")

REPLY = N_("Reply: {fields}. E.g. {example}")
NUMBERED = N_("{field}: {options}. Reply with the number.")
PICK = N_("Reply with the number. E.g. {example}")
FREE = N_("{kind}: write it in one text.")
HELP = N_(
    "JOIN code name: join a game. STATUS: your question again. VOTES: who voted "
    "for whom. AWAY date: away until then; BACK. "
    "Host: NEW {game}, START GAME, PAUSE, RESUME, ADVANCE, END GAME."
)
# What HELP adds for the sender now (`help_text`, issue #33): the talk where
# the game has it, the team's to a player whose team may confer, the host's words.
TALK_HELP = N_("SAY words: talk to the others. MUTE, UNMUTE: talk texts off, on.")
TEAM_HELP = N_("TEAM words: to your team alone.")
HOST_HELP = N_("Host: SET: the settings, in the lobby. MUTE name, UNMUTE name: a player's talk.")
CREATED = N_(
    "Game {code} is open. Players text: JOIN {code} name. "
    "Then text START GAME. Later: PAUSE, RESUME, ADVANCE, END GAME."
)
# The same with the TV link on a line of its own (a link is never cut or merged).
CREATED_TV = N_(
    "Game {code} is open. TV:\n{tv}\nPlayers text: JOIN {code} name. "
    "Then text START GAME. Later: PAUSE, RESUME, END GAME."
)
WELCOME = N_(
    "Welcome, {name}! You are in game {code}. Wait for the host to start. "
    "An answer taken gets no reply; a mistake always does."
)
NOT_IN_GAME = N_("You are not in a game. Text JOIN code name, or HELP.")
NO_SUCH_CODE = N_("No game has the code {code}. Text JOIN code name.")
JOIN_USAGE = N_("Write JOIN, the game code and your name, e.g. JOIN KPRT Ana.")
# {game} and {games} are the registered games' keywords (`t` fills them in).
NEW_USAGE = N_("Write NEW and the game: {games}.")
IN_ANOTHER = N_("You are already in a game. Text STATUS for your question.")
NOTHING_NOW = N_("Nothing to answer right now. HELP lists the commands.")
ANSWER_IN = N_("Your answer is in. The next question comes by text.")
LATE = N_("Too late: that question closed when its time ran out. The next one comes by text.")
UNCLEAR = N_("Not understood. {hint}")
UNCLEAR_FIELD = N_("Not understood: check the {field}. {hint}")
AMBIGUOUS = N_("Unclear: write - for an empty field. {hint}")
TOO_LONG = N_("Too many words. {hint}")
OK = N_("OK.")
MOVE_USAGE = N_(
    "Host: write MOVE, a window and a time, e.g. MOVE {window} 21:30. Windows: {windows}."
)
AWAY_USAGE = N_(
    "Write AWAY and a date, e.g. AWAY 2027-01-20 (away through that day), or a number "
    "of days: AWAY 3. Text BACK when you are back."
)
REMINDER = N_("Reminder: time is nearly up.")
FAILED = N_("Something went wrong. Please try again.")
OPTED_OUT = N_("{name} has stopped texts and gets no private information now.")
OPTED_IN = N_("{name} gets texts again.")
UNDELIVERED = N_("A private text to {name} was not delivered.")

# Every template with realistic parameters: the segment test renders them all.
TEMPLATES: dict[str, dict[str, str | int]] = {
    REPLY: {"fields": "", "example": ""},
    NUMBERED: {"field": "", "options": ""},
    PICK: {"example": "2 Kristoffer"},
    FREE: {"kind": ""},
    HELP: {},
    TALK_HELP: {},
    TEAM_HELP: {},
    HOST_HELP: {},
    CREATED: {"code": "KPRT"},
    CREATED_TV: {"code": "KPRT", "tv": "https://muldvarp.example.org/tv/" + "x" * 43},
    WELCOME: {"name": "Kristoffer", "code": "KPRT"},
    NOT_IN_GAME: {},
    NO_SUCH_CODE: {"code": "KPRT"},
    JOIN_USAGE: {},
    NEW_USAGE: {},
    IN_ANOTHER: {},
    NOTHING_NOW: {},
    ANSWER_IN: {},
    LATE: {},
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


def t(msgid: str, lang: str, **params: Param) -> str:
    """`msgid` in `lang`; the texts that name the games are given their names."""
    if msgid == HELP:
        params = {"game": keyword(registry.first(), lang), **params}
    elif msgid == NEW_USAGE:
        games = tuple(keyword(g, lang) for g in registry.all_games())
        params = {"games": registry.one_of(games), **params}
    return render(msg(msgid, **params), lang)


def help_text(game: Game | None, player: str, lang: str) -> str:
    """HELP, and after it the lines that apply to `player` in `game` now (as
    Telegram's /help): the talk (service/talk.py `offered`), the host's words."""
    lines = [t(HELP, lang)]
    if game is not None and not game.over:
        table, team = talk.offered(game, player)
        if player == game.host:
            lines.append(render(HOST_HELP, lang))
        elif table or team:
            lines.append(render(TALK_HELP, lang))
        if team:
            lines.append(render(TEAM_HELP, lang))
    return " ".join(lines)


def keyword(definition: GameDefinition, lang: str) -> str:
    """The game as a host texts it after NEW, in `lang` ("STASJON")."""
    words = definition.words
    return render(words.keyword, lang) if words.keyword else render(words.name, lang).upper()


# -- labels -------------------------------------------------------------------------


def label(game: Game, field: str, value: Value, lang: str) -> str:
    """How `value` of `field` is written in `lang` (players by their name)."""
    if isinstance(value, str):
        seat = game.seat(value)
        if seat >= 0:
            return game.names[seat]
    return _plain_label(game.kind, field, value, lang)


def _words(game: Game, field: str, value: Value) -> tuple[str, ...]:
    """The folded words that name `value`, in every language. They depend only on
    the game's kind, language and table, so they are cached: every transition
    renders each SMS player's menu, and a worker serving many games would
    otherwise translate and fold the same labels again and again."""
    if value is None or isinstance(value, bool | int):
        return _label_words(game.kind, game.lang, field, value)
    if game.seat(value) >= 0:
        return _player_words(game.names[game.seat(value)], value)
    return _label_words(game.kind, game.lang, field, value)


@functools.lru_cache(maxsize=4096)
def _label_words(kind: str, lang: str, field: str, value: Value) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    if isinstance(value, bool):
        # "1 yes 2 no" is answered "yes" or "ja" as well as "1" in every game.
        for each in (lang, *LANGUAGES):
            seen.update(dict.fromkeys(fold(render(YES if value else NO, each)).split()))
    elif value is not None and not isinstance(value, int):
        seen[fold(value)] = None
    for each in (lang, *LANGUAGES):
        text = fold(_plain_label(kind, field, value, each))
        if text:
            seen[text] = None
            seen.update(dict.fromkeys(text.split()))
    return tuple(seen)


@functools.lru_cache(maxsize=16384)
def _player_words(name: str, player: str) -> tuple[str, ...]:
    """A player is named by their name, the same in every language."""
    text = fold(name)
    return tuple(dict.fromkeys((fold(player), text, *text.split())))


def _plain_label(kind: str, field: str, value: Value, lang: str) -> str:
    """`label` for a value that is not a player: the catalog's own words (a
    plot card's name from the Resistance's catalog), never the id."""
    words = registry.get(kind).words
    if value is None:
        return render(words.sms_none_words.get(field, NOBODY), lang)
    if isinstance(value, bool):
        word = words.bool_words.get((field, value))
        if word is not None:
            return render(word, lang) if word else ""
        return render(YES if value else NO, lang)
    if isinstance(value, int):
        return str(value)
    if field == "card" and value in words.card_names:
        return render(words.card_names[value], lang)
    return render(words.sms_value_words.get(value, value), lang)


def field_name(name: str, lang: str, kind: str = "") -> str:
    """The name of field `name` (of action `kind`) in `lang`."""
    own = [g.words.sms_field_names for g in registry.all_games()]
    for key in (f"{kind}.{name}", name):
        # the generic word, else a game's own (any game's: the name says which)
        msgid = FIELD_NAMES.get(key) or next((w[key] for w in own if key in w), None)
        if msgid:
            return render(msgid, lang)
    return name


def kind_name(game: Game, kind: str, lang: str) -> str:
    own = registry.get(game.kind).words.sms_kind_names
    msgid = own.get(kind) or KIND_NAMES.get(kind)
    return render(msgid, lang) if msgid else kind.replace("_", " ")


def menus(game: Game, player: str) -> tuple[Menu, ...]:
    """The player's legal actions as `grammar.match` reads them, one menu per
    spec (what tests/test_scale types is read this way; players' texts are
    read against their sheet, `adapters.sms.sheet`)."""
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
