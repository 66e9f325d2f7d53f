"""Nothing on the TV page is clipped, cut or broken (issue #18 item 7).

Every screen of all three games (the lobby, each phase, the end reveal) at the
smallest and the largest table, with long names (12-16 characters, Serbian
and Norwegian letters), in nb, sr and en, at 1280x720 and 1920x1080, in Debian's
headless chromium. The page's own boxes are the reference: each visible
element must lie inside the viewport and inside every ancestor that clips
(overflow other than visible); no block's content may be larger than its box
(scrollWidth/scrollHeight); no text may end in an ellipsis; and no short text
(a name, "(Plan 3)", a count) may break across lines. Screenshots (1920x1080) go
to tests/artifacts/layout/ for review. One browser for the module; one page
per test: the lobby as served, the other screens swapped in as the live
page's script does with each event, then all again at the second viewport.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from adapters.tv.screens import render_screen
from adapters.tv.source import JoinInfo, MemorySource
from bench import tv_games as demo
from bench.loopback import LoopbackServer
from gameflow.core.engine import view
from gameflow.core.state import Game
from tests import chromium
from tests.chromium import Clock

browser = chromium.browser  # the fixture: one browser per module

pytestmark = pytest.mark.statuspage

ARTIFACTS = Path(__file__).resolve().parent / "artifacts" / "layout"
VIEWPORTS = ((1280, 720), (1920, 1080))
LONG = (
    "Aleksandra Ćirić", "Đorđe Petrović", "Bjørnar Wessel", "Milica Živković",
    "Nikola Šćekić", "Jovana Đukanović", "Ingrid Sæther", "Marija Ljubičić",
    "Stefan Čolaković", "Kristoffer Åsheim", "Tijana Đurđević", "Håkon Øvrebø",
    "Wilhelm Wøien", "Solveig Ødegård", "Dušan Radović",
)  # fmt: skip
SIZES = {"station": (5, 15), "resistance": (5, 10), "traitors": (6, 15)}
INFO = JoinInfo(
    name="",
    code="KRILL7",
    telegram_url="https://t.me/MuldvarpBot?start=KRILL7",
    sms_number="+4759440000",
)

# The measurement, run in the page: a list of faults, each [what, element, text].
MEASURE = """() => {
  const W = window.innerWidth, H = window.innerHeight, tol = 1.5, faults = [];
  const root = document.querySelector('#screen');
  const name = (el) => el.tagName.toLowerCase() +
    (typeof el.className === 'string' && el.className.trim()
      ? '.' + el.className.trim().split(/\\s+/).join('.') : '');
  const text = (el) => (el.textContent || '').replace(/\\s+/g, ' ').trim().slice(0, 80);
  const clippers = (el) => {
    const out = [];
    for (let a = el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
      const cs = getComputedStyle(a);
      if (cs.overflowX !== 'visible' || cs.overflowY !== 'visible') out.push(a);
    }
    return out;
  };
  const outside = (r, b) => r.left < b.left - tol || r.top < b.top - tol ||
    r.right > b.right + tol || r.bottom > b.bottom + tol;
  for (const el of root.querySelectorAll('*')) {
    if (el.closest('svg') && el.tagName.toLowerCase() !== 'svg') continue;
    const cs = getComputedStyle(el);
    if (cs.display === 'none' || cs.visibility === 'hidden') continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (outside(r, {left: 0, top: 0, right: W, bottom: H})) {
      faults.push(['outside the viewport', name(el), text(el)]);
    }
    for (const a of clippers(el)) {
      if (outside(r, a.getBoundingClientRect())) {
        faults.push(['clipped by ' + name(a), name(el), text(el)]);
        break;
      }
    }
    if (cs.display !== 'inline' && el.clientWidth > 0 &&
        (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 2)) {
      faults.push(['larger than its box', name(el), text(el),
        [el.scrollWidth, el.clientWidth, el.scrollHeight, el.clientHeight].join(' ')]);
    }
    if (cs.textOverflow === 'ellipsis' && el.scrollWidth > el.clientWidth) {
      faults.push(['cut with an ellipsis', name(el), text(el)]);
    }
  }
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const t = n.textContent.replace(/\\s+/g, ' ').trim();
    // players' own words (reasons, pleas) may wrap like any sentence
    if (!t || t.length > 24 || n.parentElement.closest('svg, .reason, .plea-text')) continue;
    const range = document.createRange();
    range.selectNodeContents(n);
    const lines = new Set([...range.getClientRects()].filter((q) => q.width > 1)
      .map((q) => Math.round(q.top)));
    if (lines.size > 1) faults.push(['broken across lines', name(n.parentElement), t]);
  }
  return faults;
}"""


SWAP = "(html) => { document.querySelector('#screen').innerHTML = html; }"


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[LoopbackServer, MemorySource, Clock]]:
    source = MemorySource()
    clock = Clock()
    with LoopbackServer(source, clock=clock) as server:
        yield server, source, clock


def long_names(game: Game) -> Game:
    return game._replace(names=LONG[: len(game.players)])


def every_table(test: Callable[..., None]) -> Callable[..., None]:
    """The test once per game and table size in SIZES, in each language."""
    tables = [(kind, n) for kind, sizes in SIZES.items() for n in sizes]
    return pytest.mark.parametrize("lang", ["nb", "sr", "en"])(
        pytest.mark.parametrize(("kind", "players"), tables)(test)
    )


def all_screens(kind: str, players: int, lang: str) -> dict[str, Game]:
    """`screens`, checked to hold the lobby, the end and three states at least
    between them."""
    shots = screens(kind, players, lang)
    assert "lobby" in shots and "end" in shots and len(shots) >= 5, sorted(shots)
    return shots


def screens(kind: str, players: int, lang: str) -> dict[str, Game]:
    """The lobby (everyone joined), one state of every phase, and the end."""
    seed = f"layout-{kind}-{players}"
    if kind == "station":
        return demo.screens(players, seed=seed, lang=lang)
    make = demo.resistance_game if kind == "resistance" else demo.traitors_game
    states = list(make(players, seed=seed, lang=lang))
    out = {"lobby": states[0]}
    out.update(
        (demo.resistance_screens if kind == "resistance" else demo.traitors_screens)(
            players, seed=seed, lang=lang
        )
    )
    for game in states:  # phases the helpers leave out (the end vote)
        if game.phase.name != "over":
            out.setdefault(game.phase.name, game)
    return out


def each_screen(
    page: Any, frames: dict[str, str], sizes: Sequence[tuple[int, int]]
) -> Iterator[tuple[int, int, str]]:
    """At each viewport size, every screen swapped into the open page as tv.js
    does on an event: yields the size and the screen's name once it is in."""
    for width, height in sizes:
        page.set_viewport_size({"width": width, "height": height})
        for name, html in frames.items():
            page.evaluate(SWAP, html)
            yield width, height, name


