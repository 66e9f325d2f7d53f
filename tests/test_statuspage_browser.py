"""Each Station screen in Debian's headless chromium, from scripted games.

The page is served by a real uvicorn on loopback; Playwright drives
/usr/bin/chromium (never a downloaded browser). Screenshots go to
tests/artifacts/ for review. Without chromium the tests skip locally and fail
under CI (env CI set), so a CI image without it cannot pass silently.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from adapters.tv.app import tag
from adapters.tv.screens import render_screen
from adapters.tv.source import MemorySource
from bench import tv_games as demo
from bench.loopback import LoopbackServer
from gameflow.core import actions as A
from gameflow.core.engine import apply, view
from gameflow.core.result import Accepted
from gameflow.core.state import Game
from tests import chromium
from tests.chromium import Clock

browser = chromium.browser  # the fixture: one browser per module

pytestmark = pytest.mark.statuspage

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"


@pytest.fixture(scope="module")
def clock() -> Clock:
    return Clock()


@pytest.fixture(scope="module")
def served(clock: Clock) -> Iterator[tuple[LoopbackServer, MemorySource]]:
    source = MemorySource()
    with LoopbackServer(source, clock=clock) as server:
        yield server, source


def show(served: tuple[LoopbackServer, MemorySource], clock: Clock, game: Game) -> str:
    server, source = served
    server.publish(game, demo.info())
    clock.now = game.phase.started + 95
    token: str = server.call(lambda: source.issue(game.id))
    return server.url(token)


def screen_text(page: Any) -> str:
    text: str = page.inner_text("#screen")
    return " ".join(text.split())


SIZES = {7: "7", 15: "15"}


def _fits_and_shot(page: Any, name: str) -> None:
    """The page fits a 1920x1080 screen, nothing spilling out; its screenshot
    goes to ARTIFACTS as `name`.png."""
    size = page.evaluate(
        "() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]"
    )
    assert size[0] <= 1920 and size[1] <= 1080
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


@pytest.mark.parametrize(("players", "lang"), [(7, "en"), (15, "nb"), (6, "sr")])
def test_every_station_screen_renders(
    browser: Any, served: Any, clock: Clock, players: int, lang: str
) -> None:
    screens = demo.screens(players, seed=f"shots-{players}", lang=lang)
    assert set(screens) == {"lobby", "mission", "discussion", "vote", "mission_later", "end"}
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    ARTIFACTS.mkdir(exist_ok=True)
    expect = {
        "en": {
            "lobby": ["KRILL7", "Scan to join on Telegram", "JOIN KRILL7", "players have joined"],
            "mission": ["Round 1 of", "Plan 1", "Plan 3", "Guards needed", "ready", "Parts sent"],
            "discussion": ["The mission", "Who did what", "Outside:"],
            "vote": ["Vote: who sits out the next round?", "Who did what"],
            "mission_later": ["Round 2 of", "Round 1:"],
            "end": ["won", "Loyal", "Infiltrators", "The rounds"],
        },
        "nb": {
            "lobby": ["KRILL7", "Skann for å bli med på Telegram", "spillere har blitt med"],
            "mission": ["Runde 1 av", "Plan 1", "Vakter som trengs", "er klare", "Deler sendt"],
            "discussion": ["Oppdraget", "Hvem gjorde hva"],
            "vote": ["Avstemning: hvem skal stå over neste runde?"],
            "mission_later": ["Runde 2 av", "Runde 1:"],
            "end": ["vant", "Lojale", "Infiltratører", "Rundene"],
        },
        "sr": {
            "lobby": ["KRILL7", "Skenirajte", "Pridružil"],
            "mission": ["Krug 1 od", "Plan 1", "Potrebna straža", "Spremno"],
            "discussion": ["Misija", "Ko je šta radio"],
            "vote": ["Glasanje: ko pauzira sledeći krug?"],
            "mission_later": ["Krug 2 od", "Krug 1:"],
            "end": ["Lojalni", "Infiltratori", "Krugovi"],
        },
    }[lang]
    try:
        for name, game in screens.items():
            game = game._replace(id=f"shot-{lang}-{players}-{name}")
            page.goto(show(served, clock, game))
            page.wait_for_selector("#screen .bar")
            text = screen_text(page)
            for needle in expect[name]:
                assert needle in text, (name, needle, text)
            st = game.rules
            names = set(game.names)
            if name != "lobby":
                # the mission title and every player by name, in the game's language
                assert any(n in text for n in names)
            if name in ("mission", "mission_later"):
                assert text.count("?") >= 3  # guards needed stay hidden
                ready = sum(c is not None for c in st.choices)
                assert f"{ready} " in text
            if name == "discussion":
                # the guards the played plan needed are shown; the other two
                # plans' stay hidden (reveal_guards "played", as the seed says)
                shown = view(game, None)["station"]["plans"]
                played = st.outcome.plan
                assert [("guards" in p) for p in shown] == [i == played for i in range(3)]
                assert f"{st.plans[played].guards}" in text and text.count("?") >= 2
                # a radio line only where the played plan needs radio (no "2 of 0")
                assert ("Radio:" in page.inner_text(".result")) == bool(st.plans[played].radio)
            if name == "end":
                infiltrators = {n for n, bad in zip(game.names, st.infiltrator, strict=True) if bad}
                team = page.inner_text(".team-infil")
                assert all(n in team for n in infiltrators)
            html = page.content()
            assert f'lang="{ {"sr": "sr-Latn"}.get(lang, lang) }"' in html
            # 16:9 and nothing spills out of the screen
            _fits_and_shot(page, f"station-{lang}-{players}-{name}")
    finally:
        page.close()


def test_the_page_goes_live_with_javascript(browser: Any, served: Any, clock: Clock) -> None:
    game = demo.lobby(5, game_id="live")
    url = show(served, clock, game)
    server, _ = served
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    try:
        page.goto(url)
        page.wait_for_function("() => window.EventSource !== undefined")
        page.wait_for_timeout(300)  # the stream connects
        marker = page.evaluate("() => { window.__same_page = 1; return 1; }")
        assert marker == 1
        result = apply(game, A.Join("sms:+4791112222", None, "Zora"), demo.EPOCH)
        assert isinstance(result, Accepted)
        server.publish(result.state)
        page.wait_for_function(
            "() => document.querySelector('#screen').innerText.includes('Zora')", timeout=5000
        )
        # the same document, updated in place (no reload), tagged with the new
        # screen's tag (never the game's version: it would count secret inputs)
        assert page.evaluate("() => window.__same_page") == 1
        shown = render_screen(view(result.state, None), demo.info())
        assert page.get_attribute("#screen", "data-version") == tag(
            json.dumps(shown, ensure_ascii=False)
        )
        assert "+4791112222" not in page.content()
        started = apply(result.state, A.Start(demo.HOST), demo.EPOCH + 10)
        assert isinstance(started, Accepted)
        server.publish(started.state)
        page.wait_for_selector(".plans", timeout=5000)
        timer = page.inner_text(".bar-timer")
        assert ":" in timer
        page.screenshot(path=str(ARTIFACTS / "live-after-start.png"))
    finally:
        page.close()


def test_the_page_works_without_javascript(browser: Any, served: Any, clock: Clock) -> None:
    game = next(
        g for g in demo.bot_game(5, seed="nojs", game_id="nojs") if g.phase.name == "mission"
    )
    url = show(served, clock, game)
    context = browser.new_context(
        java_script_enabled=False, viewport={"width": 1920, "height": 1080}
    )
    page = context.new_page()
    try:
        page.goto(url)
        text = screen_text(page)
        assert "Plan 1" in text and "8:25" in text  # rendered on the server, timer included
        html = page.content()
        assert '<noscript><meta http-equiv="refresh" content="5"></noscript>' in html
        page.screenshot(path=str(ARTIFACTS / "no-javascript-mission.png"))
    finally:
        context.close()


@pytest.mark.parametrize(
    ("kind", "players", "lang"),
    [("resistance", 7, "en"), ("traitors", 10, "en"), ("traitors", 12, "nb")],
)
def test_resistance_and_traitors_screens(
    browser: Any, served: Any, clock: Clock, kind: str, players: int, lang: str
) -> None:
    make = demo.resistance_screens if kind == "resistance" else demo.traitors_screens
    screens = make(players, seed=f"shots-{kind}", lang=lang)
    expect = {
        ("resistance", "en"): {
            "proposal": ["picks a team of", "Mission 5", "Rejected teams", "Leader"],
            "team_vote": ["Vote on the team", "Team:", "ready"],
            "mission": ["The team is on the mission", "Team approved"],
            "end": ["won", "Spies"],
        },
        ("traitors", "en"): {
            "mission": ["Day 2 of", "The pot", "silver"],
            "shield_room": ["The shield room"],
            "roundtable": ["The round table", "ready"],
            "night": ["Night falls"],
            "revote": ["A tie", "Candidates"],
            "end": ["won", "In the game"],
        },
        ("traitors", "nb"): {
            "mission": ["Dag 2 av", "Potten", "sølv"],
            "shield_room": ["Skjoldrommet"],
            "roundtable": ["Rundebordet"],
            "night": ["Natten faller på"],
            "revote": ["Uavgjort", "Kandidater"],
            "end": ["vant"],
        },
    }[(kind, lang)]
    assert {"end"} <= set(screens) and len(screens) >= 4
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    try:
        for name, game in screens.items():
            game = game._replace(id=f"shot-{kind}-{lang}-{players}-{name}")
            page.goto(show(served, clock, game))
            text = screen_text(page)
            for needle in expect.get(name, []):
                assert needle in text, (name, needle, text)
            for pid in game.players:
                assert pid not in page.content()
            if name == "end" and kind == "traitors":
                traitors = [
                    n for n, r in zip(game.names, game.rules.role, strict=True) if r == "traitor"
                ]
                assert all(n in text for n in traitors)
            _fits_and_shot(page, f"{kind}-{lang}-{players}-{name}")
    finally:
        page.close()
