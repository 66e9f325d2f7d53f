"""No TV screen leaves most of the screen empty (issue #32, item 4).

A TV across the room is read from the sofa: a screen that fills a third of it
with a few lines wastes the rest. Every game's screens (its lobby, each
mid-game screen the layout tests know, its end) and the Traitors' campaign
screens (with the day's schedule and clock-time deadlines), at 1920x1080 and
1280x720 in Debian's headless chromium: the share of the viewport covered by
content boxes (text, as its lines' boxes; the QR code; every element painted
with a background: panels, cards, tiles) must be at least half. The end's
fair-deal line (the seed) is at least 28 px high at 1080p, and the campaign
screens are as unclipped as the layout tests ask of the others
(tests/test_tv_layout.py's measure).
"""

from __future__ import annotations

from typing import Any

import pytest

from adapters.tv.schedule import public
from adapters.tv.screens import render_screen
from bench import tv_campaign
from gameflow.core.state import Game
from tests import chromium, test_tv_layout
from tests.test_tv_layout import INFO, MEASURE, SWAP, each_screen, long_names, screens

browser = chromium.browser  # the fixture: one browser per module
served = test_tv_layout.served  # the fixture: one status-page server per module

pytestmark = pytest.mark.statuspage

VIEWPORTS = ((1920, 1080), (1280, 720))
LEAST = 0.5  # the share of the screen content must cover
SOFA_PX = 28.0  # the fair-deal line's least font size at 1080p

# The share of the viewport under content boxes, sampled every 8 px.
COVERED = """() => {
  const W = window.innerWidth, H = window.innerHeight, rects = [];
  const root = document.querySelector('#screen');
  const clear = (c) => !c || c === 'transparent' || /rgba\\(.*,\\s*0\\)$/.test(c);
  for (const el of root.querySelectorAll('*')) {
    const cs = getComputedStyle(el);
    if (cs.display === 'none' || cs.visibility === 'hidden') continue;
    const tag = el.tagName.toLowerCase();
    if (el.closest('svg') && tag !== 'svg') continue;
    if (tag === 'svg' || tag === 'img' || !clear(cs.backgroundColor) || cs.backgroundImage !== 'none') {
      rects.push(el.getBoundingClientRect());
    }
  }
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (!n.textContent.trim() || n.parentElement.closest('svg')) continue;
    const range = document.createRange();
    range.selectNodeContents(n);
    for (const q of range.getClientRects()) rects.push(q);
  }
  const step = 8;
  let hit = 0, all = 0;
  for (let y = step / 2; y < H; y += step) {
    for (let x = step / 2; x < W; x += step) {
      all++;
      for (const r of rects) {
        if (x >= r.left && x < r.right && y >= r.top && y < r.bottom) { hit++; break; }
      }
    }
  }
  return hit / all;
}"""

# The font size (px) of the smallest element whose own text holds `seed`, or 0.
SEED_PX = """(seed) => {
  let size = 0;
  for (const el of document.querySelectorAll('#screen *')) {
    const own = [...el.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join('');
    if (own.includes(seed)) size = parseFloat(getComputedStyle(el).fontSize);
  }
  return size;
}"""


def cases() -> list[tuple[str, dict[str, Game]]]:
    """Every game at its smallest table, and the Traitors' campaign."""
    out = [
        (kind, screens(kind, n, "en"))
        for kind, n in (("station", 5), ("resistance", 5), ("traitors", 6))
    ]
    out.append(("traitors-campaign", tv_campaign.campaign_screens(8, seed="fill", lang="en")))
    out.append(("traitors-campaign-15", tv_campaign.campaign_screens(15, seed="fill", lang="sr")))
    return out


CASES = cases()


def frames(page: Any, served: Any, shots: dict[str, Game], prefix: str) -> dict[str, str]:
    """Open the lobby's page as a TV opens it; every screen's HTML as the
    event stream brings it (with a campaign's clock facts, as the app adds them)."""
    server, source, clock = served
    out = {}
    for name, game in shots.items():
        game = long_names(game._replace(id=f"{prefix}-{name}"))
        clock.now = (game.phase.started or tv_campaign.START) + 95
        out[name] = render_screen(public(game), INFO)
        if name == "lobby":
            server.publish(game, INFO)
            page.goto(server.url(server.call(lambda g=game: source.issue(g.id))))
            page.wait_for_selector("#screen .bar")
    return out


@pytest.mark.parametrize(("case", "shots"), CASES, ids=[c for c, _ in CASES])
def test_no_screen_leaves_most_of_the_tv_empty(
    browser: Any, served: Any, case: str, shots: dict[str, Game]
) -> None:
    assert {"lobby", "end"} <= set(shots) and len(shots) >= 3, sorted(shots)
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    empty, faults, seeds = [], [], []
    try:
        html = frames(page, served, shots, f"fill-{case}")
        for width, height, name in each_screen(page, html, VIEWPORTS):
            share = page.evaluate(COVERED)
            if share < LEAST:
                empty.append(f"{case}/{name}/{width}x{height}: {share:.0%} covered")
            if "campaign" in case:
                faults.extend(
                    f"{case}/{name}/{width}x{height}: {f}" for f in page.evaluate(MEASURE)
                )
            if name == "end" and height == 1080:
                seeds.append((case, page.evaluate(SEED_PX, shots["end"].seed)))
    finally:
        page.close()
    assert not empty, "\n".join(empty)
    assert not faults, "\n".join(faults)
    small = [(c, px) for c, px in seeds if px < SOFA_PX]
    assert not small, f"the fair-deal line is too small to read from the sofa: {small}"


def test_the_measure_tells_an_empty_screen(browser: Any, served: Any) -> None:
    """The measure itself: a screen of one short line is mostly empty, and
    the lobby's three panels are not."""
    shots = screens("traitors", 6, "en")
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    try:
        frames(page, served, {"lobby": shots["lobby"]}, "fill-measure")
        full = page.evaluate(COVERED)
        page.evaluate(SWAP, "<h1>Day 2</h1>")
        bare = page.evaluate(COVERED)
    finally:
        page.close()
    assert bare < 0.05 < LEAST < full, (bare, full)
