"""A campaign in the player's calendar (issue #21 item 4).

Through the real status page (Starlette over httpx's ASGI transport, a
MemorySource holding games the pure core made, time injected): a Station
campaign in Europe/Oslo started on Wednesday 24 March 2027, so its first days
cross the spring switch of Sunday 28 March (02:00 CET -> 03:00 CEST). The .ics
the page serves is parsed back with icalendar, and zoneinfo is the oracle:
every event is at its window's clock time (18:00, 20:00, 22:00) in the zone,
22:00 before and after the switch alike; UIDs are stable across fetches; the
host's MoveWindow moves the next event (same UID); bad and revoked links and
live games get 404; the file holds no player id, name, role, seed or token, and
does not change with a secret input. The page links to it in its language
without holding its token, and the Telegram start message is followed by the
calendar's link.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest
from campaign_helpers import instant, pick
from icalendar import Calendar

from adapters import status_link
from adapters.tv import ics
from adapters.tv.app import create_app
from adapters.tv.source import JoinInfo, MemorySource
from gameflow.core import actions as A
from gameflow.core.campaign import days_ahead, declared
from gameflow.core.engine import apply, new_game
from gameflow.core.result import Accepted
from gameflow.core.state import Game
from gameflow.i18n import render
from service.calendar import zone_table

pytestmark = [pytest.mark.campaign, pytest.mark.statuspage]

OSLO = "Europe/Oslo"
HOST = "tg:9090001"
PEOPLE = {
    "tg:7000001": "Ana",
    "tg:7000002": "Bjørnar",
    "sms:+4791240001": "Cecilie",
    "tg:7000004": "Dušan",
    "sms:+4791240005": "Eli",
    "tg:7000006": "Fred",
}
START = instant(OSLO, 2027, 3, 24, 9, 0)  # Wednesday; the clocks go forward on Sunday
CLOCKS = {"mission": "18:00", "discussion": "20:00", "vote": "22:00"}


def ok(result: Any) -> Game:
    assert isinstance(result, Accepted), result
    game: Game = result.state
    return game


def campaign(
    kind: str = "station", lang: str = "en", pacing: str = "campaign", at: float = START
) -> Game:
    """A game started at `at` through the core, with the service's zone table."""
    opts = {"pacing": pacing, "timezone": OSLO}
    game = new_game(kind, "cal-ics-1", HOST, "seed-ics-secret", lang=lang, options=opts)
    for pid, name in PEOPLE.items():
        game = ok(apply(game, A.Join(pid, None, name), at))
    return ok(apply(game, A.Start(HOST, None, zone_table(OSLO, at)), at))


class Page:
    """The status page app over one MemorySource, its clock set by the test."""

    def __init__(self) -> None:
        self.source = MemorySource()
        self.now = START
        self.app = create_app(self.source, clock=lambda: self.now)

    def put(self, game: Game, info: JoinInfo | None = None) -> str:
        self.source.publish(game, info)
        return self.source.issue(game.id)

    def get(self, path: str, **kwargs: Any) -> httpx.Response:
        async def main() -> httpx.Response:
            transport = httpx.ASGITransport(app=self.app)
            async with httpx.AsyncClient(transport=transport, base_url="http://tv.test") as c:
                return await c.get(path, **kwargs)

        return asyncio.run(main())

    def calendar(self, token: str) -> tuple[httpx.Response, Calendar]:
        r = self.get(f"/tv/{token}/campaign.ics")
        assert r.status_code == 200, r.text
        return r, Calendar.from_ical(r.content)


def events(cal: Calendar) -> list[tuple[str, datetime, str]]:
    """(uid, start, summary) of each event, in the file's order."""
    return [(str(e["uid"]), e.decoded("dtstart"), str(e["summary"])) for e in cal.walk("VEVENT")]


def local(t: datetime) -> str:
    return t.astimezone(ZoneInfo(OSLO)).strftime("%Y-%m-%d %H:%M")


