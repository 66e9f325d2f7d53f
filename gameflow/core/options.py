"""Every game option's type and range: one check, whichever way a value comes.

A game declares its options twice: their defaults (`Rules.default_options`; the
default's type is the option's type, an int widening to a float option) and
their limits (`Rules.option_limits`): a number's smallest and largest value, a
text's choices or form (a clock time, quiet hours, a time zone's name, a text of
at most so many characters). The host's `/set`, a game created with options
(by chat, SMS or the internal routes) and a replayed log all pass `fit`, so a
value of the wrong type or out of range (1e309 seconds, a million infiltrators)
is refused with a message saying what fits, in the reader's language, and never
reaches a deadline or a deal. Every option that is not a flag must declare a
limit (tests/test_options.py checks it, and that every default fits its own).

What a host types is read here too, so every channel reads it alike (issue #32):
a yes/no option takes the usual words of every language (`on`/`off`, `yes`/`no`,
`true`/`false`, `ja`/`nei`, `da`/`ne`, `1`/`0`, any case), a duration takes
`90`, `90s`, `5m`, `2h`, `1d` or `1h30m`, a whole number its digits; `compact`
writes a duration back in a form `/set` takes.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from gameflow.core.clock import parse_clock, parse_quiet
from gameflow.core.text import N_, Msg, msg, nmsg

if TYPE_CHECKING:
    from gameflow.core.rules import Rules

DAY: Final = 24 * 3600.0
WEEK: Final = 7 * DAY
_ZONE: Final = re.compile(r"[A-Za-z][A-Za-z0-9_+\-]*(/[A-Za-z0-9_+\-]+)*")


class Limit(NamedTuple):
    """What values an option takes besides its type: numbers from `lo` to `hi`
    (`form` "seconds" says they are seconds), one of `choices`, or a text of a
    `form` ("clock", "quiet", "zone", "text" of at most `size` characters)."""

    lo: float = 0.0
    hi: float = 0.0
    choices: tuple[str, ...] = ()
    form: str = ""
    size: int = 0


def span(lo: float, hi: float) -> Limit:
    """A number from `lo` to `hi`, both included."""
    return Limit(lo, hi)


def seconds(lo: float = 0.0, hi: float = WEEK) -> Limit:
    """A duration in seconds. [decision] A phase lasts at most a week; the
    least is 0 (the load and scheduler tests run phases of under a second)."""
    return Limit(lo, hi, form="seconds")


def one_of(*choices: str) -> Limit:
    return Limit(choices=choices)


FLAG: Final = Limit()  # a bool: its type is its range
CLOCK: Final = Limit(form="clock")  # "HH:MM"
QUIET: Final = Limit(form="quiet")  # "HH:MM-HH:MM", or "" for none
ZONE: Final = Limit(form="zone", size=64)  # an IANA name; the service checks it exists


def text(size: int) -> Limit:
    return Limit(form="text", size=size)


class OptionError(ValueError):
    """An option a new game can't take; `message` says what fits."""

    def __init__(self, message: Msg) -> None:
        super().__init__(english(message))
        self.message = message


def english(message: Msg) -> str:
    """`message` in English without the catalogs (the core reads no files):
    its msgid, or its plural's, filled in, nested messages too."""
    text = message.plural if message.plural is not None and message.n != 1 else message.msgid
    params = {k: english(v) if isinstance(v, Msg) else v for k, v in message.params}
    return text.format(**params)


def limits_of(rules: Rules) -> Mapping[str, Limit]:
    return rules.option_limits


# The words a yes/no option takes, folded (any case; "på" as "pa"): English,
# Norwegian and Serbian, and the digits.
YES: Final = frozenset({"yes", "y", "on", "true", "1", "ja", "j", "pa", "da", "ukljuceno"})
NO: Final = frozenset({"no", "n", "off", "false", "0", "nei", "av", "ne", "iskljuceno"})
_DURATION: Final = re.compile(r"(?:(\d+(?:\.\d+)?)([dhms]))+")
_PART: Final = re.compile(r"(\d+(?:\.\d+)?)([dhms])")
_UNIT: Final = {"d": DAY, "h": 3600.0, "m": 60.0, "s": 1.0}


