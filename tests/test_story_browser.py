"""The game's story page (issue #32, item 6) in Debian's headless Chromium.

For each game, a whole game played by the game's own bots (as
tests/test_reveal_lines.py plays them), in nb, sr or en: before the end its
story's link gives 404, as does a wrong token, once it is over the page shows
every player's role (read from the game's state, not from the story) and each
round's secret actions (Station: who sabotaged; the Resistance: who played Fail,
from the mission cards the players sent; the Traitors: whom they murdered), the
winners and the seed; it steps with the buttons, the arrow keys and autoplay;
at 390x844 (a phone) and 1920x1080 (a TV) no step has anything outside the
viewport's width, and on the TV each step fits the screen (a long one set
smaller, to 65 % at most), in text readable from a sofa. Screenshots go to tests/artifacts/story/ for review.
"""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from adapters.story import StoryPage
from adapters.tv.source import MemorySource
from bench.loopback import LoopbackServer
from gameflow.core.state import Game
from gameflow.core.text import N_, msg
from gameflow.games.resistance import bots as rbots
from gameflow.games.station.balance import start as start_station
from gameflow.games.traitors import bots as tbots
from gameflow.i18n import render
from tests import chromium
from tests.test_reveal_lines import named, resistance_game, station_game, traitors_game

browser = chromium.browser  # the fixture: one browser per module

pytestmark = pytest.mark.statuspage

ARTIFACTS = Path(__file__).resolve().parent / "artifacts" / "story"
PHONE, TV = (390, 844), (1920, 1080)
LANG = {"station": "nb", "resistance": "sr", "traitors": "en"}


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[LoopbackServer, MemorySource]]:
    """The TV page and the story page on one loopback server, as the service mounts them."""
    source = MemorySource()
    server = LoopbackServer(source)
    server.app.router.routes.append(StoryPage(source).mount("/story"))
    with server:
        yield server, source


def status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            code: int = answer.status
            return code
    except urllib.error.HTTPError as error:
        return error.code


# -- whole games and what happened in them -----------------------------------------


def played(kind: str) -> tuple[Game, Game, str, dict[int, set[str]], list[str]]:
    """A running game, the same game played to its end, the msgid of one sort
    of secret action and who did it in each round (by round, from the game's
    inputs and records), and every player's role in the game's language, by seat."""
    lang = LANG[kind]
    did: dict[int, set[str]] = {}
    if kind == "station":
        running, _ = start_station(10, "story-station", lang)
        over = named(station_game(10, "story-station"))._replace(lang=lang)
        text = N_("{name} sabotaged")
        for rec in over.rules.history:
            for s, c in enumerate(rec.choices):
                if c is not None and c.sabotage:
                    did.setdefault(rec.round, set()).add(over.names[s])
        roles = [N_("infiltrator") if bad else N_("loyal crew") for bad in over.rules.infiltrator]
    elif kind == "resistance":
        running = rbots.start_game(10, 9, {"plot_cards": True})
        game, fails = resistance_game(10, 9)
        over = named(game)._replace(lang=lang)
        text = N_("Fail played by {names}")
        seat = {p: s for s, p in enumerate(over.players)}
        for rec in over.rules.results:
            # the cards of the team that went (a team vetoed after its
            # approval may have sent some too)
            by = {over.names[seat[p]] for p in fails.get(rec.mission, ()) if seat[p] in rec.team}
            if by:
                did[rec.mission] = by
        roles = [N_("spy") if spy else N_("resistance") for spy in over.rules.spy]
    else:
        running = tbots.start_game(12, "story-traitors", {})
        game, _ = traitors_game(12, "story-traitors", {}, tempt=True)
        over = named(game)._replace(lang=lang)
        text = N_("the traitors murdered {name}")
        for rec in over.rules.history:
            if rec.murdered >= 0:
                did.setdefault(rec.day, set()).add(over.names[rec.murdered])
        roles = [N_("traitor") if r == "traitor" else N_("loyal") for r in over.rules.role]
    assert did, f"a game without one {text!r} tests nothing"
    assert not running.over and over.over
    return running._replace(id=over.id), over, text, did, [render(r, lang) for r in roles]