def test_each_event_is_at_its_window_clock_time_across_the_spring_switch() -> None:
    page = Page()
    game = campaign()
    r, cal = page.calendar(page.put(game))
    assert r.headers["content-type"] == "text/calendar; charset=utf-8"
    assert r.headers["cache-control"] == "no-store"  # the mount's private headers
    found = events(cal)
    assert len(found) == 3 * ics.DAYS  # from today's mission (18:00 > 09:00 + 1h) on
    # The events are the core's coming closes, in order, each at the instant
    # zoneinfo gives for its clock time on its local date.
    expected = days_ahead(game, START, ics.DAYS)
    assert [s.timestamp() for _, s, _ in found] == [w.closes for w in expected]
    for (_, start, summary), w in zip(found, expected, strict=True):
        assert start.tzinfo is not None and str(start.tzinfo) == OSLO  # TZID, not UTC
        assert start.strftime("%H:%M") == CLOCKS[w.phase], (w, start)
        d = start.date()
        assert start.timestamp() == instant(OSLO, d.year, d.month, d.day, *_hm(CLOCKS[w.phase]))
        assert summary.startswith("Station: ") and summary.endswith(" closes")
    summaries = [s for _, _, s in found[:3]]
    assert summaries == [
        "Station: Mission closes",
        "Station: Result and discussion closes",
        "Station: Vote closes",
    ]
    # 22:00 on both sides of the switch: 21:00 UTC on Saturday, 20:00 UTC on Sunday
    votes = {s.date().isoformat(): s for _, s, summary in found if "Vote" in summary}
    assert votes["2027-03-27"].timestamp() == datetime(2027, 3, 27, 21, 0, tzinfo=UTC).timestamp()
    assert votes["2027-03-28"].timestamp() == datetime(2027, 3, 28, 20, 0, tzinfo=UTC).timestamp()
    assert local(votes["2027-03-27"]) == "2027-03-27 22:00"
    assert local(votes["2027-03-28"]) == "2027-03-28 22:00"
    # the zone's rules travel with the file, so a phone needs no guess
    zones = list(cal.walk("VTIMEZONE"))
    assert [str(z["tzid"]) for z in zones] == [OSLO]
    assert b"DTSTART;TZID=Europe/Oslo:20270328T220000" in r.content
    assert str(cal["x-wr-calname"]) == "Station – deadlines"


def _hm(text: str) -> tuple[int, int]:
    h, m = text.split(":")
    return int(h), int(m)


def test_uids_are_stable_across_fetches_and_the_host_moving_a_window_moves_the_event() -> None:
    page = Page()
    game = campaign()
    token = page.put(game)
    _, first = page.calendar(token)
    page.now = START + 3600
    _, second = page.calendar(token)
    a, b = events(first), events(second)
    assert a == b  # an hour later: the same events, the same UIDs
    assert len({u for u, _, _ in a}) == len(a)  # one UID per (day, window)
    stamps = {e.decoded("dtstamp") for e in second.walk("VEVENT")}
    assert stamps == {datetime.fromtimestamp(page.now, UTC)}  # the request's time

    # The host moves tonight's vote to 21:30: its event (the same UID) moves.
    moved = ok(apply(game, A.MoveWindow(HOST, None, window="vote", clock="21:30"), page.now))
    page.source.publish(moved)
    _, third = page.calendar(token)
    c = events(third)
    assert [u for u, _, _ in c] == [u for u, _, _ in b]  # updated, not duplicated
    votes_before = [s for _, s, summary in b if "Vote" in summary]
    votes_after = [s for _, s, summary in c if "Vote" in summary]
    assert local(votes_before[0]) == "2027-03-24 22:00"
    assert local(votes_after[0]) == "2027-03-24 21:30"
    assert all(local(s).endswith("21:30") for s in votes_after)
    others = [(u, s) for u, s, summary in c if "Vote" not in summary]
    assert others == [(u, s) for u, s, summary in b if "Vote" not in summary]

    # Moving the running phase's window moves the phase's deadline: the first
    # event is at the deadline the page's timer shows, under the same UID.
    # At 10:00, moved to 10:02: the phase gets its least time (to 10:05), and
    # the calendar says so, not the window's 10:02.
    moved = ok(apply(moved, A.MoveWindow(HOST, None, window="mission", clock="10:02"), page.now))
    assert moved.phase.name == "mission"
    page.source.publish(moved)
    _, fourth = page.calendar(token)
    d = events(fourth)
    assert d[0][0] == b[0][0]
    assert d[0][1].timestamp() == moved.phase.deadline
    assert local(d[0][1]) == "2027-03-24 10:05"
    assert [local(s) for _, s, _ in d[1:3]] == ["2027-03-24 20:00", "2027-03-24 21:30"]
    assert local(d[3][1]) == "2027-03-25 10:02"
    assert len(d) == len(b)


