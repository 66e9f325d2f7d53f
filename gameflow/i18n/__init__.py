"""Rendering translatable messages in nb, sr and en.

The catalogs are gettext `.po` files, one per domain (`core`, and one per game),
under `locales/<lang>/LC_MESSAGES/<domain>.po`: the core's and the channels' in
this package, each game's in its own package (`gameflow/games/<game>/locales`,
so a new game brings its texts with it), maintained with Babel
(`python -m gameflow.i18n.catalogs update`, see docs/translating.md). One file per domain lets each
game keep its own texts. They are compiled in memory on first use, so the package
ships plain text and needs no build step. Rendering is pure apart from reading the
package's own catalogs.
"""

from __future__ import annotations

import gettext
import io
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Final

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from gameflow.core.text import Msg, Param

LANGUAGES: Final = ("nb", "sr", "en")


def game_domains() -> tuple[str, ...]:
    """Each game's own domain: one a package under gameflow/games, named as
    the package (its definition's `domain`), so a new game needs no line here."""
    games = resources.files("gameflow").joinpath("games")
    return tuple(
        sorted(
            p.name
            for p in games.iterdir()
            if p.is_dir() and not p.name.startswith("_") and _is_package(p)
        )
    )


def _is_package(folder: Traversable) -> bool:
    """A folder with an `__init__` module (source, or compiled in a wheel)."""
    return any(
        f.name.startswith("__init__.") and not f.name.endswith(".pyc") for f in folder.iterdir()
    )


# The core's, the games', then the adapters' domains.
GAME_DOMAINS: Final = game_domains()
DOMAINS: Final = ("core", *GAME_DOMAINS, "chat", "tv", "telegram", "sms", "console", "story")


def po_file(domain: str, lang: str) -> Traversable:
    """Where the catalog of `domain` in `lang` is: a game's in its package."""
    tail = f"locales/{lang}/LC_MESSAGES/{domain}.po"
    if domain in GAME_DOMAINS:
        return resources.files("gameflow.games").joinpath(f"{domain}/{tail}")
    return resources.files(__package__).joinpath(tail)


@cache
def catalog(lang: str) -> gettext.NullTranslations:
    """The compiled catalog of `lang` (English falls back to the msgids)."""
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}")
    chain: gettext.NullTranslations = gettext.NullTranslations()
    for domain in reversed(DOMAINS):
        path = po_file(domain, lang)
        if not path.is_file():
            continue
        with path.open("rb") as f:
            po = read_po(f, locale=lang)
        buf = io.BytesIO()
        write_mo(buf, po)
        buf.seek(0)
        translations = gettext.GNUTranslations(buf)
        translations.add_fallback(chain)
        chain = translations
    return chain


def render(message: Msg | str, lang: str) -> str:
    """`message` in `lang`, with its parameters translated and filled in."""
    if isinstance(message, str):
        return catalog(lang).gettext(message) if message else message
    cat = catalog(lang)
    if message.plural is not None:
        template = cat.ngettext(message.msgid, message.plural, message.n)
    else:
        template = cat.gettext(message.msgid)
    if not message.params:
        return template
    values = {key: _value(value, lang) for key, value in message.params}
    return template.format(**values)


def _value(value: Param, lang: str) -> str | int:
    if isinstance(value, Msg):
        return render(value, lang)
    if isinstance(value, tuple):
        return ", ".join(str(_value(v, lang)) for v in value)
    return value
