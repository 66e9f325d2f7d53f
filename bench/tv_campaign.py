"""A Traitors campaign for the status page: its states, and its screenshots.

`traitors_campaign()` plays a whole Traitors campaign (a day a real day, the
phases closing at the clock times of Europe/Oslo) through the real engine, with
inputs drawn from the legal actions, and yields every accepted state, so the
tests can measure its screens (tests/test_tv_fill.py) and this script can
photograph them.

`python bench/tv_campaign.py` writes the lobby, a mission, a round table and
the end at 1920x1080 and 1280x720 to docs/images/tv-traitors-*.png, rendered by
the TV app on loopback in Debian's headless chromium (docs/hosts.md shows them).
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from adapters.tv.demo import NAMES
from adapters.tv.source import JoinInfo
from bench import tv_games
from bench.tv_games import HOST, Play, player_id, traitors_step
from gameflow.core import actions as A
from gameflow.core.engine import apply, new_game, view
from gameflow.core.result import Accepted
from gameflow.core.state import Game
from service.calendar import zone_table

ZONE = "Europe/Oslo"
# Monday 1 March 2027, 09:00 in Oslo: day 1's mission still has its hours.
START = datetime(2027, 3, 1, 9, 0, tzinfo=ZoneInfo(ZONE)).timestamp()
OPTIONS = {"pacing": "campaign", "timezone": ZONE, "missions": "builtin"}
SHOTS = ("lobby", "mission", "roundtable", "end")
PASSES = 3  # rounds of answers per phase
VIEWPORTS = ((1920, 1080), (1280, 720))
IMAGES = Path(__file__).resolve().parent.parent / "docs" / "images"
CHROMIUM = "/usr/bin/chromium"


def info(code: str = "KRILL7") -> JoinInfo:
    """The lobby's join details, with no display name of its own."""
    return tv_games.info(code, name="")


def traitors_campaign(
    players: int = 10, *, seed: str = "campaign", lang: str = "en", game_id: str = "camp"
) -> Iterator[Game]:
    """Every state of a whole Traitors campaign, starting at `START`."""
    rng = random.Random(seed)
    game = new_game("traitors", game_id, HOST, seed, lang=lang, options=OPTIONS)
    for i in range(players):
        joined = apply(game, A.Join(player_id(i), None, NAMES[i % len(NAMES)]), START)
        assert isinstance(joined, Accepted), joined
        game = joined.state
    yield game
    started = apply(game, A.Start(HOST, zone=zone_table(ZONE, START)), START)
    assert isinstance(started, Accepted), started
    game = started.state
    yield game
    play = Play(game, START)
    steps = 0
    while not play.game.over and steps < 5000:
        steps += 1
        # everyone answers (a few passes: some answers open another question),
        # then the phase's clock time comes
        seq = play.game.phase.seq
        for _ in range(PASSES):
            order = list(play.game.players)
            rng.shuffle(order)
            acted = False
            for player in order:
                action = traitors_step(play.game, player, rng)
                if action is None or play.game.phase.seq != seq:
                    continue
                if play.act(action, 60.0) is not None:
                    acted = True
                    yield play.game
            if not acted or play.game.phase.seq != seq:
                break
        if play.close() is not None:
            yield play.game


def campaign_screens(
    players: int = 10, *, seed: str = "campaign", lang: str = "en"
) -> dict[str, Game]:
    """The lobby, day 2's mission (everyone still to answer), day 2's round
    table once half the votes are in (the rest named as awaited), and the end."""
    out: dict[str, Game] = {}
    for game in traitors_campaign(players, seed=seed, lang=lang):
        name, day = game.phase.name, game.phase.round
        if name == "lobby":
            out.setdefault("lobby", game)
        elif name == "mission" and day == 2:
            out.setdefault("mission", game)
        elif name == "roundtable" and day == 2 and "roundtable" not in out:
            st = view(game, None)["traitors"]
            if st.get("ready", 0) * 2 >= st.get("expected", 0):
                out["roundtable"] = game  # half the votes are in
        elif game.over:
            out["end"] = game
    return out


def main() -> None:  # pragma: no cover - writes the docs' screenshots
    from playwright.sync_api import sync_playwright

    from adapters.tv.source import MemorySource
    from bench.loopback import LoopbackServer
    from gameflow.games import register_all

    register_all()
    shots = campaign_screens()
    source = MemorySource()
    now = [START]
    IMAGES.mkdir(parents=True, exist_ok=True)
    with LoopbackServer(source, clock=lambda: now[0]) as server, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox"])
        page = browser.new_page()
        for name in SHOTS:
            game = shots[name]._replace(id=f"shot-{name}")
            now[0] = (game.phase.started or START) + 600
            server.publish(game, info())
            url = server.url(server.call(lambda g=game: source.issue(g.id)))
            for width, height in VIEWPORTS:
                page.set_viewport_size({"width": width, "height": height})
                page.goto(url)
                page.wait_for_selector("#screen .bar")
                path = IMAGES / f"tv-traitors-{name}-{height}p.png"
                page.screenshot(path=str(path))
                print(path.relative_to(IMAGES.parent.parent))
        browser.close()


if __name__ == "__main__":
    main()
