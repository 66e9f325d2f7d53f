"""The host marks a player gone for good by SMS (issue #32 item 1): GONE NAME
(UTE, OTIŠAO), through signed Twilio webhooks and the fake Twilio. The table
is told in the game's language. From a player the words are no command: the
text is read as it would be otherwise (UTE is also an answer's word)."""

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


async def started(w: World) -> str:
    """A game of Station the SMS host made, the five players joined, started."""
    await w.text(HOST, "NY STASJON")
    found = re.search(r"\b([A-Z]{4})\b", w.inbox(HOST)[0].split("\n")[0])
    assert found is not None, w.inbox(HOST)
    game_id = await w.store.game_for_code(found.group(1))
    assert game_id is not None
    for phone, name in zip(PHONES, NAMES, strict=True):
        await w.text(phone, f"JOIN {found.group(1)} {name}")
    await w.text(HOST, "START GAME")
    return game_id


def test_the_words_in_three_languages() -> None:
    assert parse("GONE Ana") == Command("gone", ("Ana",))
    assert parse("ute Ana Berg") == Command("gone", ("Ana Berg",))
    assert parse("Otišao Ana") == Command("gone", ("Ana",))
    assert parse("gone").kind != "gone"  # alone it is no command (maybe an answer)
    assert parse("UTE Ana", host=False).kind == "unknown"  # a player's: no command either


def test_gone_by_sms(fake: FakeTwilio) -> None:
    async def main() -> None:
        w = World(fake, rate=0)
        try:
            w.clock.now = T0
            game_id = await started(w)
            version = (await w.service.load(game_id)).version

            await w.text(PHONES[1], "UTE Ana")  # not the host: no GONE, nothing changes
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


def test_a_players_gone_is_no_command(fake: FakeTwilio) -> None:
    """GONE's words are ordinary ones: a player's "UTE Ana" is read as what
    it would be from anyone, here an answer the station's menu can't read
    (the usual help), not as the host's GONE refused."""

    async def main() -> None:
        w = World(fake, rate=0)
        try:
            game_id = await started(w)
            version = (await w.service.load(game_id)).version

            replies = []
            for body in ("UTE Ana", "XYZ Ana", "gone Ana", "Otišao Ana"):
                before = len(w.inbox(PHONES[1]))
                await w.text(PHONES[1], body)
                replies.append(w.inbox(PHONES[1])[before:])
            assert replies[0] and all(r == replies[0] for r in replies), replies
            assert replies[0][0].startswith("Skjønte ikke"), replies[0]
            after = await w.service.load(game_id)
            assert after.version == version and gone_players(after) == ()
        finally:
            await w.close()

    run(main())
