"""The TV in a campaign and the lobby's ways in (issue #32, item 4).

A campaign's header gives the running phase's close as a clock time of the
game's zone ("until 17:00"), the Traitors' screen lists the day as clock
times, and neither depends on the time the page is drawn (equal games, equal
screens: adapters/tv/app.py tags them). A game that is not a campaign keeps its
countdown. The lobby names the bot for a phone that cannot scan the code, and
the number to text where SMS is on.
"""

from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from adapters.tv.schedule import facts, public
from adapters.tv.screens import bot_name, render_page, render_screen
from adapters.tv.source import JoinInfo
from bench import tv_campaign
from bench import tv_games as demo
from gameflow.core.engine import view
from gameflow.core.state import Game

pytestmark = pytest.mark.statuspage

OSLO = ZoneInfo("Europe/Oslo")


def text_of(html: str, cls: str) -> str:
    found = re.search(rf'class="{cls}"[^>]*>(.*?)</', html, re.S)
    assert found, cls
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", found.group(1))).strip()


def shots(lang: str = "en") -> dict[str, Game]:
    return tv_campaign.campaign_screens(8, seed="tv-campaign", lang=lang)


@pytest.mark.parametrize(("lang", "until"), [("en", "until"), ("nb", "til"), ("sr", "do")])
def test_a_campaign_phase_closes_at_a_clock_time_of_the_games_zone(lang: str, until: str) -> None:
    game = shots(lang)["mission"]
    deadline = game.phase.deadline
    assert deadline is not None
    clock = datetime.fromtimestamp(deadline, OSLO).strftime("%H:%M")
    assert clock == "17:00"  # the mission window's clock time in Oslo, not UTC's 16:00
    html = render_screen(public(game), None)
    assert text_of(html, "timer-clock") == f"{until} 17:00"
    assert "data-deadline" not in html  # the script counts nothing down
    # the page's own clock does not change the screen
    assert render_page(public(game), None, deadline - 3600).count("17:00") == render_page(
        public(game), None, deadline - 60
    ).count("17:00")
    assert render_screen(public(game), None, deadline - 3600) == render_screen(
        public(game), None, deadline - 60
    )


def test_the_traitors_day_is_listed_as_clock_times_with_the_running_phase_lit() -> None:
    for name, lit in (("mission", "08:00"), ("roundtable", "19:00")):
        html = render_screen(public(shots()[name]), None)
        rows = re.findall(
            r'<li class="(plan-now)?"><span class="plan-time">([0-9:]+)</span> '
            r'<span class="plan-label">([^<]+)</span>',
            html,
        )
        assert [(t, label) for _, t, label in rows] == [
            ("08:00", "Mission"),
            ("17:00", "Shield room"),
            ("19:00", "Round table"),
            ("21:00", "Night"),
        ]
        assert [t for now, t, _ in rows if now] == [lit], name


def test_a_moved_window_moves_on_the_screen() -> None:
    game = shots()["mission"]
    options = tuple((k, "18:30" if k == "campaign_roundtable" else v) for k, v in game.options)
    moved = game._replace(options=options)
    assert facts(moved)["clocks"]["campaign_roundtable"] == "18:30"  # type: ignore[index]
    assert "18:30" in render_screen(public(moved), None)


def test_a_game_that_is_not_a_campaign_keeps_its_countdown() -> None:
    game = demo.screens(7, seed="tv-fast", lang="en")["mission"]  # Station: fast pacing
    assert facts(game) is None and "campaign" not in public(game)
    html = render_screen(public(game), None, (game.phase.started or demo.EPOCH) + 60)
    assert "data-deadline" in html and "timer-clock" not in html
    assert 'class="day-plan"' not in html


def test_a_close_days_away_names_its_weekday() -> None:
    game = shots()["mission"]
    deadline = game.phase.deadline
    assert deadline is not None
    later = game._replace(phase=game.phase._replace(deadline=deadline + 2 * 86400))
    html = render_screen(public(later), None)
    weekday = datetime.fromtimestamp(deadline + 2 * 86400, OSLO).strftime("%A")
    assert text_of(html, "timer-clock") == f"until {weekday} 17:00"


@pytest.mark.parametrize(
    ("url", "name"),
    [
        ("https://t.me/MuldvarpBot?start=KRILL7", "@MuldvarpBot"),
        ("https://telegram.me/Other_bot?start=X", "@Other_bot"),
        ("https://example.com/MuldvarpBot", None),
        (None, None),
    ],
)
def test_the_bot_is_named_from_its_join_link(url: str | None, name: str | None) -> None:
    assert bot_name(url) == name


@pytest.mark.parametrize(
    ("lang", "words"), [("en", "or find"), ("nb", "eller finn"), ("sr", "ili")]
)
def test_the_lobby_names_the_bot_and_the_number_to_text(lang: str, words: str) -> None:
    game = demo.lobby(4, lang=lang, kind="traitors")
    html = render_screen(view(game, None), tv_campaign.info())
    assert words in text_of(html, "bot") and "@MuldvarpBot" in text_of(html, "bot")
    assert "+47 59 44 00 00" in text_of(html, "sms-number")
    # no Telegram link, no bot; no SMS number, no number
    bare = render_screen(view(game, None), JoinInfo(name="", code="KRILL7"))
    assert 'class="bot"' not in bare and "sms-number" not in bare


def test_the_traitors_wall_shows_the_banished_roles_and_marks_the_murdered() -> None:
    end = shots()["end"]
    html = render_screen(public(end), None)
    table = view(end, None)["traitors"]["table"]
    cards = re.findall(
        r'<li class="card card-(\w+)[^"]*">\s*<b class="card-name">([^<]+)</b>', html
    )
    assert [(name, status) for status, name in cards] == [(s["name"], s["status"]) for s in table]
    for seat in table:
        if seat["status"] == "banished" and seat.get("role") == "traitor":
            assert re.search(
                rf'card-banished card-traitor">\s*<b class="card-name">{seat["name"]}<', html
            )
    assert any(s["status"] == "murdered" for s in table) and "☠ Murdered" in html
    assert f"Fair deal: seed {end.seed}" in html


def test_a_campaign_screen_never_depends_on_a_secret() -> None:
    """The clock facts the app adds are the options and the deadline only: with
    the unrevealed roles, the shield, the dagger and the night's votes redrawn,
    every running state of a campaign shows the same screen."""
    import random

    from tests.test_statuspage_secrets import scramble_traitors

    rng = random.Random("campaign-secrets")
    seen = 0
    for game in tv_campaign.traitors_campaign(8, seed="campaign-secrets", lang="nb"):
        if game.over or game.rules is None:
            continue
        mixed = scramble_traitors(game, rng)
        assert render_screen(public(mixed), tv_campaign.info()) == render_screen(
            public(game), tv_campaign.info()
        )
        seen += 1
    assert seen > 20
