"""The status page on a phone, in portrait (issue #21 item 3): a campaign
player at home has what a TV gives the table.

The same screens as tests/test_tv_layout.py (every screen of all three games,
the smallest and the largest table, long names, nb/sr/en), at two phone
portrait viewports (360x740 and 412x915), with its measure adapted to a page
that scrolls: horizontally each element lies inside the viewport and inside
every clipping ancestor, and the document is no wider than the viewport (no
sideways scrolling); vertically the page may be taller than the screen, but
nothing may lie above its top. No block is larger than its box, no text ends
in an ellipsis, no short text breaks across lines. So that this cannot pass on
the TV layout by accident, each screen must also be in its phone layout: one
column (the side panel below the main column, both as wide as the page), the
page scrolling instead of being held to the viewport. Full-page screenshots
(360x740) go to tests/artifacts/phone/ for review. One browser for the module.
"""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from adapters.tv.screens import render_screen
from bench import tv_games as demo
from gameflow.core.engine import view
from tests import chromium, test_tv_layout
from tests.test_tv_layout import (
    INFO,
    MEASURE,
    SWAP,
    all_screens,
    each_screen,
    every_table,
    long_names,
    open_frames,
    screens,
)

browser = chromium.browser  # the fixture: one browser per module
served = test_tv_layout.served  # the fixture: one status-page server per module

pytestmark = pytest.mark.statuspage

ARTIFACTS = Path(__file__).resolve().parent / "artifacts" / "phone"
PHONES = ((360, 740), (412, 915))

# The TV's measure with no bottom edge: a phone scrolls down, never sideways.
_VIEWPORT = "const W = window.innerWidth, H = window.innerHeight,"
assert _VIEWPORT in MEASURE, "tests/test_tv_layout.py's MEASURE changed: adapt the phone's"
PHONE_MEASURE = MEASURE.replace(_VIEWPORT, "const W = window.innerWidth, H = Infinity,")

# Is the page in its phone layout? Facts about the boxes, checked in Python.
LAYOUT = """() => {
  const box = (el) => { if (!el) return null; const r = el.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width,
      qr: el.classList.contains('lobby-qr')}; };
  const screen = document.querySelector('#screen');
  const section = screen.querySelector('section');
  return {
    width: window.innerWidth,
    height: window.innerHeight,
    scrollWidth: document.documentElement.scrollWidth,
    scrollHeight: document.documentElement.scrollHeight,
    bodyOverflowY: getComputedStyle(document.body).overflowY,
    rootFont: parseFloat(getComputedStyle(document.documentElement).fontSize),
    section: section.className,
    columns: getComputedStyle(section).gridTemplateColumns.split(' ').length,
    // a game's two columns, whatever it calls them (.main-col and .side-col)
    main: section.children.length === 2 ? box(section.children[0]) : null,
    side: section.children.length === 2 ? box(section.children[1]) : null,
    parts: [...section.children].map(box),
  };
}"""


def phone_layout(facts: dict[str, Any], width: int) -> list[str]:
    """What makes the screen not a phone's one-column layout."""
    faults = []
    if facts["width"] != width:  # a mobile browser widens a page that overflows
        faults.append(f"the page is {facts['width']}px wide, not the phone's {width}")
    if facts["scrollWidth"] > width:
        faults.append(f"scrolls sideways: {facts['scrollWidth']} > {width}")
    if facts["bodyOverflowY"] == "hidden":
        faults.append("the page cannot scroll (body overflow-y: hidden)")
    if facts["columns"] != 1:
        faults.append(f"{facts['section']}: {facts['columns']} grid columns, not one")
    if not 13 <= facts["rootFont"] <= 20:
        faults.append(f"type sized {facts['rootFont']}px, not for a phone")
    parts = [p for p in facts["parts"] if p and p["width"] > 0]
    for upper, lower in pairwise(parts):
        if lower["top"] < upper["bottom"] - 1:
            faults.append(f"{facts['section']}: its parts are side by side, not one column")
    for part in parts:  # the lobby's QR code: a square, centred
        if part["qr"] and abs(part["left"] + part["right"] - width) > 2:
            faults.append(f"the QR code is not centred: {part['left']:.0f}-{part['right']:.0f}")
        elif not part["qr"] and part["width"] < 0.85 * width:
            faults.append(f"{facts['section']}: a part {part['width']:.0f}px wide of {width}")
    if "lobby" not in facts["section"] and not (facts["main"] and facts["side"]):
        faults.append(f"{facts['section']}: no main column and side panel")
    return faults