@pytest.mark.parametrize(
    ("kind", "title"), [("resistance", "Motstandsbevegelsen"), ("traitors", "Forræderne")]
)
def test_every_game_s_windows_are_in_its_calendar(kind: str, title: str) -> None:
    """The other games' windows (several a phase in Resistance, a night that
    ends at breakfast in Traitors) at their clock times, in the game's language."""
    page = Page()
    game = campaign(kind=kind, lang="nb")
    _, cal = page.calendar(page.put(game))
    found = events(cal)
    clocks = {name: str(game.option(opt)) for name, _, opt in declared(game)}
    expected = days_ahead(game, START, ics.DAYS)
    assert [s.timestamp() for _, s, _ in found] == [w.closes for w in expected]
    assert found[0][1].timestamp() == game.phase.deadline
    for (_, start, summary), w in zip(found, expected, strict=True):
        assert local(start)[-5:] == clocks[w.name], (w, start)
        assert summary.startswith(f"{title}: ") and summary.endswith(" avsluttes"), summary
    assert len({u for u, _, _ in found}) == len(found)


def test_a_window_in_the_quiet_hours_is_at_their_end_under_its_own_day_s_uid() -> None:
    """The vote moved to 23:30 closes at 07:00 the next morning (quiet hours
    23:00-07:00). While that vote runs, its event keeps the UID it had, and the
    next night's vote is still there."""
    page = Page()
    game = ok(apply(campaign(), A.MoveWindow(HOST, None, window="vote", clock="23:30"), START))
    token = page.put(game)
    _, cal = page.calendar(token)
    before = [(u, local(s)) for u, s, summary in events(cal) if "Vote" in summary]
    assert [t for _, t in before[:2]] == ["2027-03-25 07:00", "2027-03-26 07:00"]
    for _ in range(2):  # the mission, then the discussion, close at their times
        deadline = game.phase.deadline
        assert deadline is not None
        game = ok(apply(game, A.Deadline(None, game.phase.seq), deadline))
        page.now = deadline
    assert game.phase.name == "vote" and game.phase.deadline == instant(OSLO, 2027, 3, 25, 7, 0)
    page.source.publish(game)
    _, cal = page.calendar(token)
    after = [(u, local(s)) for u, s, summary in events(cal) if "Vote" in summary]
    assert events(cal)[0][0] == before[0][0]
    assert after[:3] == before[:3]
    assert len({u for u, _, _ in events(cal)}) == len(events(cal))


def test_a_campaign_started_late_lists_no_window_it_will_not_play() -> None:
    """Started at 17:30, the first mission needs an hour: it runs to tomorrow's
    18:00, so tonight's 18:00, 20:00 and 22:00 are not in the calendar."""
    page = Page()
    at = instant(OSLO, 2027, 3, 24, 17, 30)
    page.now = at
    game = campaign(at=at)
    _, cal = page.calendar(page.put(game))
    found = events(cal)
    assert game.phase.deadline == instant(OSLO, 2027, 3, 25, 18, 0)
    assert local(found[0][1]) == "2027-03-25 18:00" and "Mission" in found[0][2]
    assert all(not local(s).startswith("2027-03-24") for _, s, _ in found)


