"""The game master's console in Debian's headless Chromium (issue #32 item 1),
for all three games, on a phone (390x844) and a laptop (1280x720): the page
from its private link fits the screen with tap-sized controls; a control
opens with its line of help, applies through the game service once confirmed,
and the live stream swaps in what can be done next; a control that cannot
apply is not on the page; one game's console never shows another game; a
wrong or rotated link gets 404 (an open page goes dark); a form posted from
another site is refused; the Traitors' night votes reach the non-playing game
master's console as they come in, and neither the playing host's console nor
the TV. Screenshots go to tests/artifacts/console/. The whole app (bots.app)
serves on loopback over the embedded store."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gameflow.core.state import Game
from gameflow.games.traitors.actions import Murder
from gameflow.games.traitors.state import ACTIVE, NIGHT, TRAITOR
from tests import chromium
from tests.console_helpers import Clock, Served, made, path_of, runtime, until_phase

browser = chromium.browser  # the fixture: one browser per module

pytestmark = pytest.mark.statuspage

ARTIFACTS = Path(__file__).resolve().parent / "artifacts" / "console"
VIEWPORTS = ((390, 844), (1280, 720))
GAMES = ("station", "resistance", "traitors")

# What makes the page hard to use on this screen: sideways scrolling, parts
# outside the viewport, small type, small tap targets.
MEASURE = """() => {
  const W = window.innerWidth;
  const box = (e) => e.getBoundingClientRect();
  const shown = (e) => { const r = box(e); return r.width > 0 && r.height > 0; };
  const all = [...document.querySelectorAll('body *')].filter(shown);
  return {
    width: W,
    scrollWidth: document.documentElement.scrollWidth,
    outside: all.filter(e => box(e).left < -1 || box(e).right > W + 1)
      .map(e => e.tagName + '.' + e.className),
    smallText: all.filter(e => e.childNodes.length && [...e.childNodes].some(
        n => n.nodeType === 3 && n.textContent.trim()) &&
        parseFloat(getComputedStyle(e).fontSize) < 14)
      .map(e => e.tagName + ': ' + e.textContent.trim().slice(0, 30)),
    smallTargets: [...document.querySelectorAll('summary, button')].filter(shown)
      .filter(e => box(e).height < 44).map(e => e.textContent.trim()),
  };
}"""


@pytest.fixture(scope="module")
def clock() -> Clock:
    return Clock()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, clock: Clock) -> Iterator[Served]:
    rt = runtime(tmp_path_factory.mktemp("console"), clock=clock, keepalive=0.5)
    with Served(rt) as server:
        yield server


def link(served: Served, game: Game, rotate: bool = False) -> str:
    return served.base + path_of(served.run(served.rt.console_link(game, rotate)))


def kinds(page: Any) -> list[str]:
    return list(page.eval_on_selector_all("details.control", "els => els.map(e => e.dataset.kind)"))


def faults(page: Any) -> list[str]:
    m = page.evaluate(MEASURE)
    out = []
    if m["scrollWidth"] > m["width"]:
        out.append(f"scrolls sideways: {m['scrollWidth']} > {m['width']}")
    out += [f"outside the screen: {x}" for x in m["outside"]]
    out += [f"small text: {x}" for x in m["smallText"]]
    out += [f"small tap target: {x}" for x in m["smallTargets"]]
    return out


def confirm(page: Any, kind: str) -> str:
    """Open control `kind`, check its help and confirmation, confirm; the notice."""
    control = page.locator(f'details.control[data-kind="{kind}"]')
    if control.get_attribute("open") is None:  # closed: open it
        control.locator("summary").click()
    help_line = control.locator("p.help")
    help_line.wait_for(state="visible")
    assert help_line.inner_text().strip().endswith(".")
    page.wait_for_function("() => document.getElementById('notice').textContent === ''")
    control.locator("button.confirm").click()
    page.wait_for_function("() => document.getElementById('notice').textContent !== ''")
    text: str = page.inner_text("#notice")
    page.evaluate("() => { document.getElementById('notice').textContent = ''; }")
    return text


@pytest.mark.parametrize("size", VIEWPORTS, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("kind", GAMES)
def test_a_control_applies_through_the_service_and_the_page_follows(
    browser: Any, served: Served, kind: str, size: tuple[int, int]
) -> None:
    game = served.run(made(served.rt, kind))
    width, height = size
    page = browser.new_page(viewport={"width": width, "height": height}, is_mobile=width < 800)
    try:
        page.goto(link(served, game))
        assert "pause" in kinds(page) and "resume" not in kinds(page)
        if kind != "traitors":  # nobody has answered yet (the Traitors' first
            # mission is the game master's to score: nobody owes it an answer)
            assert "advance_early" not in kinds(page)
        text = " ".join(page.inner_text("#live").split())
        assert all(name in text for name in game.names)
        if kind == "traitors":  # the game master plays no role: every secret
            assert "you see every secret" in text and "Roles" in text
        else:
            assert "you see only what the table sees" in text and "Roles" not in text
            assert "Answered: 0 of " in text  # the table's count, as the TV shows it
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{kind}-{width}x{height}.png"), full_page=True)
        assert faults(page) == [], faults(page)

        assert confirm(page, "pause") == "Done: Pause"
        assert served.load(game.id).phase.paused
        # the stream swaps in what applies now: resume, no pause
        page.wait_for_selector('details.control[data-kind="resume"]')
        assert "pause" not in kinds(page)
        page.locator('details.control[data-kind="resume"] summary').click()
        assert faults(page) == [], faults(page)  # an open control fits too
        page.locator('details.control[data-kind="resume"] button.cancel').click()
        assert served.load(game.id).phase.paused is not False  # cancel changed nothing
        assert confirm(page, "resume") == "Done: Resume"
        assert not served.load(game.id).phase.paused
        page.wait_for_selector('details.control[data-kind="pause"]')
        if kind == "traitors":  # the game master's own controls, with and without fields
            assert confirm(page, "murder_free") == "Done: Murder-free night"
            assert served.load(game.id).rules.murder_free
            page.wait_for_function(
                "() => !document.querySelector('details.control[data-kind=\"murder_free\"]')"
            )
            recruit = page.locator('details.control[data-kind="recruit"]')
            recruit.locator("summary").click()
            recruit.get_by_label("yes").check()
            assert confirm(page, "recruit") == "Done: Recruitment"
            assert served.load(game.id).rules.recruit
            score = page.locator('details.control[data-kind="score"]')
            score.locator("summary").click()
            assert "silver it earned" in score.locator(".help").inner_text()
            score.get_by_label("25", exact=True).check()
            for name in game.names[:2]:
                score.get_by_label(name, exact=True).check()
            assert confirm(page, "score") == "Done: Score the mission"
            st = served.load(game.id).rules
            assert st.mission.silver == 25
            assert st.mission.scored and [game.names[s] for s in st.mission.access] == list(
                game.names[:2]
            )
    finally:
        page.close()


def test_one_games_console_never_shows_another_game(browser: Any, served: Served) -> None:
    one = served.run(made(served.rt, "station", names=("Ana", "Bo", "Cy", "Dag", "Eli")))
    other = served.run(made(served.rt, "resistance", names=("Per", "Kari", "Ola", "Liv", "Siv")))
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True)
    spare = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True)
    try:
        page.goto(link(served, one))
        spare.goto(link(served, other))
        assert confirm(spare, "pause") == "Done: Pause"  # the other game changes
        spare.wait_for_selector('details.control[data-kind="resume"]')
        time.sleep(0.6)  # a stream tick later, this console is still its own game's
        text = " ".join(page.inner_text("#live").split())
        assert "Station" in text and "Resistance" not in text
        assert not any(n in text for n in other.names), text
        assert "resume" not in kinds(page) and not served.load(one.id).phase.paused
    finally:
        page.close()
        spare.close()


def test_a_wrong_or_rotated_link_gets_404(browser: Any, served: Served) -> None:
    game = served.run(made(served.rt, "resistance"))
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True)
    try:
        url = link(served, game)
        wrong = url[:-4] + ("AAAA" if not url.endswith("AAAA") else "BBBB")
        assert page.goto(wrong).status == 404
        assert "not valid" in page.inner_text("body")
        assert page.goto(url).status == 200
        link(served, game, rotate=True)  # the host sends /console new
        # the open page's stream ends at its next tick and the page reloads to 404
        page.wait_for_function("() => document.body.innerText.includes('not valid')", timeout=5000)
        assert page.goto(url).status == 404
    finally:
        page.close()


def test_a_form_posted_from_another_site_is_refused(browser: Any, served: Served) -> None:
    game = served.run(made(served.rt, "station"))
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        url = link(served, game)
        page.goto(url)
        csrf = page.get_attribute('meta[name="csrf"]', "content")
        # even with the page's own CSRF token, from another origin it is refused
        page.goto("about:blank")
        page.set_content(
            f'<form method="post" action="{url}"><input name="csrf" value="{csrf}">'
            '<input name="rid" value="cross-site-01"><input name="kind" value="pause">'
            "<button>go</button></form>"
        )
        with page.expect_navigation() as nav:
            page.click("button")
        assert nav.value is not None and nav.value.status == 403
        assert not served.load(game.id).phase.paused
        assert served.load(game.id).version == game.version
    finally:
        page.close()


def test_night_votes_reach_only_the_non_playing_game_masters_console(
    browser: Any, served: Served, clock: Clock
) -> None:
    rt = served.rt
    setup = {"roles": {"tg:100": TRAITOR, "tg:101": TRAITOR}}
    gm_game = served.run(made(rt, "traitors", setup=setup))
    played = served.run(made(rt, "traitors", host_plays=True, setup={"roles": {"tg:100": TRAITOR}}))
    pages = {}
    try:
        for name, game in (("gm", gm_game), ("played", played)):
            served.run(until_phase(rt, clock, game.id, (NIGHT,)))
            page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True)
            page.goto(link(served, game))
            pages[name] = page
        tv = browser.new_page(viewport={"width": 1280, "height": 720})
        pages["tv"] = tv
        tv.goto(f"{served.base}/tv/{served.run(rt.tv.issue(played.id))}")
        before = {k: " ".join(p.inner_text("body").split()) for k, p in pages.items()}
        assert "Night votes" not in before["gm"]
        voted = {}
        for game in (gm_game, played):
            now = served.load(game.id)
            st: Any = now.rules
            active = [s for s in range(len(now.players)) if st.status[s] == ACTIVE]
            traitor = next(s for s in active if st.role[s] == TRAITOR)
            victim = next(s for s in active if st.role[s] != TRAITOR and now.players[s] != now.host)
            vote = Murder(now.players[traitor], now.phase.seq, now.players[victim])
            out = served.run(rt.service.submit(game.id, vote))
            assert out.accepted, out.rejected
            voted[game.id] = f"{now.names[traitor]}: Murder {now.names[victim]}"
        gm = pages["gm"]
        gm.wait_for_function("() => document.body.innerText.includes('Night votes')")
        assert voted[gm_game.id] in gm.inner_text("body")
        time.sleep(1.2)  # streams and the TV's poll have had their turn
        for name in ("played", "tv"):
            after = " ".join(pages[name].inner_text("body").split())
            assert after == before[name] or re.sub(r"\d", "", after) == re.sub(
                r"\d", "", before[name]
            )
            assert "Night votes" not in after
            assert voted[played.id] not in after and voted[gm_game.id] not in after
        gm.screenshot(path=str(ARTIFACTS / "traitors-night-gm-390x844.png"), full_page=True)
    finally:
        for p in pages.values():
            p.close()


def test_the_game_master_setting_is_shown_and_followed_live(browser: Any, served: Served) -> None:
    """`game_master` chosen in the lobby: the open console says which kind it
    is and how to change it; set to `plays` and started, the same page (live)
    shows only what the table sees, with no role anywhere."""
    from gameflow.core import actions as A

    rt = served.rt
    lobby = served.run(made(rt, "traitors", start=False))
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True)
    try:
        page.goto(link(served, lobby))
        body = page.inner_text("body")
        assert "you see every secret" in body and "setting game_master" in body
        assert faults(page) == []
        out = served.run(
            rt.service.submit(lobby.id, A.SetOption(lobby.host, None, "game_master", "plays"))
        )
        assert out.accepted, out.rejected
        out = served.run(rt.service.submit(lobby.id, A.Start(lobby.host)))
        assert out.accepted, out.rejected
        page.wait_for_function(
            "() => document.body.innerText.includes('you see only what the table sees')"
        )
        body = page.inner_text("body")
        assert "setting game_master" not in body and "Roles" not in body
        st: Any = out.game.rules
        for s in range(len(out.game.players)):
            assert f"{out.game.names[s]}: {st.role[s]}" not in body
        assert faults(page) == []
        page.screenshot(path=str(ARTIFACTS / "traitors-plays-390x844.png"), full_page=True)
    finally:
        page.close()
