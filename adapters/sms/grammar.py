"""The SMS text grammar: what a player may text, in nb, sr and en.

Texts are matched case- and diacritic-insensitively (`fold`): "počni", "POCNI"
and "Pocni" are one word, and so are "kjør" and "KJOR". Every keyword of every
language works whatever the game's language is, so a Serbian phone in a
Norwegian game is understood.

Three kinds of text:
- carrier keywords (STOP, START, HELP and their kin, see `opt_out.py`) are
  control messages, never game input; that is why a game is started with
  `START GAME` (or GO, BEGYNN, POČNI) and ended with `END GAME` (or AVSLUTT,
  KRAJ): a bare START or END belongs to the carrier;
- commands (`Command`): NEW, JOIN, START GAME, HELP, STATUS, VOTES, PAUSE, RESUME,
  ADVANCE, END GAME, AWAY date (BORTE, ODSUTAN) and BACK (TILBAKE, NAZAD),
  MOVE window HH:MM (FLYTT, POMERI); SAY words (SI, KAŽI: talk through the
  bot), TEAM words (LAG, TAJNO: to the player's team alone), MUTE and UNMUTE
  (DEMP / LYD, TIHO / GLASNO: the talk's texts off, on; the host's MUTE NAME
  and UNMUTE NAME mute and unmute a player's talk);
- answers to the player's current menu, matched against the menu built from
  the core's legal actions (`Menu`, `match`): a number for a one-field menu, or
  one line with one word per field for a multi-field one (Station: plan, job,
  partner, secret: `2 V ANA S`). Optional fields may be left out; when a line
  can be read two ways the player is asked to write `-` for the empty field.

Nothing here raises on any input: a text that parses as nothing is `UNKNOWN`,
and `match` returns an `Unmatched` reason that the renderer turns into a reply
saying what was expected.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from typing import NamedTuple

from gameflow.core import registry
from gameflow.core.legal import Value

MAX_BODY = 480  # longer texts are read only this far: nobody types a menu answer that long
MAX_TOKENS = 12

# Letters NFKD does not decompose, and that phones' keyboards produce.
_FOLD = str.maketrans({"ø": "o", "æ": "ae", "đ": "dj", "ß": "ss", "ł": "l", "ı": "i"})


def fold(text: str) -> str:
    """Case- and diacritic-free form: "Kjør Ćevap Ærø" -> "kjor cevap aero"."""
    text = text.casefold().translate(_FOLD)
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def tokens(text: str) -> list[str]:
    """Words of `text` (commas and semicolons separate too), at most MAX_TOKENS+1."""
    cleaned = text[:MAX_BODY].replace(",", " ").replace(";", " ")
    return cleaned.split()[: MAX_TOKENS + 1]


# -- commands ---------------------------------------------------------------------

NEW = {"new": "en", "ny": "nb", "nytt": "nb", "nova": "sr", "novi": "sr", "nove": "sr"}
JOIN = frozenset({"join", "delta", "bli", "udji", "udi", "pridruzi", "prijava"})
START = frozenset({"go", "begin", "begynn", "kjor", "pocni", "kreni", "zapocni"})
START_WITH = frozenset({"start", "starte", "startuj"})  # START GAME, not a bare START
HELP = frozenset({"hjelp", "pomoc", "?", "kommandoer", "komande", "commands"})
STATUS = frozenset({"status", "stanje", "meny", "menu", "meni", "igjen", "ponovo", "again"})
# The last vote with every voter's name (SMS tallies give counts); alone in a text.
VOTES = frozenset({"votes", "stemmer", "stemmene", "glasovi", "glasanje"})
PAUSE = frozenset({"pause", "pausa", "pauza"})
RESUME = frozenset({"resume", "fortsett", "nastavi"})
ADVANCE = frozenset({"advance", "next", "skip", "neste", "videre", "dalje", "sledece"})
END = frozenset({"avslutt", "kraj", "zavrsi", "finish"})
END_WITH = frozenset({"end", "slutt", "stop", "stopp"})  # END GAME, not a bare END
# Host: SET (the settings), SET 2 (a page), SET name, SET name value (SETT, PODESI).
SET = frozenset({"set", "sett", "podesi"})
# AWAY date (away through that day), AWAY days, AWAY alone (usage); BACK alone.
AWAY = frozenset({"away", "borte", "bortreist", "odsutan", "odsutna", "odsustvo"})
BACK = frozenset({"back", "tilbake", "nazad", "vratio", "vratila"})
# Host: GONE NAME (UTE, OTIŠAO): a player who left for good; the game answers for them.
GONE = frozenset({"gone", "ute", "otisao", "otisla"})
# Host, campaign: MOVE window HH:MM (FLYTT, POMERI).
MOVE = frozenset({"move", "flytt", "pomeri", "pomjeri"})
CONSOLE = frozenset({"console", "konsoll", "konzola"})  # adapters/sms/console.py
# Talk through the bot (issue #33): SAY words... (SI, KAŽI); MUTE and UNMUTE
# alone turn the talk's texts off and on (DEMP / LYD, TIHO / GLASNO).
SAY = frozenset({"say", "si", "kazi"})
MUTE = frozenset({"mute", "demp", "tiho"})
UNMUTE = frozenset({"unmute", "lyd", "glasno"})
# TEAM words... (LAG, TAJNO): to the player's team alone (the spies, with team_talk).
TEAM = frozenset({"team", "lag", "tajno"})


def games() -> dict[str, str]:
    """NEW's game words, folded, in every language -> the game: each game's
    `Words.aliases` (gameflow/core/definition.py), in the games' order."""
    return {alias: g.kind for g in registry.all_games() for alias in g.words.aliases}