def test_bad_revoked_and_live_links_get_no_calendar() -> None:
    page = Page()
    game = campaign()
    token = page.put(game)
    assert page.get(f"/tv/{token}/campaign.ics").status_code == 200
    for bad in ("short", token[:-1] + ("A" if token[-1] != "A" else "B"), "x" * 43):
        r = page.get(f"/tv/{bad}/campaign.ics")
        assert r.status_code == 404 and "BEGIN:VCALENDAR" not in r.text
    page.source.tokens.revoke(token)
    assert page.get(f"/tv/{token}/campaign.ics").status_code == 404
    # a live evening (fast pacing) has no calendar and no link to one
    live = campaign(pacing="fast")._replace(id="cal-ics-live")
    live_token = page.put(live)
    assert page.get(f"/tv/{live_token}/campaign.ics").status_code == 404
    html = page.get(f"/tv/{live_token}").text
    assert "?calendar" not in html and "calendar" not in html.lower()
    assert page.get(f"/tv/{live_token}?calendar").status_code == 200  # just the page
    assert ics.calendar_for(live, START).count(b"BEGIN:VEVENT") == 0


def test_the_calendar_holds_no_secret_and_no_trace_of_inputs() -> None:
    page = Page()
    game = campaign()
    token = page.put(game, JoinInfo(name="Kveldsklubben", code="KRILL7"))
    r, cal = page.calendar(token)
    body = r.content.decode("utf-8")
    assert str(cal["x-wr-calname"]) == "Kveldsklubben – deadlines"  # the public title
    forbidden = [token, game.id, game.seed, HOST, *PEOPLE, *PEOPLE.values(), "91240001"]
    forbidden += ["infiltrat", "loyal", "sabotage", "trap", "KRILL7"]
    for word in forbidden:
        assert word.lower() not in body.lower(), word
    # A secret input (a mission choice) changes the game, never the calendar.
    after = game
    for pid in PEOPLE:
        action = pick(after, pid)
        assert action is not None
        after = ok(apply(after, action, START + 600))
    assert after != game
    page.source.publish(after)
    again, _ = page.calendar(token)
    assert again.content == r.content


def test_the_page_links_to_the_calendar_in_its_language_without_its_token() -> None:
    page = Page()
    game = campaign(lang="nb")
    token = page.put(game)
    html = page.get(f"/tv/{token}").text
    assert token not in html
    assert 'href="?calendar"' in html and "Legg fristene inn i kalenderen din" in html
    r = page.get(f"/tv/{token}?calendar")
    assert r.status_code == 303
    target = r.url.join(r.headers["location"])
    assert target.path == f"/tv/{token}/campaign.ics"
    _, cal = page.calendar(token)
    assert [s for _, _, s in events(cal)[:3]] == [
        "Stasjonen: Oppdrag avsluttes",
        "Stasjonen: Resultat og diskusjon avsluttes",
        "Stasjonen: Avstemning avsluttes",
    ]
    assert str(cal["x-wr-calname"]) == "Stasjonen – frister"


def test_the_start_message_text_for_the_calendar() -> None:
    link = "https://muldvarp.test/tv/abc"
    assert status_link.calendar_url(link) == f"{link}/campaign.ics"
    assert status_link.calendar_url(link + "/") == f"{link}/campaign.ics"
    line = status_link.calendar_line(link)
    assert render(line, "en") == f"The game's deadlines for your calendar: {link}/campaign.ics"
    assert render(line, "nb") == f"Spillets frister til kalenderen din: {link}/campaign.ics"
    assert render(line, "sr") == f"Rokovi igre za vaš kalendar: {link}/campaign.ics"


@pytest.mark.telegram
def test_a_telegram_campaign_start_is_followed_by_the_calendar_link(tmp_path: Path) -> None:
    from tests.store_helpers import run
    from tests.test_status_link import GROUP, LINE, opened

    api, game_id = run(opened(tmp_path, "traitors", GROUP, ("pacing campaign",)))
    link = f"https://tv.test/{game_id}"
    texts = api.texts(GROUP)
    at = texts.index(f"{LINE}{link}")
    assert texts[at + 1] == f"The game's deadlines for your calendar: {link}/campaign.ics"
    assert sum("campaign.ics" in t for t in texts) == 1
