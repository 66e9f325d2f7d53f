"""The TV page's headers and the lobby's SMS line (issue #18 item 7).

- Every header names the game from the catalog in the game's language (no
  "Station" on an nb or sr page), with a translated phase name for every
  phase the games go through; a display name the host gave wins.
- With SMS on, the lobby shows the service's number (as people dial it) and
  the text to send, `JOIN CODE name` in the game's language; the SMS gateway's
  own grammar reads that text, with a name put in, as joining that game. With
  SMS off (no number) it shows no SMS line.
Games come from the real embedded store through `StoreSource`, as in `serve`.
"""

from __future__ import annotations

import asyncio
import re
from html import unescape
from pathlib import Path

import pytest

from adapters.sms.grammar import parse
from adapters.store.sqlite_store import SqliteStore
from adapters.tv.screens import render_page, render_screen
from adapters.tv.source import JoinInfo
from adapters.tv.store_source import StoreSource
from adapters.tv.texts import TEXTS
from bench import tv_games as demo
from gameflow.core import actions as A
from gameflow.core import registry
from gameflow.core.engine import apply, new_game, view
from gameflow.core.result import Accepted
from gameflow.i18n import render

pytestmark = pytest.mark.statuspage

ENGLISH = {"station": "Station", "resistance": "Resistance", "traitors": "Traitors"}
NUMBER = "+4759440000"


def text_of(html: str, cls: str) -> str:
    """The text of the first element with class `cls` (tags stripped)."""
    m = re.search(rf'class="{cls}[^"]*"[^>]*>(.*?)</(?:div|p)>', html, re.S)
    assert m is not None, cls
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", m.group(1))).split())


def lobby_page(tmp_path: Path, kind: str, lang: str, sms: str | None) -> tuple[str, str]:
    """A fresh game's lobby as `serve` shows it, and its join code."""

    async def main() -> tuple[str, str]:
        store = SqliteStore(str(tmp_path / f"{kind}-{lang}.sqlite3"))
        try:
            game = new_game(kind, f"g-{kind}-{lang}", demo.HOST, "seed", lang=lang)
            joined = apply(game, A.Join("tg:1", None, "Ana"), demo.EPOCH)
            assert isinstance(joined, Accepted)
            assert await store.create(joined.state)
            code = "HXQH"
            assert await store.claim_code(code, joined.state.id)
            source = StoreSource(store, sms_number=sms, telegram_bot="MuldvarpBot")
            shown = await source.game_for_token(await source.issue(joined.state.id))
            assert shown is not None
            info = await source.join_info(shown.id)
            return render_page(view(shown, None), info, demo.EPOCH), code
        finally:
            await store.close()

    return asyncio.run(main())


@pytest.mark.parametrize("lang", ["nb", "sr", "en"])
@pytest.mark.parametrize("kind", ["station", "resistance", "traitors"])
def test_the_lobby_names_the_game_and_shows_sms_joining(
    tmp_path: Path, kind: str, lang: str
) -> None:
    html, code = lobby_page(tmp_path, kind, lang, NUMBER)
    name = render(registry.get(kind).words.name, lang)
    assert text_of(html, "bar-title") == name
    assert text_of(html, "kind") == name
    if lang != "en":
        assert name != ENGLISH[kind]
        assert ENGLISH[kind] not in text_of(html, "bar-title")
    assert text_of(html, "sms-lead") == render(TEXTS["sms_join"], lang)
    assert text_of(html, "sms-number").endswith("+47 59 44 00 00")
    shown = text_of(html, "sms-text")
    word, shown_code, placeholder = shown.split()
    assert shown_code == code
    assert word == {"nb": "DELTA", "sr": "UĐI", "en": "JOIN"}[lang]
    assert placeholder == {"nb": "navn", "sr": "ime", "en": "name"}[lang]
    # what the player types from it (their own name for the stand-in) joins
    typed = f"{word} {code} Åse Lid"
    assert parse(typed).kind == "join" and parse(typed).args == (code, "Åse Lid")
    assert parse(f"{word.lower()} {code.lower()} Åse Lid").args == (code, "Åse Lid")


def test_no_sms_line_while_sms_is_off(tmp_path: Path) -> None:
    html, code = lobby_page(tmp_path, "station", "nb", None)
    assert code in html
    assert 'class="sms' not in html
    assert "DELTA" not in html


def test_a_display_name_wins_and_an_odd_number_is_shown_as_given() -> None:
    game = demo.lobby(5, lang="sr")
    info = JoinInfo(name="Petkom uveče", code="KRILL7", sms_number="Muldvarp")
    html = render_page(view(game, None), info, demo.EPOCH)
    assert text_of(html, "bar-title") == "Petkom uveče"
    assert text_of(html, "sms-number") == "na broj Muldvarp"


@pytest.mark.parametrize("lang", ["nb", "sr"])
def test_every_header_of_every_phase_is_translated(lang: str) -> None:
    games = {
        "station": demo.bot_game(7, seed="hdr", lang=lang),
        "resistance": demo.resistance_game(7, seed="hdr", lang=lang),
        "traitors": demo.traitors_game(8, seed="hdr", lang=lang),
    }
    info = JoinInfo(name="", code="KRILL7")
    for kind, states in games.items():
        phases = set()
        for game in states:
            pub = view(game, None)
            html = render_screen(pub, info)
            phase = game.phase.name
            phases.add(phase)
            name = render(registry.get(kind).words.name, lang)
            assert text_of(html, "bar-title") == name, (kind, phase)
            label = text_of(html, "bar-phase")
            # the page's own phases (lobby, over) or the game's (its tv_texts)
            texts = {**registry.get(kind).words.tv_texts, **TEXTS}
            assert f"phase_{phase}" in texts, phase
            assert label == render(texts[f"phase_{phase}"], lang)
            english = render(texts[f"phase_{phase}"], "en")
            if label == english:  # only where both languages say it alike
                assert english in {"Plan", "Status"}, (kind, phase, label)
        assert {"lobby", "over"} <= phases and len(phases) >= 4, (kind, phases)


def test_a_plan_without_radio_gets_no_radio_line() -> None:
    """'Radio: 2 of 0' was shown after a plan that needed no radio."""
    game = next(
        g for g in demo.bot_game(7, seed="radio", lang="en") if g.phase.name == "discussion"
    )
    pub = view(game, None)
    html = render_screen(pub, None)
    assert "Radio:" in text_of(html, "result")
    pub["station"]["result"]["radio_needed"] = 0
    pub["station"]["result"]["radio"] = 2
    html = render_screen(pub, None)
    assert "Radio:" not in html and "Outside:" in html