def who_did(text: str, lang: str, lines: list[str]) -> set[str]:
    """The names the lines of `text` (one parameter: a name, or names joined
    with ", ") name, among `lines` in `lang`."""
    field = "name" if "{name}" in text else "names"
    head, _, tail = render(msg(text, **{field: "\x00"}), lang).partition("\x00")
    found: set[str] = set()
    for line in lines:
        if line.startswith(head) and line.endswith(tail) and len(line) > len(head + tail):
            found.update(line[len(head) : len(line) - len(tail)].split(", "))
    return found


# -- the page ---------------------------------------------------------------------

SHOWN = """() => [...document.querySelectorAll('.step')]
  .map((s, i) => [i + 1, getComputedStyle(s).display !== 'none'])
  .filter(([, shown]) => shown).map(([i]) => i)"""

STEPS = """() => [...document.querySelectorAll('.step')].map((s) => ({
  title: s.querySelector('h2').textContent.trim(),
  secret: [...s.querySelectorAll('.secret li')].map((li) => li.textContent.trim()),
  public: [...s.querySelectorAll('.public li')].map((li) => li.textContent.trim()),
  cast: [...s.querySelectorAll('.part')].map((p) => ({
    name: p.querySelector('.name').textContent.trim(),
    role: p.querySelector('.role').textContent.replace('▲', '').trim(),
    hidden: p.classList.contains('hidden-side'),
  })),
  text: s.textContent,
}))"""

# What lies outside the viewport's width, and how tall the page is, for the
# step on show: a phone may scroll down, never sideways; a TV never scrolls.
MEASURE = """() => {
  const W = window.innerWidth, faults = [];
  for (const el of document.querySelectorAll('body *')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (r.left < -1 || r.right > W + 1) faults.push([el.tagName, el.className,
      el.textContent.trim().slice(0, 40), Math.round(r.left), Math.round(r.right)]);
    if (el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1 &&
        getComputedStyle(el).display !== 'inline')
      faults.push([el.tagName, el.className, 'wider than its box', el.scrollWidth, el.clientWidth]);
  }
  const nav = document.querySelector('.controls').getBoundingClientRect();
  return {faults, scrollWidth: document.documentElement.scrollWidth,
    scrollHeight: document.documentElement.scrollHeight, navBottom: nav.bottom,
    navShown: nav.height > 0,
    root: parseFloat(getComputedStyle(document.documentElement).fontSize),
    font: parseFloat(getComputedStyle(document.querySelector('.step.current li, .step.current .part') ||
      document.body).fontSize)};
}"""


def where(page: Any) -> str:
    return str(page.locator("#where").text_content())


