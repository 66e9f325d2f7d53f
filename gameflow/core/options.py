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
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from gameflow.core.clock import parse_clock, parse_quiet
from gameflow.core.text import N_, Msg, msg

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
        params = {k: v for k, v in message.params}
        super().__init__(message.msgid.format(**params))
        self.message = message


def limits_of(rules: Rules) -> Mapping[str, Limit]:
    return rules.option_limits


def fit(rules: Rules, name: str, value: Any) -> tuple[Any, Msg | None]:
    """`value` as option `name` of the game takes it (an int widened to a float
    option), and None; or None and what is wrong, saying what would fit."""
    defaults = rules.default_options()
    if name not in defaults:
        return None, msg(N_("There is no setting called {name}."), name=name)
    default = defaults[name]
    limit = limits_of(rules).get(name)
    if limit is None:  # a game that declares no limits: the type alone, as before
        limit = FLAG if isinstance(default, bool | str) else seconds(0.0, math.inf)
    if isinstance(default, bool):
        if isinstance(value, bool):
            return value, None
        return None, msg(N_("The setting {name} is true or false."), name=name)
    if isinstance(default, int | float):
        number = _number(value, whole=isinstance(default, int))
        if number is not None and limit.lo <= number <= limit.hi:
            return number, None
        return None, _range(name, limit, whole=isinstance(default, int))
    if isinstance(default, str) and isinstance(value, str) and _text_fits(limit, value):
        return value, None
    return None, _text_problem(name, limit)


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


def _range(name: str, limit: Limit, *, whole: bool) -> Msg:
    lo, hi = _shown(limit.lo), _shown(limit.hi)
    if whole:
        return msg(
            N_("The setting {name} is a whole number from {min} to {max}."), **_p(name, lo, hi)
        )
    if limit.form == "seconds":
        return msg(N_("The setting {name} is from {min} to {max} seconds."), **_p(name, lo, hi))
    return msg(N_("The setting {name} is a number from {min} to {max}."), **_p(name, lo, hi))


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
    if limit.choices:
        return msg(
            N_("The setting {name} is one of: {choices}."),
            name=name,
            choices=", ".join(limit.choices),
        )
    if limit.form == "clock":
        return msg(N_("The setting {name} is a clock time such as 18:00."), name=name)
    if limit.form == "quiet":
        return msg(
            N_(
                "The setting {name} is a span of clock times such as 23:00-07:00, or empty for none."
            ),
            name=name,
        )
    if limit.form == "zone":
        return msg(N_("The setting {name} is a time zone such as Europe/Oslo."), name=name)
    return msg(
        N_("The setting {name} is a text of at most {max} characters."), name=name, max=limit.size
    )