LANG_WORDS = {"nb": "nb", "no": "nb", "norsk": "nb", "sr": "sr", "srpski": "sr", "en": "en"}
LANG_WORDS["english"] = "en"


# The words that say which language a stranger writes in (a phone in no game
# is answered in it): only words that belong to one language.
_LANG_OF: dict[str, str] = {
    **dict.fromkeys(("help", "info", "join", "new", "menu", "again", "commands", "go"), "en"),
    **dict.fromkeys(("begin", "next", "skip", "finish", "resume"), "en"),
    **dict.fromkeys(("hjelp", "delta", "bli", "ny", "nytt", "meny", "igjen", "kommandoer"), "nb"),
    **dict.fromkeys(("begynn", "kjor", "neste", "videre", "fortsett", "avslutt", "slutt"), "nb"),
    **dict.fromkeys(("pomoc", "udji", "udi", "pridruzi", "prijava", "nova", "novi", "nove"), "sr"),
    **dict.fromkeys(("stanje", "meni", "ponovo", "komande", "pocni", "kreni", "zapocni"), "sr"),
    **dict.fromkeys(("pauza", "nastavi", "dalje", "sledece", "kraj", "zavrsi"), "sr"),
    **dict.fromkeys(("away", "back", "move", "set"), "en"),
    **dict.fromkeys(("borte", "bortreist", "tilbake", "flytt", "sett"), "nb"),
    **dict.fromkeys(("odsutan", "odsutna", "odsustvo", "nazad", "vratio", "vratila"), "sr"),
    **dict.fromkeys(("pomeri", "pomjeri", "podesi"), "sr"),
    **dict.fromkeys(("say", "mute", "unmute", "team"), "en"),
    **dict.fromkeys(("si", "demp", "lyd", "lag"), "nb"),
    **dict.fromkeys(("kazi", "tiho", "glasno", "tajno"), "sr"),
}


def language_of(body: str) -> str | None:
    """The language a text's first word belongs to (None: no telling, like STATUS)."""
    words = tokens(body)
    return _LANG_OF.get(fold(words[0]).strip(".!:")) if words else None


class Command(NamedTuple):
    """A parsed text. `kind` is one of the names below; `args` its words."""

    kind: str
    args: tuple[str, ...] = ()
    lang: str | None = None  # the language the keyword was written in, when it tells


UNKNOWN = "unknown"  # not a command: maybe an answer to the player's menu
EMPTY = "empty"


