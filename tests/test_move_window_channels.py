"""The host moves a campaign window from a phone (docs/rules/campaign.md):
`/move WINDOW HH:MM` on Telegram, `MOVE` / `FLYTT` / `POMERI WINDOW HH:MM` by
SMS, through the real wire formats (webhook updates and the fake Bot API;
signed Twilio webhooks and the fake Twilio). One short confirmation to the
host, the deadline moved in the state, and every refusal explained."""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from adapters.store.sqlite_store import SqliteStore
from gameflow.core import actions as A
from tests.campaign_helpers import oslo
from tests.fake_telegram import FakeBotApi, Harness, serving
from tests.fake_twilio import FakeTwilio
from tests.sms_helpers import World
from tests.store_helpers import FakeClock, run
from tests.test_telegram_table import HOST, Table

PEOPLE = {400 + i: name for i, name in enumerate(["Ana", "Bo", "Cy", "Dag", "Eli"])}


@contextlib.asynccontextmanager
async def _telegram(tmp_path: Path, db: str) -> AsyncIterator[tuple[FakeBotApi, Harness, Table]]:
    """A Telegram table of PEOPLE at noon on the 15th in Oslo, on a store of its own."""
    async with serving(FakeBotApi()) as api:
        clock = FakeClock(oslo(15, 12))
        store = SqliteStore(str(tmp_path / db), clock=clock)
        async with Harness(api, store, clock) as h:
            yield api, h, Table(h, PEOPLE)
        await store.close()


@pytest.mark.telegram
def test_move_a_window_on_telegram(tmp_path: Path) -> None:
    async def main() -> None:
        async with _telegram(tmp_path, "move.sqlite3") as (api, h, table):
            await table.open("station", sets=("pacing campaign", "timezone Europe/Oslo"))
            game = await table.game()
            assert game.phase.deadline == oslo(15, 18)

            await h.command(HOST, "Hana", "/move")
            usage = api.texts(HOST)[-1]
            assert "/move WINDOW HH:MM" in usage and "mission, discussion, vote" in usage
            await h.command(HOST, "Hana", "/move mission 25:99")
            assert "HH:MM" in api.texts(HOST)[-1] and "18:00" in api.texts(HOST)[-1]
            await h.command(400, "Ana", "/move mission 17:00")
            assert api.texts(400)[-1] == "Only the host can do that."
            assert (await table.game()).phase.deadline == oslo(15, 18)

            before = len(api.texts(HOST))
            await h.command(HOST, "Hana", "/move miss 17:00")  # a window by its start
            game = await table.game()
            assert game.phase.deadline == oslo(15, 17)
            assert game.option("campaign_mission") == "17:00"
            new = api.texts(HOST)[before:]
            assert len(new) == 1, new  # one short message, the news merged in
            assert "Moved: the window has its new time." in new[0]
            assert "17:00" in new[0]

    run(main())


@pytest.mark.telegram
def test_move_in_a_live_game_is_refused_on_telegram(tmp_path: Path) -> None:
    async def main() -> None:
        async with _telegram(tmp_path, "fast.sqlite3") as (api, h, table):
            await table.open("station")
            version = (await table.game()).version
            await h.command(HOST, "Hana", "/move vote 21:30")
            assert "only in a campaign game" in api.texts(HOST)[-1]
            assert (await table.game()).version == version

    run(main())


SMS_HOST = "+4791269999"
SMS_PHONES = [f"+4791260{i:03d}" for i in range(5)]
# (NEW, the MOVE word in that language)
SMS_LANGS = {
    "en": ("NEW STATION", "MOVE"),
    "nb": ("NY STASJON", "FLYTT"),
    "sr": ("NOVA STANICA", "POMERI"),
}


@pytest.mark.sms
@pytest.mark.parametrize("lang", ["en", "nb", "sr"])
def test_move_a_window_by_sms(fake: FakeTwilio, lang: str) -> None:
    new, move = SMS_LANGS[lang]

    async def main() -> None:
        w = World(fake, rate=0)
        try:
            w.clock.now = oslo(15, 12)
            await w.text(SMS_HOST, new)
            found = re.search(r"\b([A-Z]{4})\b", w.inbox(SMS_HOST)[0].split("\n")[0])
            assert found is not None
            code = found.group(1)
            game_id = await w.store.game_for_code(code)
            assert game_id is not None
            # (an SMS host has no settings command: the options as the lobby holds them)
            game = await w.service.load(game_id)
            for name, value in (("pacing", "campaign"), ("timezone", "Europe/Oslo")):
                out = await w.service.submit(game_id, A.SetOption(game.host, None, name, value))
                assert out.accepted, out.rejected
            for phone, name in zip(SMS_PHONES, ["Ana", "Bo", "Cy", "Dag", "Eli"], strict=True):
                await w.text(phone, f"JOIN {code} {name}")
            await w.text(SMS_HOST, "START GAME")
            game = await w.service.load(game_id)
            assert game.running and game.phase.deadline == oslo(15, 18)

            await w.text(SMS_HOST, move)  # no window: what to write, and the windows
            assert "mission, discussion, vote" in w.last(SMS_HOST)
            await w.text(SMS_HOST, f"{move} mission 7pm")
            assert "18:00" in w.last(SMS_HOST)  # the core's HH:MM example
            await w.text(SMS_PHONES[0], f"{move} mission 17:00")
            if lang == "en":
                assert "Only the host can do that." in w.last(SMS_PHONES[0])
            assert (await w.service.load(game_id)).phase.deadline == oslo(15, 18)

            before = len(w.inbox(SMS_HOST))
            await w.text(SMS_HOST, f"{move.lower()} Mission 17:00")
            game = await w.service.load(game_id)
            assert game.phase.deadline == oslo(15, 17)
            new_texts = w.inbox(SMS_HOST)[before:]
            assert len(new_texts) == 1 and "17:00" in new_texts[0], new_texts
        finally:
            await w.close()

    run(main())
