"""A campaign in the player's calendar: its coming window closes as an .ics file.

A campaign (`pacing` = `campaign`) plays a round a day, its phases closing at
clock times in the game's zone (gameflow.core.campaign); players away from the
table need those times in their phone's calendar, where a moved window moves
too. The status page serves them (`/tv/<token>/campaign.ics`, made with the
maintained `icalendar` library) from public facts only; `calendar_for` says what
the file holds and why it tells nothing secret.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from icalendar import Calendar, Event, vDuration

from adapters.tv.screens import game_name, phase_text
from adapters.tv.texts import TEXTS
from gameflow.core import campaign
from gameflow.core.campaign import Window
from gameflow.core.clock import local_day
from gameflow.core.engine import view
from gameflow.core.state import LOBBY, Game
from gameflow.core.text import msg
from gameflow.i18n import LANGUAGES, render

DAYS = 14  # how many local days ahead the calendar reaches
PRODID = "-//Muldvarp//Campaign calendar//EN"
REFRESH = timedelta(hours=1)  # how often a subscribing calendar should look again
MEDIA_TYPE = "text/calendar"


def has_calendar(game: Game) -> bool:
    """Whether `game` gets a calendar (and the page a link to it)."""
    return campaign.is_campaign(game) and bool(campaign.declared(game))


def coming(game: Game, now: float, days: int = DAYS) -> tuple[Window, ...]:
    """The window closes the calendar lists, in time order (see `calendar_for`)."""
    public = view(game, None)
    if not has_calendar(game) or public["over"]:
        return ()
    windows = list(campaign.days_ahead(game, now, days))
    deadline = public["deadline"]
    if public["phase"] == LOBBY or public["paused"] or not isinstance(deadline, int | float):
        return tuple(windows)
    current = _current(game, str(public["phase"]), float(deadline))
    if current is None:
        return tuple(windows)
    later = [w for w in windows if w.closes > current.closes and (w.day, w.name) != current[:2]]
    return (current, *later)


def _current(game: Game, phase: str, deadline: float) -> Window | None:
    """The running phase's close as a window: the phase's window nearest to
    it, on the deadline's local date or the one before (a window in the quiet
    hours closes the next morning), so its UID is the one the calendar held
    before a move."""
    last = local_day(game.zone, deadline)
    mine = [
        (day, name, campaign.clock(game.option(opt)))
        for day in (last - 1, last)
        for name, p, opt in campaign.declared(game)
        if p == phase
    ]
    if not mine:
        return None

    def distance(item: tuple[int, str, float]) -> tuple[float, int]:
        day, _, seconds = item
        return abs(campaign.close_at(game, day, seconds) - deadline), -day

    day, name, _ = min(mine, key=distance)
    return Window(day, name, phase, deadline)


def uid(game: Game, window: Window) -> str:
    """A stable, opaque id for one window on one local date of one game."""
    digest = hashlib.sha256(f"{game.id}\n{window.day}\n{window.name}".encode()).hexdigest()
    return f"{digest[:32]}@muldvarp"


def _zone(game: Game) -> ZoneInfo:
    try:
        return ZoneInfo(str(game.option("timezone")))
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def _lang(game: Game) -> str:
    return game.lang if game.lang in LANGUAGES else "en"


def _t(key: str, lang: str, **params: Any) -> str:
    return render(msg(TEXTS[key], **params), lang)


def summary(game: Game, window: Window) -> str:
    """ "Station: Vote closes", in the game's language."""
    lang = _lang(game)
    kind = game_name(game.kind, lang)
    found = phase_text(game.kind, window.phase)
    phase = render(found, lang) if found.msgid != window.phase else window.name
    return _t("ics_summary", lang, game=kind, phase=phase)


def calendar_for(game: Game, now: float, days: int = DAYS, *, name: str = "") -> bytes:
    """The game's coming windows as an iCalendar file (UTF-8). `name` is the
    game's display name (public: the page's title), if the host gave one.

    - one VEVENT per coming window close (`campaign.days_ahead`), summary in the
      game's language; DTSTART is the close in the game's zone (TZID, with its
      VTIMEZONE added by `add_missing_timezones`), so a phone in another zone still
      shows the right instant and one in the zone shows the clock time;
    - the calendar is made from the current state on every request: when the host
      moves a window (`MoveWindow` changes the options, or the running phase's
      deadline), the next fetch has the new time. Each event's UID is a digest of
      (game, local date, window), stable across fetches, so a re-import or a
      subscription's refresh moves the event instead of adding a second one; it is
      opaque (the game's id is not in it). DTSTAMP is the request time;
    - the running phase's event is at its real deadline (the one the page's timer
      shows, which may differ from the window's clock time after a move or a
      resume), and windows before it are left out: the game is in that phase until
      then. A game that is over, or not a campaign, has no events;
    - nothing secret: it is built from the public view's facts only (the game's
      kind, language, phase and deadline) and the window options; no roles, no
      player ids or names, no token, and not the game's version (its jumps count
      secret inputs, see adapters.tv.app).

    [decision] A game that is not a campaign has no calendar: the route answers 404
    (and the page shows no link); `calendar_for` itself gives such a game an empty
    calendar, so it is total."""
    lang = _lang(game)
    kind = game_name(game.kind, lang)
    title = _t("ics_calendar", lang, game=name or kind)
    zone = _zone(game)
    cal = Calendar()
    cal.add("prodid", PRODID)
    cal.add("version", "2.0")
    cal.add("calscale", "GREGORIAN")
    cal.add("method", "PUBLISH")
    cal.add("name", title)
    cal.add("x-wr-calname", title)
    cal.add("x-wr-timezone", zone.key)
    cal.add("refresh-interval", REFRESH, parameters={"VALUE": "DURATION"})
    cal.add("x-published-ttl", vDuration(REFRESH))
    stamp = datetime.fromtimestamp(now, UTC)
    for window in coming(game, now, days):
        event = Event()
        event.add("uid", uid(game, window))
        event.add("dtstamp", stamp)
        event.add("dtstart", datetime.fromtimestamp(window.closes, zone))
        event.add("summary", summary(game, window))
        event.add("transp", "TRANSPARENT")
        cal.add_component(event)
    # the zone's rules around the events only (not 1970-2038, the default)
    today = stamp.date()
    cal.add_missing_timezones(
        first_date=today - timedelta(days=366), last_date=today + timedelta(days=days + 366)
    )
    data: bytes = cal.to_ical()
    return data
