"""Translatable text as data.

The core never renders text: it names a message (an English gettext msgid marked
with `N_` so Babel can extract it) and the values to put in it. Adapters render it
in the reader's language through `gameflow.i18n`. Keeping text as data lets the
same event become a Telegram message, an SMS or a line on the TV.
"""

from __future__ import annotations

from typing import Final, NamedTuple, Union

# One item of a listed parameter (a name, or a Msg), joined with ", ".
Item = Union["Msg", str, int]
Param = Union[str, int, "Msg", tuple[Item, ...]]


def N_(msgid: str) -> str:
    """Mark `msgid` for extraction without translating it (gettext's no-op marker)."""
    return msgid


class Msg(NamedTuple):
    """A message to translate: msgid, brace-format parameters, optional plural.

    Parameter values may themselves be `Msg` (translated first) or tuples of
    them (translated and joined as a list). A NamedTuple rather than a frozen
    dataclass: the engine builds several per action and this is ~5x cheaper.
    """

    msgid: str
    params: tuple[tuple[str, Param], ...] = ()
    plural: str | None = None
    n: int = 0

    def param(self, name: str) -> Param | None:
        for key, value in self.params:
            if key == name:
                return value
        return None


# The builders make the tuple directly: a NamedTuple's own `__new__` is Python
# code with keyword handling, and a phase change builds several messages.
_new: Final = tuple.__new__


def msg(msgid: str, **params: Param) -> Msg:
    """Build a `Msg`; the keyword arguments become its parameters."""
    made: Msg = _new(Msg, (msgid, tuple(params.items()), None, 0))
    return made


def nmsg(singular: str, plural: str, n: int, **params: Param) -> Msg:
    """Build a plural-aware `Msg`; `n` selects the form and is also a parameter."""
    made: Msg = _new(Msg, (singular, (("n", n), *params.items()), plural, n))
    return made
