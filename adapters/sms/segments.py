"""How many SMS segments a text costs, and how to keep Serbian in GSM-7.

Carriers bill per segment. A text in the GSM 03.38 alphabet (which includes
æ, ø and å, so Norwegian and English stay in it) costs one segment up to 160
characters and 153 per segment beyond (the rest carries the concatenation
header); the extension table's characters (€ [ ] { } ^ ~ | and backslash) count
twice. Any other character switches the whole text to UCS-2: 70 per segment,
67 when concatenated, counted in UTF-16 units. Serbian Latin needs č ć š ž đ,
which are not GSM-7, so `transliterate` (turned on by `SMS_TRANSLITERATE`) writes
them as c c s z dj, the way Serbian SMS has always been written.
"""

from __future__ import annotations

GSM7_BASIC = frozenset(
    "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?"
    "¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà"
)
GSM7_EXTENSION = frozenset("^{}\\[~]|€\f")

SINGLE = {"gsm7": 160, "ucs2": 70}
MULTI = {"gsm7": 153, "ucs2": 67}

# Serbian Latin letters outside GSM-7.
_TRANSLIT = {
    "č": "c",
    "ć": "c",
    "š": "s",
    "ž": "z",
    "đ": "dj",
    "Č": "C",
    "Ć": "C",
    "Š": "S",
    "Ž": "Z",
    "Đ": "Dj",
}
# Typographic marks (and the seeds' «quotes») that would push any text to UCS-2.
_PUNCT = {
    "«": '"',
    "»": '"',
    "“": '"',
    "”": '"',
    "„": '"',
    "‘": "'",
    "’": "'",
    "–": "-",
    "—": "-",
    "…": "...",
    "\u00a0": " ",
}
_PUNCT_TABLE = str.maketrans(_PUNCT)
_TABLE = str.maketrans({**_PUNCT, **_TRANSLIT})


_GSM7 = GSM7_BASIC | GSM7_EXTENSION


def is_gsm7(text: str) -> bool:
    return _GSM7.issuperset(text)


def encoding(text: str) -> str:
    """ "gsm7" or "ucs2": the encoding a carrier will use for `text`."""
    return "gsm7" if is_gsm7(text) else "ucs2"


def units(text: str) -> int:
    """The text's length in its encoding's units (septets or UTF-16 units)."""
    if is_gsm7(text):
        return len(text) + sum(map(text.count, GSM7_EXTENSION))
    return len(text.encode("utf-16-le")) // 2


def segments(text: str) -> int:
    """The number of segments `text` is billed as (0 for an empty text)."""
    n = units(text)
    enc = encoding(text)
    if n == 0:
        return 0
    if n <= SINGLE[enc]:
        return 1
    return -(-n // MULTI[enc])


def transliterate(text: str) -> str:
    """Serbian Latin (and typographic quotes and dashes) written in GSM-7 letters."""
    return text.translate(_TABLE)


def prepare(text: str, lang: str, transliterate_sr: bool) -> str:
    """The text as it will be sent: typographic marks always plain (a single «
    would double the cost), Serbian letters transliterated when asked to be —
    in every language's texts, since a Serbian player name (Đorđe) in a
    Norwegian game would turn the whole text into UCS-2 too. `lang` is kept for
    callers that know it; the rule does not depend on it."""
    del lang
    if transliterate_sr:
        return text.translate(_TABLE)
    return text.translate(_PUNCT_TABLE)
