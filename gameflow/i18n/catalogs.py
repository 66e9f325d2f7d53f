"""Keeping the gettext catalogs in step with the source (a developer tool).

Every translatable text is an English msgid marked in the source with `N_("...")`
or `nmsg("singular", "plural", n, ...)`. This module finds them with Babel's
Python extractor, one domain at a time (`DOMAIN_SOURCES` says which folders feed
which domain), and rewrites `locales/<lang>/LC_MESSAGES/<domain>.po` so that it
holds exactly the extracted msgids: existing translations are kept, new msgids get
an empty msgstr (English gets its msgid, since English *is* the msgid), and texts
no longer in the source are dropped. `tests/test_catalog.py` then fails until the
empty ones are translated, so a new text cannot ship untranslated.

    python -m gameflow.i18n.catalogs update   # rewrite the catalogs
    python -m gameflow.i18n.catalogs check    # exit 1 if any is out of step

Unlike the rest of `gameflow`, this reads and writes files: it is run by
developers and tests, never by a game. Nothing happens at import time, so
importing it stays as safe as importing the package. The `.po` files carry no
line numbers or dates, so an update only changes a file when its texts change
and concurrent edits elsewhere in a source file do not cause merge conflicts.
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Final, NamedTuple

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_file
from babel.messages.pofile import read_po, write_po

from gameflow.i18n import DOMAINS, GAME_DOMAINS, LANGUAGES

ROOT: Final = Path(__file__).resolve().parents[2]
"""The repository root: `DOMAIN_SOURCES` folders are relative to it."""

LOCALES: Final = Path(__file__).resolve().parent / "locales"
GAMES: Final = Path(__file__).resolve().parent.parent / "games"  # each game's own catalogs

KEYWORDS: dict[str, tuple[int, ...] | None] = {"N_": None, "nmsg": (1, 2)}
"""Babel keyword specs: `N_(msgid)` and `nmsg(singular, plural, n, ...)`."""

COMMENT_TAG: Final = "TRANSLATORS:"
"""A `# TRANSLATORS: ...` comment just above a text is copied into the catalogs."""

LANGUAGE_NAMES: Final = {"nb": "Norwegian Bokmål", "sr": "Serbian (Latin script)", "en": "English"}

# Header lines Babel always writes that would change on every run (dates, the
# Babel version) or say nothing; dropping them keeps `update` idempotent.
_DROPPED_HEADERS: Final = (
    '"POT-Creation-Date:',
    '"PO-Revision-Date:',
    '"Generated-By:',
    '"Report-Msgid-Bugs-To:',
)


class Source(NamedTuple):
    """A folder (relative to the repository root) whose `.py` files feed a domain."""

    folder: str
    recursive: bool = True


DOMAIN_SOURCES: dict[str, tuple[Source, ...]] = {
    # The core and the top-level modules (replay, __main__), but not the games.
    "core": (Source("gameflow/core"), Source("gameflow", recursive=False)),
    # Each game's package (gameflow.i18n.GAME_DOMAINS), one domain each.
    **{game: (Source(f"gameflow/games/{game}"),) for game in GAME_DOMAINS},
    # Chat-level texts of the adapters (menus, help, errors of the channels)
    # and the game service's own refusals (an unknown time zone).
    "chat": (Source("adapters"), Source("service")),
    # The TV status page's labels (adapters/tv), kept out of `chat` below.
    "tv": (Source("adapters/tv"),),
    # Each chat channel's own texts (adapters/telegram, adapters/sms).
    "telegram": (Source("adapters/telegram"),),
    "sms": (Source("adapters/sms"),),
    # The game master's console (adapters/console) and its link's replies.
    "console": (Source("adapters/console"),),
    # The game's story page after the end (adapters/story).
    "story": (Source("adapters/story"),),
}


class Extracted(NamedTuple):
    """One msgid as found in the source."""

    id: str | tuple[str, str]  # a plain msgid, or (singular, plural) for nmsg
    locations: tuple[tuple[str, int], ...]
    comments: tuple[str, ...]

    @property
    def key(self) -> str:
        """The catalog key: the (singular) msgid."""
        return self.id if isinstance(self.id, str) else self.id[0]


def has_sources(domain: str, root: Path = ROOT) -> bool:
    """Whether any source folder of `domain` exists yet (games arrive one by one)."""
    return any((root / s.folder).is_dir() for s in DOMAIN_SOURCES[domain])


def source_files(domain: str, root: Path = ROOT) -> list[Path]:
    """The Python files of `domain`, in a stable order."""
    files: set[Path] = set()
    for source in DOMAIN_SOURCES[domain]:
        folder = root / source.folder
        if folder.is_dir():
            files.update(folder.rglob("*.py") if source.recursive else folder.glob("*.py"))
    # A folder that is another domain's own source (adapters/tv) is not also ours.
    own = {source.folder for source in DOMAIN_SOURCES[domain]}
    others = [
        root / s.folder
        for d, sources in DOMAIN_SOURCES.items()
        if d != domain
        for s in sources
        if s.recursive and s.folder not in own and any(s.folder.startswith(f"{o}/") for o in own)
    ]
    return sorted(
        f
        for f in files
        if "__pycache__" not in f.parts and not any(f.is_relative_to(o) for o in others)
    )


def extract_files(files: Iterable[Path], root: Path = ROOT) -> dict[str, Extracted]:
    """The msgids marked in `files`, keyed by (singular) msgid, in source order.

    Babel joins implicitly concatenated literals (`N_("a " "b")`) and finds
    markers nested in other calls (`msg(N_("..."), ...)`). A text used in several
    places is one entry with all its locations.
    """
    found: dict[str, Extracted] = {}
    for path in files:
        where = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
        for lineno, message, comments, _context in extract_from_file(
            "python",
            str(path),
            keywords=KEYWORDS,
            comment_tags=(COMMENT_TAG,),
            strip_comment_tags=True,
        ):
            ident = _ident(message)
            if ident is None:
                continue
            key = ident if isinstance(ident, str) else ident[0]
            old = found.get(key)
            if old is None:
                found[key] = Extracted(ident, ((where, lineno),), tuple(comments))
            else:
                if old.id != ident:
                    raise ValueError(
                        f"{where}:{lineno}: {key!r} is used both with and without a plural"
                    )
                notes = old.comments + tuple(c for c in comments if c not in old.comments)
                found[key] = Extracted(old.id, (*old.locations, (where, lineno)), notes)
    return found


def _ident(message: str | tuple[str | None, ...]) -> str | tuple[str, str] | None:
    """A Babel message as a msgid; None when not all of it was a literal."""
    if isinstance(message, str):
        return message or None
    if len(message) == 2 and all(message):
        singular, plural = message
        assert singular is not None and plural is not None
        return (singular, plural)
    if len(message) == 1 and message[0]:
        return message[0]
    return None


def extract(domain: str, root: Path = ROOT) -> dict[str, Extracted]:
    """The msgids of `domain` as they are in the source now."""
    return extract_files(source_files(domain, root), root)


def po_path(domain: str, lang: str, locales: Path | None = None) -> Path:
    """The catalog file of `domain` in `lang`: the project's own (a game's in
    its package, the rest under gameflow/i18n/locales), or, given `locales`,
    the one in that folder."""
    if locales is None:
        base = GAMES / domain / "locales" if domain in GAME_DOMAINS else LOCALES
        return base / lang / "LC_MESSAGES" / f"{domain}.po"
    return locales / lang / "LC_MESSAGES" / f"{domain}.po"


def load(domain: str, lang: str, locales: Path | None = None) -> Catalog | None:
    """The catalog of `domain` in `lang`, or None if it has no file yet."""
    path = po_path(domain, lang, locales)
    if not path.is_file():
        return None
    with path.open("rb") as f:
        catalog: Catalog = read_po(f, locale=lang, domain=domain)
    return catalog


def merge(domain: str, lang: str, found: dict[str, Extracted], old: Catalog | None) -> Catalog:
    """A catalog with exactly the `found` msgids, keeping the translations of `old`.

    A msgid that changed between plain and plural loses its translation.
    Translators' own comments (`# ...`) and fuzzy marks survive; no fuzzy matching is done,
    because a guessed translation of a changed text is worse than an empty one.
    """
    new = Catalog(
        locale=lang,
        domain=domain,
        header_comment=(
            f"# Muldvarp: the {domain!r} texts in {LANGUAGE_NAMES[lang]}.\n"
            "# Kept in step with the source by `python -m gameflow.i18n.catalogs update`;\n"
            "# see docs/translating.md."
        ),
        project="Muldvarp",
        version="1",
        last_translator="Muldvarp developers",
        language_team=LANGUAGE_NAMES[lang],
        fuzzy=False,
    )
    for entry in found.values():
        previous = old.get(entry.key) if old is not None else None
        string: str | tuple[str, ...]
        if previous is not None and previous.id == entry.id:
            string = _strings(previous)
            user_comments = list(previous.user_comments)
            # A translator's "needs review" mark stays until they clear it.
            flags = ["fuzzy"] if previous.fuzzy else []
        else:
            string = _blank(entry.id, lang, new.num_plurals)
            user_comments = []
            flags = []
        if isinstance(entry.id, tuple) and isinstance(string, tuple):
            string = _fit(string, new.num_plurals)
        new[entry.key] = Message(
            entry.id,
            string,
            locations=list(entry.locations),
            auto_comments=list(entry.comments),
            user_comments=user_comments,
            flags=flags,
        )
    return new


def _blank(ident: str | tuple[str, str], lang: str, forms: int) -> str | tuple[str, ...]:
    """The msgstr of a new entry: English is its own msgid, others start empty."""
    if isinstance(ident, str):
        return ident if lang == "en" else ""
    if lang == "en":
        return ident
    return ("",) * forms


def _fit(string: tuple[str, ...], forms: int) -> tuple[str, ...]:
    return (string + ("",) * forms)[:forms]


def render_po(catalog: Catalog) -> bytes:
    """The `.po` text of `catalog`, without line numbers, dates or tool versions."""
    buf = io.BytesIO()
    write_po(buf, catalog, width=88, include_lineno=False, ignore_obsolete=True)
    lines = buf.getvalue().decode("utf-8").splitlines(keepends=True)
    return "".join(line for line in lines if not line.startswith(_DROPPED_HEADERS)).encode()


class Change(NamedTuple):
    """What `update` did (or would do) to one catalog."""

    domain: str
    lang: str
    added: tuple[str, ...]
    removed: tuple[str, ...]
    untranslated: tuple[str, ...]
    rewritten: bool


def update(
    write: bool = True,
    domains: Sequence[str] = DOMAINS,
    languages: Sequence[str] = LANGUAGES,
    root: Path = ROOT,
    locales: Path | None = None,
) -> list[Change]:
    """Bring every catalog of `domains` in step with the source.

    Domains without source folders are left alone. A domain with sources but no
    texts gets a file only once it has some. With `write=False` nothing is
    written: the result says what would change (the `check` command).
    """
    changes: list[Change] = []
    for domain in domains:
        if not has_sources(domain, root):
            continue
        found = extract(domain, root)
        for lang in languages:
            old = load(domain, lang, locales)
            if old is None and not found:
                continue
            new = merge(domain, lang, found, old)
            keys_before = {key_of(m) for m in old if m.id} if old is not None else set()
            added = tuple(k for k in found if k not in keys_before)
            removed = tuple(sorted(k for k in keys_before if k not in found))
            missing = tuple(m.key for m in found.values() if not _translated(new.get(m.key)))
            text = render_po(new)
            path = po_path(domain, lang, locales)
            rewritten = not path.is_file() or path.read_bytes() != text
            if write and rewritten:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(text)
            changes.append(Change(domain, lang, added, removed, missing, rewritten))
    return changes


def key_of(message: Message) -> str:
    """The catalog key of `message`: its (singular) msgid."""
    return message.id if isinstance(message.id, str) else message.id[0]


def _strings(message: Message) -> str | tuple[str, ...]:
    """The msgstr of `message`: one string, or one per plural form."""
    value = message.string
    if isinstance(value, str):
        return value
    return tuple(value or ())


def _translated(message: Message | None) -> bool:
    if message is None:
        return False
    value = _strings(message)
    return bool(value) if isinstance(value, str) else bool(value) and all(value)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m gameflow.i18n.catalogs",
        description="Keep the gettext catalogs in step with the N_/nmsg texts in the source.",
    )
    parser.add_argument(
        "command",
        choices=("update", "check"),
        help="update: rewrite the .po files; check: exit 1 if any is stale or incomplete",
    )
    parser.add_argument("--domain", action="append", choices=DOMAINS, help="only this domain")
    parser.add_argument("--lang", action="append", choices=LANGUAGES, help="only this language")
    args = parser.parse_args(argv)
    write = args.command == "update"
    changes = update(write=write, domains=args.domain or DOMAINS, languages=args.lang or LANGUAGES)
    bad = False
    for c in changes:
        state = ("updated" if write else "STALE") if c.rewritten else "ok"
        print(
            f"{c.domain}/{c.lang}: {state}, +{len(c.added)} -{len(c.removed)}, "
            f"{len(c.untranslated)} untranslated"
        )
        for key in c.untranslated:
            print(f"    untranslated: {key!r}")
        bad = bad or bool(c.untranslated) or c.rewritten
    # `update` only reports what is left to translate; `check` fails on it.
    return 1 if bad and not write else 0


if __name__ == "__main__":
    sys.exit(main())