def open_frames(
    page: Any, served: Any, shots: dict[str, Game], prefix: str, names: Sequence[str] = LONG
) -> dict[str, str]:
    """Open the lobby's page as a screen opens the link, and render every
    screen (long `names`) as the live page's event stream would bring it, for
    `SWAP`. Returns the screens' HTML by name."""
    server, source, clock = served
    frames = {}
    for name, game in shots.items():
        game = game._replace(id=f"{prefix}-{name}", names=tuple(names[: len(game.players)]))
        clock.now = (game.phase.started or demo.EPOCH) + 95
        frames[name] = render_screen(view(game, None), INFO, clock.now)
        if name == "lobby":
            server.publish(game, INFO)
            page.goto(server.url(server.call(lambda g=game: source.issue(g.id))))
            page.wait_for_selector("#screen .bar")
    return frames


def layout_faults(
    browser: Any, served: Any, shots: dict[str, Game], table: str, names: Sequence[str] = LONG
) -> list[tuple[str, ...]]:
    """`MEASURE` on every screen of `shots` at each of `VIEWPORTS`: the faults,
    each led by where it was found (`table`, e.g. "station/5/nb", the size and
    the screen). Screenshots at 1920x1080 go to ARTIFACTS for review."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    label = table.replace("/", "-")
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    faults: list[tuple[str, ...]] = []
    try:
        # The page itself once (served as a TV opens it); every other screen
        # as the live page gets it: the event stream's HTML swapped into
        # #screen, exactly what tv.js does on each event.
        frames = open_frames(page, served, shots, f"layout-{label}", names)
        for width, height, name in each_screen(page, frames, VIEWPORTS):
            found = page.evaluate(MEASURE)
            where = f"{table}/{width}x{height}/{name}"
            faults.extend((where, *map(str, f)) for f in found)
            if height == 1080:
                page.screenshot(path=str(ARTIFACTS / f"{label}-{name}.png"))
    finally:
        page.close()
    return faults


@every_table
def test_nothing_is_clipped_or_cut(
    browser: Any, served: Any, kind: str, players: int, lang: str
) -> None:
    shots = all_screens(kind, players, lang)
    faults = layout_faults(browser, served, shots, f"{kind}/{players}/{lang}")
    assert not faults, "\n".join(" | ".join(f) for f in faults)