def parse(body: str, *, host: bool = True) -> Command:
    """The command a text is; `UNKNOWN` (with the words) when it is none.
    `host`: whether the sender hosts their game; GONE NAME's words are
    ordinary ones ("ute" is "out"), so only the host's are GONE."""
    words = tokens(body)
    if not words:
        return Command(EMPTY)
    head = fold(words[0]).strip(".!:")
    rest = words[1:]
    if head in NEW:
        return _new(rest, NEW[head])
    if head in JOIN:
        if rest and fold(rest[0]) == "med":  # "bli med KODE navn"
            rest = rest[1:]
        if len(rest) < 2:
            return Command("join_usage", tuple(rest))
        code = fold(rest[0]).upper()
        return Command("join", (code, " ".join(rest[1:])[:64]))
    if head in SET:  # "SET", "SET 2", "SET recruit", "SET recruit ja": the value as written
        return Command("set", tuple(body.strip().split(maxsplit=2)[1:]))
    if head in AWAY:  # "AWAY 2027-01-20", "BORTE 3", "ODSUTAN" (usage)
        return Command("away", tuple(rest[:1]))
    if head in BACK and len(words) == 1:
        return Command("back")
    if head in GONE and len(words) > 1 and host:  # "GONE Ana": the name as written
        return Command("gone", tuple(body.strip().split(maxsplit=1)[1:]))
    if head in SAY:  # "SAY I trust Bo": the rest of the text as written
        parts = body.strip().split(maxsplit=1)
        return Command("say", (parts[1] if len(parts) > 1 else "",))
    if head in TEAM:  # "TEAM Bo is ours": the rest as written, to the team alone
        parts = body.strip().split(maxsplit=1)
        return Command("team", (parts[1] if len(parts) > 1 else "",))
    if head in MUTE | UNMUTE:  # alone: the talk's texts; "MUTE Ana": the host mutes Ana
        name = body.strip().split(maxsplit=1)[1:]
        return Command("mute" if head in MUTE else "unmute", tuple(name))
    if head in CONSOLE and len(words) <= 2:  # "CONSOLE", "CONSOLE NEW"
        return Command("console", tuple(fold(w) for w in rest))
    if head in MOVE:  # "MOVE VOTE 21:30"
        return Command("move", tuple(fold(w) for w in rest[:3]))
    if len(words) == 1 or head in END_WITH or head in START_WITH:
        simple = _simple(head, len(words))
        if simple is not None:
            return simple
    return Command(UNKNOWN, tuple(words))


def _simple(head: str, count: int) -> Command | None:
    if head in START or (head in START_WITH and count > 1):
        return Command("start")
    if head in END or (head in END_WITH and count > 1):
        return Command("end")
    if head in VOTES and count == 1:
        return Command("votes")
    for kind, words in (
        ("help", HELP),
        ("status", STATUS),
        ("pause", PAUSE),
        ("resume", RESUME),
        ("advance", ADVANCE),
    ):
        if head in words:
            return Command(kind)
    return None


def _new(rest: list[str], lang: str) -> Command:
    kind = None
    for word in rest:
        w = fold(word)
        if w in LANG_WORDS:
            lang = LANG_WORDS[w]
        elif kind is None:
            known = games()
            kind = known.get(w) or next(
                (g for name, g in known.items() if len(w) >= 3 and name.startswith(w)), None
            )
    if kind is None:
        return Command("new_usage", lang=lang)
    return Command("new", (kind,), lang)


# -- menus ------------------------------------------------------------------------


class Option(NamedTuple):
    """One allowed value and the words that name it (folded; display label first)."""

    value: Value
    words: tuple[str, ...]


class MenuField(NamedTuple):
    name: str
    options: tuple[Option, ...]
    many: bool = False  # a set of values (a team): several words, each one option

    @property
    def optional(self) -> bool:
        return any(o.value is None for o in self.options)


class Menu(NamedTuple):
    """One legal action as the player can answer it."""

    kind: str
    phase: int
    fields: tuple[MenuField, ...]


class Matched(NamedTuple):
    menu: Menu
    values: dict[str, Value | tuple[Value, ...]]


class Unmatched(NamedTuple):
    reason: str  # "nothing" | "no_menu" | "unclear" | "ambiguous" | "too_long"
    field: str | None = None


NONE_WORDS = frozenset({"-", "0", "x", "ingen", "none", "nobody", "no", "niko", "nijedan", "nista"})