def flag(value: Any) -> bool | None:
    """`value` as a yes/no option takes it (a bool, 1 or 0, or a word of
    `YES` or `NO` in any case); None when it is none of them."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        word = _fold(value)
        if word in YES:
            return True
        if word in NO:
            return False
    return None


def duration(text: str) -> float | None:
    """Seconds in `text`: a number ("90") or parts with a unit each ("90s",
    "5m", "2h", "1d", "1h30m"; "t" for hours and "min" for minutes too); None
    when it is neither."""
    word = text.strip().casefold().replace(" ", "").replace("min", "m").replace("t", "h")
    if re.fullmatch(r"\d+(\.\d+)?", word):
        return float(word)
    if len(word) > 32 or _DURATION.fullmatch(word) is None:
        return None
    return sum(float(n) * _UNIT[unit] for n, unit in _PART.findall(word))


def _fold(text: str) -> str:
    """Lower case without accents ("PÅ" -> "pa", "Uključeno" -> "ukljuceno")."""
    decomposed = unicodedata.normalize("NFKD", text.strip().casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def fit(rules: Rules, name: str, value: Any) -> tuple[Any, Msg | None]:
    """`value` as option `name` of the game takes it (an int widened to a float
    option, a word read as above), and None; or None and what is wrong, saying
    what would fit."""
    defaults = rules.default_options()
    if name not in defaults:
        return None, msg(N_("There is no setting called {name}."), name=name)
    default = defaults[name]
    limit = limit_of(rules, name)
    if isinstance(default, bool):
        answer = flag(value)
        return (answer, None) if answer is not None else (None, fits(name, default, limit))
    if isinstance(default, int | float):
        whole = isinstance(default, int)
        number = _number(_read_number(value, limit, whole=whole), whole=whole)
        if number is not None and limit.lo <= number <= limit.hi:
            return number, None
        return None, fits(name, default, limit)
    if isinstance(default, str) and isinstance(value, str) and _text_fits(limit, value):
        return value, None
    return None, fits(name, default, limit)


def limit_of(rules: Rules, name: str) -> Limit:
    """Option `name`'s limit; for a game that declares none, its type's."""
    limit = limits_of(rules).get(name)
    if limit is not None:
        return limit
    default = rules.default_options()[name]
    return FLAG if isinstance(default, bool | str) else seconds(0.0, math.inf)


def settle(rules: Rules, options: Any) -> dict[str, Any]:
    """A new game's options: the defaults with `options` fitted over them;
    OptionError for the first that doesn't fit (the rest are not looked at)."""
    opts = dict(rules.default_options())
    if options is None:
        return opts
    if not isinstance(options, Mapping):
        raise OptionError(msg(N_("The settings are a list of names and values.")))
    for key, value in options.items():
        fitted, problem = fit(rules, str(key), value)
        if problem is not None:
            raise OptionError(problem)
        opts[str(key)] = fitted
    return opts


def _read_number(value: Any, limit: Limit, *, whole: bool) -> Any:
    """A number typed as text: a duration for a seconds option, digits for a
    whole number; anything else as it came."""
    if not isinstance(value, str):
        return value
    if limit.form == "seconds":
        return duration(value)
    word = value.strip()
    if whole and re.fullmatch(r"\d{1,9}", word):
        return int(word)
    if not whole and re.fullmatch(r"\d{1,9}(\.\d{1,9})?", word):
        return float(word)
    return value


def _number(value: Any, *, whole: bool) -> int | float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if whole:
        return value if isinstance(value, int) else None
    try:
        number = float(value)  # an int past a float's range: OverflowError
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def _shown(x: float) -> int | str:
    return int(x) if x == int(x) else str(x)


