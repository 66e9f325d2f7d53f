"""The message catalogs: complete, in step with the source, and renderable.

Every text a player can see is an English msgid in the source; these tests make
a new or changed text fail the suite until it is translated into nb, sr and en,
and make a removed text fail until its stale translation is dropped (both fixed
by `python -m gameflow.i18n.catalogs update` plus translating; see
docs/translating.md). A domain whose game does not exist yet has no cases.
"""

from __future__ import annotations

import ast
import gettext
import string
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog, Message

from gameflow.core.text import Msg, msg, nmsg
from gameflow.games.station.texts import JOB_NAMES, LABELS, PROFESSIONS
from gameflow.i18n import DOMAINS, LANGUAGES, render
from gameflow.i18n import catalogs as cats

pytestmark = pytest.mark.core

ACTIVE = [d for d in DOMAINS if cats.has_sources(d)]
CASES = [(d, lang) for d in ACTIVE for lang in LANGUAGES]


def _fields(text: str) -> set[str]:
    """The `{placeholder}` names of a brace-format text."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def _forms(message: Message) -> tuple[str, ...]:
    return (message.string,) if isinstance(message.string, str) else tuple(message.string)


def _entries(catalog: Catalog | None) -> list[Message]:
    return [m for m in catalog if m.id] if catalog is not None else []


@pytest.mark.parametrize(("domain", "lang"), CASES)
def test_every_text_is_translated_and_no_stale_entry(domain: str, lang: str) -> None:
    found = cats.extract(domain)
    catalog = cats.load(domain, lang)
    missing = []
    for key, entry in found.items():
        message = catalog.get(key) if catalog is not None else None
        if message is None or message.id != entry.id or not all(_forms(message)):
            missing.append(key)
    unused = [cats.key_of(m) for m in _entries(catalog) if cats.key_of(m) not in found]
    fuzzy = [cats.key_of(m) for m in _entries(catalog) if m.fuzzy]
    hint = "run `python -m gameflow.i18n.catalogs update`, then translate"
    assert not missing, f"{domain}/{lang}: untranslated ({hint}): {missing}"
    assert not unused, f"{domain}/{lang}: no longer in the source ({hint}): {unused}"
    # A fuzzy entry is silently ignored at run time, so the English would show.
    assert not fuzzy, f"{domain}/{lang}: fuzzy entries are not used: {fuzzy}"


@pytest.mark.parametrize(("domain", "lang"), CASES)
def test_translations_keep_the_placeholders(domain: str, lang: str) -> None:
    wrong = []
    for message in _entries(cats.load(domain, lang)):
        if not all(_forms(message)):
            continue  # untranslated: reported by the completeness test
        if isinstance(message.id, str):
            if _fields(message.string) != _fields(message.id):
                wrong.append((message.id, message.string))
            continue
        # In a plural, a form may leave out {n} (nb "én del"); nothing else.
        expected = (_fields(message.id[0]) | _fields(message.id[1])) - {"n"}
        for form in _forms(message):
            if _fields(form) - {"n"} != expected or not _fields(form) <= expected | {"n"}:
                wrong.append((message.id[0], form))
    assert not wrong, f"{domain}/{lang}: placeholders differ from the msgid: {wrong}"


@pytest.mark.parametrize("domain", ACTIVE)
def test_every_text_renders_in_every_language(domain: str) -> None:
    for entry in cats.extract(domain).values():
        if isinstance(entry.id, str):
            params = dict.fromkeys(_fields(entry.id), 7)
            cases = [Msg(entry.id, tuple(params.items()))]
        else:
            params = dict.fromkeys((_fields(entry.id[0]) | _fields(entry.id[1])) - {"n"}, 7)
            cases = [nmsg(*entry.id, n, **params) for n in (0, 1, 2, 5, 11, 21, 22)]
        for lang in LANGUAGES:
            for case in cases:
                text = render(case, lang)
                assert text.strip(), (domain, lang, entry.key)
                assert not any("{" + p + "}" in text for p in params), (lang, text)


@pytest.mark.parametrize(("domain", "lang"), CASES)
def test_render_reads_the_catalog(domain: str, lang: str) -> None:
    """`render` gives the catalog's text, so a catalog that fails to load shows."""
    for message in _entries(cats.load(domain, lang)):
        if isinstance(message.id, str) and message.string and not _fields(message.id):
            assert render(message.id, lang) == message.string
            assert render(Msg(message.id), lang) == message.string


