"""Setting up by SMS (issue #32 item 2), signed webhooks through the real app
wiring to the fake Twilio API: `SETT` (SET, PODESI) alone texts the settings
with their values a page at a time, within three segments, the balance
table's warning first when the table is lopsided; `SETT name` one setting's
help and what it takes; yes/no settings take the usual words of every
language; a refused value says what fits and changes nothing; only the host
may."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from adapters.sms.segments import segments
from tests.fake_twilio import FakeTwilio
from tests.store_helpers import run
from tests.test_sms_host import HOST_PHONE, app

pytestmark = pytest.mark.sms

PHONES = [f"+47912311{i:02d}" for i in range(6)]
NAMES = ["Kari", "Ola", "Siri", "Nils", "Liv", "Per"]


def test_sms_host_lists_explains_and_changes_the_settings(tmp_path: Path, fake: FakeTwilio) -> None:
    async def main() -> None:
        async with app(tmp_path, fake) as a:
            code = await a.host_new("NY FORRÆDERE")
            game_id = await a.rt.service.store.game_for_code(code)
            assert game_id is not None

            async def game_now() -> dict[str, object]:
                return dict((await a.rt.service.load(game_id)).options)

            async def ask(body: str) -> str:
                before = len(a.inbox(HOST_PHONE))
                await a.text(HOST_PHONE, body)
                got = a.inbox(HOST_PHONE)[before:]
                assert len(got) == 1, (body, got)
                return got[0]

            # The settings, a page at a time, every page within three segments.
            first = await ask("SETT")
            assert first.startswith("Innstillinger 1/"), first
            pages = int(re.search(r"Innstillinger 1/(\d+):", first).group(1))  # type: ignore[union-attr]
            seen = first
            for page in range(2, pages + 1):
                text = await ask(f"SETT {page}")
                assert text.startswith(f"Innstillinger {page}/{pages}:"), text
                seen += " " + text
            for text in [first]:
                assert segments(text) <= 3, (segments(text), text)
            names = set(re.findall(r"(\w+)=", seen))
            assert names == set(await game_now()), names ^ set(await game_now())
            assert "recruit=nei" in seen and "fast_night=4m" in seen
            # One setting's help and what it takes.
            help_text = await ask("SETT recruit")
            assert help_text.startswith(
                "recruit = nei: forræderne kan rekruttere en lojal spiller i stedet for å drepe."
            )
            assert "recruit tar ja eller nei" in help_text
            # The usual yes/no words, any case, whichever language's keyword.
            for body, value in (
                ("SETT recruit ja", True),
                ("SET recruit off", False),
                ("PODESI recruit DA", True),
                ("SETT recruit 0", False),
                ("SET recruit on", True),
            ):
                await a.text(HOST_PHONE, body)
                assert (await game_now())["recruit"] is value, (body, a.inbox(HOST_PHONE)[-1])
            await a.text(HOST_PHONE, "SETT fast_night 2h")
            assert (await game_now())["fast_night"] == 7200.0
            # A refused value says what fits and changes nothing.
            before = await game_now()
            refused = await ask("SETT recruit kanskje")
            assert "recruit tar ja eller nei (on/off, ja/nei, da/ne, 1/0)." in refused
            refused = await ask("SETT final_day 99")
            assert "final_day tar et heltall fra 0 til 60." in refused
            assert await game_now() == before
            unknown = await ask("SETT vote_seconds 90")
            assert "Det finnes ingen innstilling som heter vote_seconds." in unknown

    run(main())


def test_sms_setup_warns_of_a_lopsided_table_only(tmp_path: Path, fake: FakeTwilio) -> None:
    async def main() -> None:
        async with app(tmp_path, fake) as a:
            code = await a.host_new("NEW TRAITORS")
            for phone, name in zip(PHONES, NAMES, strict=True):
                await a.text(phone, f"JOIN {code} {name}")
            await a.text(HOST_PHONE, "SET")
            balanced = a.inbox(HOST_PHONE)[-1]
            assert balanced.startswith("Settings 1/") and "Lopsided" not in balanced
            # Two traitors at six players: 83.9 % for the traitors by docs/balance.md.
            await a.text(HOST_PHONE, "SET traitors 2")
            assert "Lopsided" in a.inbox(HOST_PHONE)[-1], a.inbox(HOST_PHONE)[-1]
            await a.text(HOST_PHONE, "SET")
            page = a.inbox(HOST_PHONE)[-1]
            assert page.startswith(
                "Lopsided: by the balance table the traitors win about 84 % of games "
                "with 6 players and 2 traitors (traitors 0 evens it). Settings 1/"
            ), page
            assert "traitors=2" in page and segments(page) <= 3, (segments(page), page)
            await a.text(HOST_PHONE, "SET traitors 0")
            await a.text(HOST_PHONE, "SET")
            assert "Lopsided" not in a.inbox(HOST_PHONE)[-1]
            # A player may not.
            await a.text(PHONES[0], "SET")
            assert a.inbox(PHONES[0])[-1] == "Only the host can do that."

    run(main())