def compact(secs: float) -> str:
    """Seconds as `duration` reads them back: 90 -> "1m30s", 300 -> "5m",
    86400 -> "1d"; 0 or a fraction of a second as the number."""
    if secs != int(secs) or secs <= 0 or secs >= 10**12:
        return str(_shown(secs))
    left, parts = int(secs), []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        count, left = divmod(left, size)
        if count:
            parts.append(f"{count}{unit}")
    return "".join(parts)


def _span(secs: float) -> Msg | int:
    """A duration's bound in words: 0, "7 days", "1 hour", "90 seconds"."""
    if secs <= 0:
        return 0
    whole = int(secs) if secs == int(secs) and secs < 10**9 else 0
    if whole and whole % 86400 == 0:
        return nmsg("{n} day", "{n} days", whole // 86400)
    if whole and whole % 3600 == 0:
        return nmsg("{n} hour", "{n} hours", whole // 3600)
    if whole and whole % 60 == 0:
        return nmsg("{n} minute", "{n} minutes", whole // 60)
    return nmsg("{n} second", "{n} seconds", whole or int(min(secs, 10**9)))


def fits(name: str, default: Any, limit: Limit) -> Msg:
    """What option `name` takes, from its type and limit: "recruit takes yes
    or no", "vote_seconds takes a duration from 0 to 7 days, e.g. 90s, 5m, 2h"."""
    if isinstance(default, bool):
        return msg(N_("{name} takes yes or no (on/off, ja/nei, da/ne, 1/0)."), name=name)
    if isinstance(default, int | float) and limit.form == "seconds":
        return msg(
            N_("{name} takes a duration from {min} to {max}, e.g. 90s, 5m, 2h."),
            name=name,
            min=_span(limit.lo),
            max=_span(limit.hi) if math.isfinite(limit.hi) else "∞",
        )
    if isinstance(default, int | float):
        lo, hi = _shown(limit.lo), _shown(limit.hi)
        if isinstance(default, int):
            return msg(N_("{name} takes a whole number from {min} to {max}."), **_p(name, lo, hi))
        return msg(N_("{name} takes a number from {min} to {max}."), **_p(name, lo, hi))
    return _text_problem(name, limit)


def _p(name: str, lo: int | str, hi: int | str) -> dict[str, str | int]:
    return {"name": name, "min": lo, "max": hi}


def _text_fits(limit: Limit, value: str) -> bool:
    if limit.choices:
        return value in limit.choices
    if limit.form in ("clock", "quiet"):
        try:
            parse_clock(value) if limit.form == "clock" else parse_quiet(value)
        except ValueError:
            return False
        return len(value) <= 16
    if limit.form == "zone":
        return len(value) <= limit.size and _ZONE.fullmatch(value) is not None
    if limit.form == "text":
        return len(value) <= limit.size
    return True  # no limit declared (a game without `option_limits`)


def _text_problem(name: str, limit: Limit) -> Msg:
    if len(limit.choices) == 2:
        first, second = limit.choices
        return msg(N_("{name} takes {first} or {second}."), name=name, first=first, second=second)
    if limit.choices:
        return msg(
            N_("{name} takes one of: {choices}."), name=name, choices=", ".join(limit.choices)
        )
    if limit.form == "clock":
        return msg(N_("{name} takes a clock time such as 18:00."), name=name)
    if limit.form == "quiet":
        return msg(
            N_('{name} takes a span of clock times such as 23:00-07:00, or "" for none.'),
            name=name,
        )
    if limit.form == "zone":
        return msg(N_("{name} takes a time zone such as Europe/Oslo."), name=name)
    if limit.form == "text":
        return msg(
            N_("{name} takes a text of at most {max} characters."), name=name, max=limit.size
        )
    return msg(N_("{name} takes a text."), name=name)