def _unmarked_texts(path: Path) -> list[str]:
    """Literal texts handed to msg/Msg/reject without `N_`: never extracted,
    so they would reach players in English only."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
        position = {"msg": 0, "Msg": 0, "reject": 1}.get(str(name))
        if position is None or len(node.args) <= position:
            continue
        text = node.args[position]
        if isinstance(text, ast.JoinedStr) or (
            isinstance(text, ast.Constant) and isinstance(text.value, str)
        ):
            found.append(f"{path.relative_to(cats.ROOT)}:{node.lineno}")
    return found


@pytest.mark.parametrize("domain", ACTIVE)
def test_every_literal_text_is_marked(domain: str) -> None:
    unmarked = [hit for path in cats.source_files(domain) for hit in _unmarked_texts(path)]
    assert not unmarked, f"wrap these texts in N_(...): {unmarked}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_msgid_shared_by_domains_has_one_translation(lang: str) -> None:
    """All domains of a language are one fallback chain at run time (a `Msg`
    does not carry its domain), so the first domain's translation wins."""
    seen: dict[str, dict[tuple[str, ...], list[str]]] = {}
    for domain in ACTIVE:
        for message in _entries(cats.load(domain, lang)):
            if all(_forms(message)):
                seen.setdefault(cats.key_of(message), {}).setdefault(_forms(message), []).append(
                    domain
                )
    clashes = {key: found for key, found in seen.items() if len(found) > 1}
    assert not clashes, f"{lang}: same msgid, different translations: {clashes}"


def test_nested_messages_and_lists_are_translated() -> None:
    loyal = msg(
        "You are LOYAL crew ({profession}). Goal: {target} parts before the station "
        "breaks. Find the infiltrators.",
        profession=Msg("medic"),
        target=8,
    )
    assert render(loyal, "nb").startswith("Du er LOJAL (lege). Mål: 8 deler før stasjonen")
    assert render(loyal, "sr").startswith("Ti si LOJALNI član posade (bolničar). Cilj: 8 delova")
    assert render(loyal, "en").startswith("You are LOYAL crew (medic). Goal: 8 parts")
    team = msg(
        "You are an INFILTRATOR ({profession}). The infiltrators are: {names}. "
        "Goal: damage the station without being caught.",
        profession=Msg("radio operator"),
        names=("Ola", Msg(LABELS["nobody"]), 3),
    )
    assert render(team, "nb").startswith(
        "Du er INFILTRATØR (radiooperatør). Infiltratørene er: Ola, Ingen, 3. Mål:"
    )
    assert render(team, "sr").startswith(
        "Ti si INFILTRATOR (radio-operater). Infiltratori su: Ola, Niko, 3. Cilj:"
    )
    title = msg(
        "Round {round} of {rounds}: {mission}.",
        round=2,
        rounds=6,
        mission=Msg("Fetch the drill cores"),
    )
    assert render(title, "sr") == "Krug 2 od 6: Donesite jezgra iz bušotine."


def test_norwegian_labels_are_the_seed_words() -> None:
    assert render(LABELS["send_choice"], "nb") == "Send valget"
    assert render(LABELS["sabotage"], "nb") == "Saboter utstyret"
    assert render(LABELS["send_vote"], "nb") == "Send stemmen"
    assert render(LABELS["nobody"], "nb") == "Ingen"
    assert [render(JOB_NAMES[j], "nb") for j in ("outside", "radio", "guard")] == [
        "ute",
        "radio",
        "vakt",
    ]
    assert len({render(p, "nb") for p in PROFESSIONS}) == len(PROFESSIONS)


