"""A campaign's players get the status page's link at the start (issue #21 item 3).

A campaign is played from home, with no TV at the table: when it starts, the
players are given the link to the public status page, in the game's group
on Telegram (once, for everyone), privately to each Telegram player when the
game has no group, and to every SMS player by text. A live game (`fast`
pacing) gets none: the host has the TV's link. Driven through the real wire
formats: Telegram updates against the fake Bot API, signed Twilio webhooks
through the app as `muldvarp serve` wires it against the fake Twilio, where
the link opens the game's status page."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
import time_machine

from adapters.store.sqlite_store import SqliteStore
from tests.fake_telegram import FakeBotApi, Harness, serving
from tests.fake_twilio import FakeTwilio
from tests.store_helpers import FakeClock, run
from tests.test_sms_host import HOST_PHONE, app
from tests.test_telegram_table import Table

GROUP = -4242
PEOPLE = {100 + i: name for i, name in enumerate(["Ana", "Bo", "Cy", "Dag", "Eli", "Fred"])}
LINE = "Follow the game here (the public status page): "


async def opened(
    tmp_path: Path, kind: str, group: int | None, sets: tuple[str, ...]
) -> tuple[FakeBotApi, str]:
    api = FakeBotApi()
    async with serving(api):
        store = SqliteStore(str(tmp_path / f"{kind}{group}.sqlite3"))
        h = Harness(api, store, FakeClock())
        async with h:
            game_id = await Table(h, PEOPLE).open(kind, group=group, sets=sets)
        await store.close()
    return api, game_id


@pytest.mark.telegram
@pytest.mark.parametrize("group", [GROUP, None], ids=["group", "private"])
def test_a_telegram_campaign_start_gives_the_status_link(tmp_path: Path, group: int | None) -> None:
    api, game_id = run(opened(tmp_path, "traitors", group, ("pacing campaign",)))
    link = f"{LINE}https://tv.test/{game_id}"
    private = {uid: [t for t in api.texts(uid) if link in t] for uid in PEOPLE}
    if group is not None:
        assert [t for t in api.texts(GROUP) if link in t] == [link]  # once, for the table
        assert not any(private.values()), private
    else:
        assert all(texts == [link] for texts in private.values()), private


@pytest.mark.telegram
def test_a_live_game_start_gives_players_no_status_link(tmp_path: Path) -> None:
    api, _ = run(opened(tmp_path, "traitors", GROUP, ("pacing fast",)))
    for chat in (GROUP, *PEOPLE):
        assert not any("tv.test/" in t for t in api.texts(chat)), (chat, api.texts(chat))


@pytest.mark.sms
def test_every_sms_player_of_a_campaign_gets_a_status_link_that_opens(
    tmp_path: Path, fake: FakeTwilio
) -> None:
    phones = [f"+4791240{i:03d}" for i in range(len(PEOPLE))]

    async def main() -> None:
        async with app(tmp_path, fake) as a:
            await a.text(HOST_PHONE, "NEW TRAITORS")
            host_text = a.inbox(HOST_PHONE)[0]
            code = re.search(r"\b([A-Z]{4})\b", host_text.split("\n")[0])
            assert code is not None, host_text
            for phone, name in zip(phones, PEOPLE.values(), strict=True):
                await a.text(phone, f"JOIN {code.group(1)} {name}")
            await a.text(HOST_PHONE, "START GAME")
            game = None
            for phone in phones:
                found = [t for t in a.inbox(phone) if t.startswith(LINE)]
                assert len(found) == 1, a.inbox(phone)
                status, calendar = found[0].split("\n")
                token = status.rsplit("/tv/", 1)[1].strip()
                page = await a.http.get(f"/tv/{token}")
                assert page.status_code == 200
                # the calendar's link, under it, in the same text
                assert calendar.endswith(f"/tv/{token}/campaign.ics"), calendar
                ics = await a.http.get(f"/tv/{token}/campaign.ics")
                assert ics.status_code == 200 and "BEGIN:VCALENDAR" in ics.text
                game = await a.rt.tv.game_for_token(token)
                assert game is not None and game.running
            assert game is not None and game.option("pacing") == "campaign"

    # A campaign's texts wait out its quiet hours (23:00-07:00 in its zone): the
    # app's wall clock is set to an afternoon, so the links go at once whenever
    # the test runs (it failed in a run at 02:30 Oslo time). Only the wall clock
    # moves: the event loop's monotonic clock is the real one.
    with time_machine.travel(datetime(2026, 12, 2, 14, 0, tzinfo=ZoneInfo("Europe/Oslo"))):
        run(main())
