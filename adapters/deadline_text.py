"""When a question closes, in words a player reads at a glance.

A prompt or a reminder says how long the player has: in a one-evening game
"Time left: 5 minutes"; in a campaign the clock time in the game's time zone,
"Answer by 17:00", "Answer by tomorrow, 07:00" or "Answer by Monday 17:00", since
a deadline hours away is read against the day, not counted down (under half an
hour left, a campaign counts down too). Telegram puts it under every prompt and
reminder; SMS only in campaigns, where it is worth its segment. Babel formats the clock
times and durations for nb, sr (Latin) and en (24-hour, as the games are played
in Europe).
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from babel.dates import format_date, format_time, format_timedelta

from gameflow.core.campaign import is_campaign
from gameflow.core.state import Game
from gameflow.core.text import N_, msg
from gameflow.i18n import render

LOCALES = {"nb": "nb", "sr": "sr_Latn", "en": "en_GB"}
CLOCK_AFTER = 1800.0  # in a campaign, a deadline further away than this is a clock time
GRACE = 5.0  # seconds short of a whole minute that still count as it (a prompt's delay)


def _zone(game: Game) -> ZoneInfo:
    name = game.option("timezone")
    try:
        return ZoneInfo(str(name)) if name else ZoneInfo("UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


Unit = Literal["hour", "minute", "second"]


def _span(seconds: int, unit: Unit, locale: str) -> str:
    return format_timedelta(
        timedelta(seconds=seconds), granularity=unit, threshold=1000, locale=locale
    )


def countdown(left: float, lang: str) -> str:
    """ "Time left: ..." rounded down: a countdown must not promise more than
    the deadline gives (20 s left is "20 seconds", not "1 minute"; 4 min 30 s is
    "4 minutes"). But a prompt is drawn a moment after its phase opened, so up
    to `GRACE` seconds short of a whole minute counts as that minute: a
    2-minute vote drawn 0.4 s late says "2 minutes", not "1 minute". An hour or
    more names hours and minutes."""
    locale = LOCALES.get(lang, "en_GB")
    whole = int(left)
    minute = math.ceil(left / 60) * 60
    if left >= 1 and minute - left <= GRACE:
        whole = minute
    if whole < 1:
        return render(N_("Time left: less than a minute."), lang)
    if whole < 60:
        span = _span(whole, "second", locale)
    elif whole < 3600:
        span = _span(whole - whole % 60, "minute", locale)
    else:
        span = _span(whole - whole % 3600, "hour", locale)
        minutes = whole % 3600 // 60
        if minutes:
            span = f"{span} {_span(minutes * 60, 'minute', locale)}"
    return render(msg(N_("Time left: {left}."), left=span), lang)


def until(game: Game, lang: str, now: float) -> str | None:
    """The line telling when the current phase's question closes, or None when
    there is no running deadline (lobby, paused, over)."""
    deadline = game.phase.deadline
    if not game.running or game.phase.paused or deadline is None:
        return None
    locale = LOCALES.get(lang, "en_GB")
    left = max(0.0, deadline - now)
    campaign = is_campaign(game)
    if not campaign or left < CLOCK_AFTER:
        return countdown(left, lang)
    tz = _zone(game)
    at = datetime.fromtimestamp(deadline, tz)
    today = datetime.fromtimestamp(now, tz).date()
    clock = format_time(at, "HH:mm", locale=locale)
    days = (at.date() - today).days
    if days == 0:
        return render(msg(N_("Answer by {time}."), time=clock), lang)
    if days == 1:
        return render(msg(N_("Answer by tomorrow, {time}."), time=clock), lang)
    day = format_date(at.date(), "EEEE", locale=locale)
    return render(msg(N_("Answer by {day} {time}."), day=day, time=clock), lang)
