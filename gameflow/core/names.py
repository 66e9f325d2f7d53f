"""Player names: one rule for every channel, applied when a player joins.

A name comes from a Telegram profile, an SMS or a script, and everyone sees it:
on the TV and in every player's chat. Taken as typed, invisible characters
(zero-width spaces, NUL) and direction overrides (U+202E turns "evil" into
"live") would let a player pose as another. So the core keeps a cleaned form:

- Unicode NFC, after dropping control, format (zero-width, bidi marks and
  overrides), surrogate, private-use and line/paragraph separator characters
  (categories Cc, Cf, Cs, Co, Zl, Zp) and the fillers drawn as nothing (Hangul
  fillers, the blank braille pattern); whitespace runs become one space;
- refused when that leaves nothing, or more than MAX_NAME characters;
- refused as taken when it looks like a name already in the game: equal once
  case, diacritics, compatibility forms (full-width letters) and the Cyrillic
  and Greek letters drawn like Latin ones are set aside ("Ána", "ANA" and a
  Cyrillic "Аna" are all "ana").
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import Final

from gameflow.core.result import Rejected, reject
from gameflow.core.text import N_

MAX_NAME: Final = 32
MAX_RAW: Final = 1024  # longer input is refused before it is cleaned
_DROP: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Zl", "Zp"})
_BLANK: Final = frozenset("\u115f\u1160\u3164\uffa0\u2800")

# Letters NFKD leaves whole, and the Cyrillic and Greek letters that look like
# Latin ones (after casefold: the capitals they come from look alike too).
_ALIKE: Final = str.maketrans(
    {
        "ø": "o",
        "æ": "ae",
        "œ": "oe",
        "đ": "d",
        "ð": "d",
        "ħ": "h",
        "ł": "l",
        "ı": "i",
        "ß": "ss",
        "а": "a",
        "в": "b",
        "е": "e",
        "ё": "e",
        "к": "k",
        "м": "m",
        "н": "h",
        "о": "o",
        "р": "p",
        "с": "c",
        "т": "t",
        "у": "y",
        "х": "x",
        "і": "i",
        "ј": "j",
        "ѕ": "s",
        "ԁ": "d",
        "ӏ": "l",
        "α": "a",
        "β": "b",
        "ε": "e",
        "ζ": "z",
        "η": "h",
        "ι": "i",
        "κ": "k",
        "μ": "m",
        "ν": "n",
        "ο": "o",
        "ρ": "p",
        "τ": "t",
        "υ": "y",
        "χ": "x",
    }
)


def clean(raw: str) -> str:
    """The name as it is kept and shown (see the module doc)."""
    kept = "".join(c for c in raw if c not in _BLANK and unicodedata.category(c) not in _DROP)
    return " ".join(unicodedata.normalize("NFC", kept).split())


def likeness(name: str) -> str:
    """The form two names share when they look the same to the table."""
    folded = unicodedata.normalize("NFKD", name.casefold())
    bare = "".join(c for c in folded if not unicodedata.category(c).startswith("M"))
    return unicodedata.normalize("NFKC", bare).casefold().translate(_ALIKE)


def admit(taken: Sequence[str], raw: str) -> str | Rejected:
    """The cleaned name for a player joining a game whose players are called
    `taken`, or why it can't be used."""
    name = clean(raw) if len(raw) <= MAX_RAW else ""
    if not name or len(name) > MAX_NAME:
        return reject("bad_name", N_("Pick a name of 1 to {max} characters."), max=MAX_NAME)
    like = likeness(name)
    for other in taken:
        if likeness(other) != like:
            continue
        if other.casefold() == name.casefold():
            return reject("name_taken", N_("The name {name} is taken; pick another."), name=name)
        return reject(
            "name_taken",
            N_("The name {name} looks too much like {other}, who has joined; pick another."),
            name=name,
            other=other,
        )
    return name
