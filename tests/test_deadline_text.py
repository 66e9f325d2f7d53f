"""The "answer by" line of prompts and reminders: a countdown in a one-evening
game, a clock time of the game's time zone in a campaign, in nb, sr and en."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from traitors_helpers import P6, ROLES

from adapters.deadline_text import until
from gameflow.core import actions as A
from gameflow.core.engine import apply
from gameflow.core.result import Accepted
from gameflow.core.state import Game
from gameflow.replay import setup_game
from service.calendar import zone_table

pytestmark = pytest.mark.traitors

OSLO = ZoneInfo("Europe/Oslo")


def oslo(*args: int) -> float:
    return datetime(*args, tzinfo=OSLO).timestamp()  # type: ignore[misc]


def game_at(start: float, **options: Any) -> Game:
    script = {
        "game": "traitors",
        "players": P6,
        "seed": 1,
        "options": {"missions": "host", **options},
        "setup": {"roles": ROLES},
        "at": start,
        "zone": [list(p) for p in zone_table("Europe/Oslo", start)],
    }
    return setup_game(script)[0]


def test_a_fast_game_counts_down() -> None:
    game = game_at(oslo(2026, 6, 1, 20, 0), pacing="fast")
    now = game.phase.started
    assert until(game, "en", now) == "Time left: 5 minutes."
    assert until(game, "nb", now) == "Tid igjen: 5 minutter."
    assert until(game, "sr", now) == "Preostalo vreme: 5 minuta."
    # drawn a moment late, a whole minute still reads as it (issue #35)
    assert until(game, "en", now + 1) == "Time left: 5 minutes."
    assert until(game, "nb", now + 4.5) == "Tid igjen: 5 minutter."
    # otherwise rounded down: a countdown never promises more than is left
    assert until(game, "en", now + 6) == "Time left: 4 minutes."
    assert until(game, "en", now + 290) == "Time left: 10 seconds."
    assert until(game, "nb", now + 280) == "Tid igjen: 20 sekunder."
    assert until(game, "sr", now + 280) == "Preostalo vreme: 20 sekundi."
    assert until(game, "en", now + 299.5) == "Time left: less than a minute."
    assert until(game, "en", now + 400) == "Time left: less than a minute."


def test_countdowns_round_down_in_every_unit() -> None:
    from adapters.deadline_text import countdown

    assert countdown(54.9, "en") == "Time left: 54 seconds."
    assert countdown(60, "en") == "Time left: 1 minute."
    assert countdown(114, "en") == "Time left: 1 minute."
    assert countdown(3594, "nb") == "Tid igjen: 59 minutter."
    assert countdown(5400, "en") == "Time left: 1 hour 30 minutes."
    assert countdown(7194, "sr") == "Preostalo vreme: 1 sat 59 minuta."


def test_a_whole_minute_drawn_a_moment_late_is_still_that_minute() -> None:
    """A 2-minute vote's prompt is drawn after the commit: 119.6 s left read
    "1 minute" (issue #35, item 12). Up to GRACE seconds short of a whole
    minute count as it; more than that rounds down as before."""
    from adapters.deadline_text import GRACE, countdown

    assert countdown(119.6, "en") == "Time left: 2 minutes."
    assert countdown(120 - GRACE, "en") == "Time left: 2 minutes."
    assert countdown(59.9, "en") == "Time left: 1 minute."
    assert countdown(3599, "nb") == "Tid igjen: 1 time."
    assert countdown(7199, "sr") == "Preostalo vreme: 2 sata."
    assert countdown(0.4, "en") == "Time left: less than a minute."


def test_a_campaign_names_the_clock_time_in_the_games_zone() -> None:
    game = game_at(oslo(2026, 6, 1, 7, 30), pacing="campaign")
    assert until(game, "en", oslo(2026, 6, 1, 8, 0)) == "Answer by 17:00."
    assert until(game, "nb", oslo(2026, 6, 1, 8, 0)) == "Svar innen 17:00."
    assert until(game, "en", oslo(2026, 6, 1, 15, 0)) == "Answer by 17:00."
    assert until(game, "en", oslo(2026, 6, 1, 16, 45)) == "Time left: 15 minutes."
    night = game
    for _ in range(3):
        result = apply(night, A.Deadline(None, night.phase.seq), night.phase.deadline or 0.0)
        assert isinstance(result, Accepted)
        night = result.state
    assert night.phase.name == "night"
    assert until(night, "en", oslo(2026, 6, 1, 20, 30)) == "Answer by tomorrow, 08:00."
    assert until(night, "sr", oslo(2026, 6, 1, 20, 30)) == "Odgovorite do sutra u 08:00."


def test_a_deadline_days_away_names_the_weekday() -> None:
    game = game_at(oslo(2026, 6, 1, 7, 30), pacing="campaign")
    assert until(game, "en", oslo(2026, 5, 30, 12, 0)) == "Answer by Monday 17:00."
    assert until(game, "nb", oslo(2026, 5, 30, 12, 0)) == "Svar innen mandag kl. 17:00."


def test_no_line_without_a_running_deadline() -> None:
    game = game_at(oslo(2026, 6, 1, 7, 30), pacing="fast")
    paused = apply(game, A.Pause("host"), game.phase.started)
    assert isinstance(paused, Accepted)
    assert until(paused.state, "en", game.phase.started) is None


def test_sms_prompts_in_a_campaign_say_when_they_close() -> None:
    """A campaign's texts name the clock time; a live game's stay as short as before."""
    from adapters.sms.renderer import compose
    from adapters.sms.sheet import sheet

    for pacing, expect in (("campaign", True), ("fast", False)):
        game = game_at(oslo(2026, 6, 1, 7, 30), pacing=pacing)
        for _ in range(2):  # to the round table: everyone has a vote to send
            result = apply(game, A.Deadline(None, game.phase.seq), game.phase.deadline or 0.0)
            assert isinstance(result, Accepted)
            game = result.state
        assert game.phase.name == "roundtable"
        prompts = tuple(e for e in result.events if e.kind.name == "PROMPT" and e.to == "cy")
        assert prompts
        lines, secret = compose(game, prompts, "cy", sheet(game, "cy"))
        assert secret and lines
        assert ("Answer by 20:30." in lines) is expect, lines