@pytest.mark.parametrize(
    ("lang", "forms", "expected"),
    [
        ("nb", 2, {0: 1, 1: 0, 2: 1, 5: 1, 21: 1}),
        ("en", 2, {0: 1, 1: 0, 2: 1, 5: 1, 21: 1}),
        ("sr", 3, {0: 2, 1: 0, 2: 1, 4: 1, 5: 2, 11: 2, 12: 2, 14: 2, 21: 0, 22: 1, 25: 2, 111: 2}),
    ],
)
def test_plural_forms_headers(lang: str, forms: int, expected: dict[int, int]) -> None:
    for domain in ACTIVE:
        catalog = cats.load(domain, lang)
        if catalog is None:
            continue
        assert catalog.num_plurals == forms, (domain, lang)
        choose = gettext.c2py(catalog.plural_expr)
        assert {n: choose(n) for n in expected} == expected, (domain, lang)


def test_every_rendered_domain_has_sources() -> None:
    assert set(cats.DOMAIN_SOURCES) == set(DOMAINS)
    assert {"core", "station"} <= set(ACTIVE)
    core_files = {p.relative_to(cats.ROOT).as_posix() for p in cats.source_files("core")}
    assert "gameflow/core/engine.py" in core_files
    assert "gameflow/replay.py" in core_files
    assert not any(f.startswith("gameflow/games/") for f in core_files)


SAMPLE = """
from gameflow.core.text import N_, msg, nmsg

A = msg(N_("Hello {name}, "
           "and welcome."), name="x")
B = nmsg("{n} part", "{n} parts", 3)
C = N_(some_variable)
D = msg(N_("Hello {name}, and welcome."), name="y")
# TRANSLATORS: a job name.
E = N_("outside")
"""


def _sample_root(tmp_path: Path, source: str = SAMPLE) -> Path:
    folder = tmp_path / "gameflow" / "games" / "station"
    folder.mkdir(parents=True)
    (folder / "sample.py").write_text(source)
    return tmp_path


def test_extraction_joins_literals_finds_nested_and_plural_calls(tmp_path: Path) -> None:
    root = _sample_root(tmp_path)
    found = cats.extract("station", root)
    assert list(found) == ["Hello {name}, and welcome.", "{n} part", "outside"]
    assert found["{n} part"].id == ("{n} part", "{n} parts")
    assert [line for _, line in found["Hello {name}, and welcome."].locations] == [4, 8]
    assert found["outside"].comments == ("a job name.",)


def test_update_adds_keeps_and_drops_entries(tmp_path: Path) -> None:
    root = _sample_root(tmp_path)
    locales = tmp_path / "locales"
    first = cats.update(domains=["station", "traitors"], root=root, locales=locales)
    assert [(c.domain, c.lang, len(c.added)) for c in first] == [
        ("station", "nb", 3),
        ("station", "sr", 3),
        ("station", "en", 3),
    ]
    en = cats.load("station", "en", locales)
    sr = cats.load("station", "sr", locales)
    assert en is not None and sr is not None
    assert en.get("outside").string == "outside"
    assert sr.get("{n} part").string == ("", "", "")
    # Translate one entry, change the source: the translation survives, the old
    # text goes, the new one arrives empty, and a second run changes nothing.
    sr.get("outside").string = "teren"
    cats.po_path("station", "sr", locales).write_bytes(cats.render_po(sr))
    source = root / "gameflow" / "games" / "station" / "sample.py"
    source.write_text(SAMPLE.replace('"{n} part", "{n} parts"', '"one crate", "{n} crates"'))
    second = {c.lang: c for c in cats.update(domains=["station"], root=root, locales=locales)}
    assert second["sr"].added == ("one crate",)
    assert second["sr"].removed == ("{n} part",)
    assert "one crate" in second["sr"].untranslated and "outside" not in second["sr"].untranslated
    again = cats.update(domains=["station"], root=root, locales=locales)
    assert not any(c.rewritten for c in again)
    reloaded = cats.load("station", "sr", locales)
    assert reloaded is not None and reloaded.get("outside").string == "teren"
    assert reloaded.get("{n} part") is None
