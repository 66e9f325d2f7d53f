"""The host marks a player gone for good by SMS (issue #32 item 1): GONE NAME
(UTE, OTIŠAO), through signed Twilio webhooks and the fake Twilio. The table
is told in the game's language; a player's GONE changes nothing."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from adapters.sms.grammar import Command, parse
from gameflow.core.away import gone_players
from tests.fake_twilio import FakeTwilio
from tests.sms_helpers import World
from tests.store_helpers import run

pytestmark = pytest.mark.sms

HOST = "+4791269999"
PHONES = [f"+4791260{i:03d}" for i in range(5)]
NAMES = ["Ana", "Bo", "Cy", "Dag", "Eli"]
T0 = datetime(2027, 1, 15, 12, 0, tzinfo=UTC).timestamp()


def test_the_words_in_three_languages() -> None:
    assert parse("GONE Ana") == Command("gone", ("Ana",))
    assert parse("ute Ana Berg") == Command("gone", ("Ana Berg",))
    assert parse("Otišao Ana") == Command("gone", ("Ana",))
    assert parse("gone").kind != "gone"  # alone it is no command (maybe an answer)


def test_gone_by_sms(fake: FakeTwilio) -> None:
    async def main() -> None:
        w = World(fake, rate=0)
        try:
            w.clock.now = T0
            await w.text(HOST, "NY STASJON")
            found = re.search(r"\b([A-Z]{4})\b", w.inbox(HOST)[0].split("\n")[0])
            assert found is not None, w.inbox(HOST)
            game_id = await w.store.game_for_code(found.group(1))
            assert game_id is not None
            for phone, name in zip(PHONES, NAMES, strict=True):
                await w.text(phone, f"JOIN {found.group(1)} {name}")
            await w.text(HOST, "START GAME")
            version = (await w.service.load(game_id)).version

            await w.text(PHONES[1], "UTE Ana")  # not the host: refused, nothing changes
            await w.text(HOST, "UTE Zed")  # nobody of that name
            after = await w.service.load(game_id)
            assert after.version == version and gone_players(after) == ()

            await w.text(HOST, "ute ana")
            game = await w.service.load(game_id)
            assert gone_players(game) == (w.pid(PHONES[0]),)
            said = "Verten har meldt Ana ute av spillet"
            told = [p for p in PHONES if any(said in t for t in w.inbox(p))]
            assert told == PHONES, {p: w.inbox(p)[-2:] for p in PHONES}
        finally:
            await w.close()

    run(main())