def match(text: str | list[str], menus: tuple[Menu, ...]) -> Matched | Unmatched:
    """Read `text` as an answer to one of `menus`.

    One menu with one field: a number picks that option (1-based), a word names
    it. Several menus (or one without fields): the first number picks the menu,
    the rest answers it.
    A multi-field menu: one word per field in order, optional fields may be
    skipped; exactly one reading must fit.
    """
    words = tokens(text) if isinstance(text, str) else text
    if not menus:
        return Unmatched("no_menu")
    if not words:
        return Unmatched("nothing")
    if len(words) > MAX_TOKENS:
        return Unmatched("too_long")
    folded = [fold(w).strip(".!") or w for w in words]
    if len(menus) > 1 or not menus[0].fields:
        pick = _number(folded[0], len(menus))
        if pick is None:
            return Unmatched("unclear")
        menus = (menus[pick - 1],)
        folded = folded[1:]
    menu = menus[0]
    if len(menu.fields) == 1 and not menu.fields[0].many and len(folded) == 1:
        only = menu.fields[0]
        n = _number(folded[0], len(only.options))
        if n is not None and not _has_int(only):
            return Matched(menu, {only.name: only.options[n - 1].value})
    readings = list(_readings(menu.fields, folded))
    if len(readings) == 1:
        return Matched(menu, readings[0])
    if not readings:
        return Unmatched("unclear", _first_bad(menu.fields, folded))
    return Unmatched("ambiguous")


def leads_with_number(body: str) -> bool:
    """Whether `body` begins with a number ("2", "2.", "1 Ana"): a number names
    a place in the menu the player read (an option, an entry, a plan of a
    one-line answer), so it means something else on another menu; a word
    names a value and reads the same on any menu (adapters/sms/inbound.py
    refuses a number typed against an older menu, never a word)."""
    words = tokens(body)
    return bool(words) and (fold(words[0]).strip(".!") or words[0]).isdecimal()


def _number(word: str, count: int) -> int | None:
    if word.isdecimal() and len(word) <= 3 and 1 <= int(word) <= count:
        return int(word)
    return None


def _readings(
    fields: tuple[MenuField, ...], words: list[str]
) -> Iterator[dict[str, Value | tuple[Value, ...]]]:
    """Every way of reading `words` as `fields` in order (skipping optional ones)."""
    if not fields:
        if not words:
            yield {}
        return
    head, tail = fields[0], fields[1:]
    if head.many:
        for cut in range(len(words), 0, -1):
            picked = [pick(head, w) for w in words[:cut]]
            values = tuple(v for v in picked if not isinstance(v, _Missing))
            if len(values) == cut and len(set(values)) == cut:
                for rest in _readings(tail, words[cut:]):
                    yield {head.name: values, **rest}
    elif words:
        value = pick(head, words[0])
        if not isinstance(value, _Missing):
            for rest in _readings(tail, words[1:]):
                yield {head.name: value, **rest}
    if head.optional and not (words and words[0] in NONE_WORDS):
        for rest in _readings(tail, words):
            yield {head.name: None, **rest}


class _Missing:
    pass


_NO: Value | _Missing = _Missing()


def pick(field: MenuField, word: str) -> Value | _Missing:
    """The option `word` names in `field`: a number (for number options), the
    empty word for an optional field, a whole word, or a prefix that fits one
    value only. `_NO` when it names none or several."""
    if word in NONE_WORDS and field.optional and not (word == "0" and _has_int(field)):
        return None
    if word.isdecimal() and len(word) <= 4:
        for o in field.options:
            if isinstance(o.value, int) and not isinstance(o.value, bool) and o.value == int(word):
                return o.value
        return _NO
    exact = {o.value for o in field.options if word in o.words}
    if len(exact) == 1:
        return exact.pop()
    if exact:
        return _NO
    prefix = {o.value for o in field.options if any(w.startswith(word) for w in o.words)}
    return prefix.pop() if len(prefix) == 1 else _NO


def _has_int(field: MenuField) -> bool:
    return any(isinstance(o.value, int) and not isinstance(o.value, bool) for o in field.options)


def _first_bad(fields: tuple[MenuField, ...], words: list[str]) -> str | None:
    """The first field no word could fill: the reply names it."""
    i = 0
    for f in fields:
        if i < len(words) and pick(f, words[i]) is not _NO:
            i += 1
        elif not f.optional or len(fields) == 1:
            return f.name
    return None