@every_table
def test_the_phone_layout_clips_nothing(
    browser: Any, served: Any, kind: str, players: int, lang: str
) -> None:
    shots = all_screens(kind, players, lang)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    width, height = PHONES[0]
    page = browser.new_page(viewport={"width": width, "height": height}, is_mobile=True)
    faults: list[tuple[str, ...]] = []
    try:
        # The lobby as a phone opens the link; the other screens as the live
        # page's script swaps them in with each event (as in test_tv_layout).
        frames = open_frames(page, served, shots, f"phone-{kind}-{players}-{lang}")
        for width, height, name in each_screen(page, frames, PHONES):
            page.evaluate("() => window.scrollTo(0, 0)")
            where = f"{kind}/{players}/{lang}/{width}x{height}/{name}"
            found = page.evaluate(PHONE_MEASURE)
            faults.extend((where, *map(str, f)) for f in found)
            faults.extend((where, f) for f in phone_layout(page.evaluate(LAYOUT), width))
            if width == PHONES[0][0]:
                shot = ARTIFACTS / f"{kind}-{players}-{lang}-{name}.png"
                page.screenshot(path=str(shot), full_page=True)
    finally:
        page.close()
    assert not faults, "\n".join(" | ".join(f) for f in faults)


def test_the_checks_see_a_tv(browser: Any, served: Any) -> None:
    """The phone checks fail on the TV layout (a landscape screen), so passing
    above means the phone layout was really in use."""
    server, source, clock = served
    shots = screens("station", 5, "en")
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        lobby = long_names(shots["lobby"]._replace(id="phone-tv-check"))
        server.publish(lobby, INFO)
        page.goto(server.url(server.call(lambda: source.issue(lobby.id))))
        page.wait_for_selector("#screen .bar")
        for name in ("lobby", "mission"):
            game = long_names(shots[name]._replace(id=f"phone-tv-check-{name}"))
            clock.now = (game.phase.started or demo.EPOCH) + 95
            page.evaluate(SWAP, render_screen(view(game, None), INFO, clock.now))
            faults = phone_layout(page.evaluate(LAYOUT), 1280)
            assert any("grid columns, not one" in f for f in faults), (name, faults)
            assert any("cannot scroll" in f for f in faults), (name, faults)
    finally:
        page.close()


def test_the_calendar_link_is_on_the_phone_page_and_off_the_tv(browser: Any, served: Any) -> None:
    """A campaign's page links its calendar below the screen: on a phone (the
    page scrolls to it); on a TV it takes no room (the TV page never scrolls)."""
    server, source, clock = served
    game = demo.traitors_game(6, seed="phone-calendar", lang="en")
    states = list(game)
    running = next(g for g in states if g.running)._replace(id="phone-calendar")
    assert running.option("pacing") == "campaign"
    clock.now = (running.phase.started or demo.EPOCH) + 95
    server.publish(running, INFO)
    url = server.url(server.call(lambda: source.issue(running.id)))
    for (width, height), shown in (((412, 915), True), ((1920, 1080), False)):
        page = browser.new_page(viewport={"width": width, "height": height})
        try:
            page.goto(url)
            page.wait_for_selector("#screen .bar")
            link = page.locator(".calendar a")
            assert link.count() == 1
            assert link.is_visible() is shown, (width, height)
            assert link.get_attribute("href") == "?calendar"
            if not shown:
                size = page.evaluate("() => document.documentElement.scrollHeight")
                assert size <= height, size
        finally:
            page.close()