@pytest.mark.parametrize("kind", ["station", "resistance", "traitors"])
def test_the_story_of_a_whole_game(browser: Any, served: Any, kind: str) -> None:
    server, source = served
    running, over, text, did, roles = played(kind)
    lang = LANG[kind]
    server.publish(running)
    token = server.call(lambda: source.issue(running.id))
    story = f"{server.base}/story/{token}"

    # While the game runs there is no story, and no QR code of one.
    assert status(server.url(token)) == 200  # the TV link itself works
    assert "story-link" not in urllib.request.urlopen(server.url(token)).read().decode()
    assert status(server.url(token, "?story")) == 404
    assert status(story) == 404
    assert status(f"{story}/qr.svg") == 404

    server.publish(over)
    assert status(story) == 200
    assert status(f"{story}/qr.svg") == 200
    # A wrong token (well-formed, or not) finds nothing.
    assert status(f"{server.base}/story/{'x' * 43}") == 404
    assert status(f"{server.base}/story/{token[:-1]}") == 404
    assert status(f"{server.base}/story/..%2F{token}") == 404

    page = browser.new_page(viewport={"width": TV[0], "height": TV[1]})
    try:
        # The TV's end screen links the story, with its QR code, and holds no
        # token: the link goes through the TV page's own address (`?story`).
        page.goto(server.url(token))
        link = page.locator(".story-link")
        assert link.count() == 1
        assert link.inner_text().strip() == render(msg(N_("The game's story")), lang)
        assert token not in page.inner_html("#screen")
        page.wait_for_function("document.querySelector('.story-qr').naturalWidth > 0")
        link.click()
        page.wait_for_load_state()
        assert page.url.split("#")[0] == story, page.url
        steps = page.evaluate(STEPS)
        html_lang = page.evaluate("document.documentElement.lang")
        assert html_lang == {"nb": "nb", "sr": "sr-Latn", "en": "en"}[lang]

        # The first step: every player, with their role from the game's state.
        cast = steps[0]["cast"]
        assert [p["name"] for p in cast] == list(over.names)
        assert [p["role"] for p in cast] == roles
        # The rounds: each round's secret actions, in that round's secret half.
        rounds = steps[1:-1]
        assert len(rounds) == len(
            over.rules.history if kind != "resistance" else over.rules.results
        )
        for n, r in enumerate(rounds, start=1):
            assert who_did(text, lang, r["secret"]) == did.get(n, set()), (n, r)
            assert not who_did(text, lang, r["public"]), (n, r)
        for r in rounds:
            assert r["public"], f"{r['title']}: nothing the table saw"
        # The end: the winners and the seed.
        end = steps[-1]["text"]
        assert over.seed in end
        assert all(over.names[s] in end for s in range(len(over.players)))

        # Stepping: one step at a time, by key, by button, by autoplay.
        total = len(steps)

        def step_of(n: int) -> str:
            return render(msg(N_("{n} of {total}"), n=n, total=total), lang)

        assert page.evaluate(SHOWN) == [1] and where(page) == step_of(1)
        assert page.locator("#prev").is_disabled()
        page.keyboard.press("ArrowRight")
        assert page.evaluate(SHOWN) == [2] and where(page) == step_of(2)
        page.click("#next")
        assert page.evaluate(SHOWN) == [3] and where(page) == step_of(3)
        page.keyboard.press("ArrowLeft")
        page.click("#prev")
        assert page.evaluate(SHOWN) == [1]
        page.keyboard.press("End")
        assert page.evaluate(SHOWN) == [total] and page.locator("#next").is_disabled()
        assert over.seed in str(page.locator(".step.current .seed").text_content())
        page.goto(f"{story}?every=0.6#step-1")
        assert page.evaluate(SHOWN) == [1]
        page.click("#play")
        assert page.get_attribute("#play", "aria-pressed") == "true"
        page.wait_for_function(
            "document.querySelector('.step.current') === document.querySelectorAll('.step')[1]"
        )
        page.click("#play")  # pause
        assert page.get_attribute("#play", "aria-pressed") == "false"
        at = page.evaluate(SHOWN)
        page.wait_for_timeout(1500)
        assert page.evaluate(SHOWN) == at, "paused, but it stepped on"
    finally:
        page.close()

    # Every step on a phone and on a TV: nothing outside the width; the TV's
    # steps fit the screen with the controls on it, in large text.
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for width, height in (PHONE, TV):
        page = browser.new_page(viewport={"width": width, "height": height})
        try:
            for n in range(1, len(steps) + 1):
                page.goto(f"{story}#step-{n}")
                assert page.evaluate(SHOWN) == [n]
                facts = page.evaluate(MEASURE)
                assert not facts["faults"], (width, n, facts["faults"][:5])
                assert facts["scrollWidth"] <= width, (width, n, facts["scrollWidth"])
                assert facts["navShown"] and facts["navBottom"] <= height + 1, (width, n)
                if (width, height) == TV:
                    # a long step is set smaller to fit, never below 65 %
                    assert facts["scrollHeight"] <= height, (n, steps[n - 1]["title"], facts)
                    assert facts["root"] >= 24 and facts["font"] >= 0.64 * facts["root"], facts
                else:
                    assert facts["font"] >= 14, (n, facts["font"])
                if n in (1, 2, len(steps)):
                    page.screenshot(path=str(ARTIFACTS / f"{kind}-{width}x{height}-{n}.png"))
        finally:
            page.close()
