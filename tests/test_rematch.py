"""Run it back (issue #32, item 5), through the wire formats: a Station game
of Telegram and SMS players (tests/talk_table.py's table: the Telegram
adapter against the fake Bot API, the SMS adapter fed signed Twilio
webhooks, on one service) is ended by its host, who runs it back with
`/again CODE` (and by SMS with `AGAIN CODE`). Every player is invited on
their own channel, joins with one tap or one text under their old name,
and the new game has the same options, a new seed and a new code; asking
twice makes one game, and a player (not the host) is refused."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from adapters.sms.renderer import MAX_SEGMENTS
from adapters.sms.segments import segments
from tests.fake_telegram import FakeBotApi, buttons, serving
from tests.fake_twilio import FakeTwilio
from tests.store_helpers import run
from tests.talk_table import HOST, SMS, TG, TalkTable, sms_id

pytestmark = [pytest.mark.telegram, pytest.mark.sms]


async def ended_station(t: TalkTable) -> tuple[str, str]:
    """A Station game of the table, set, joined, started and ended by its
    host: its join code and id."""
    h = t.h
    code, game_id = await h.new(HOST, "station")
    await h.command(HOST, "Hana", "/set vote_seconds 90")
    for uid, name in TG.items():
        await h.command(uid, name, f"/start {code}")
    for phone, name in SMS.items():
        await t.text(phone, f"JOIN {code} {name}")
    await h.command(HOST, "Hana", "/startgame")
    await h.command(HOST, "Hana", f"/again {code}")  # before the end: refused
    assert api_texts(t, HOST)[-1] == "That game has not ended yet: run it back once it is over."
    assert (await h.service.load(game_id)).running
    await h.command(HOST, "Hana", "/end")
    await t.settle()
    game = await h.service.load(game_id)
    assert game.over and len(game.players) == len(TG) + len(SMS)
    return code, game_id


def api_texts(t: TalkTable, uid: int) -> list[str]:
    return t.api.texts(uid)


def test_the_host_runs_a_mixed_game_back_and_everyone_joins_with_one_tap_or_text(
    fake: FakeTwilio, tmp_path: Path
) -> None:
    async def go() -> None:
        async with serving(FakeBotApi()) as api, TalkTable(api, fake, tmp_path) as t:
            h = t.h
            code, old_id = await ended_station(t)
            old = await h.service.load(old_id)
            # Before the end it is refused; a player may not run it back.
            await h.command(100, "Ana", f"/again {code}")
            assert api.texts(100)[-1] == "Only the host can do that."
            await t.text(next(iter(SMS)), f"AGAIN {code}")
            assert fake.to(next(iter(SMS)))[-1].startswith("Only the host can do that.")
            await h.command(HOST, "Hana", "/again")  # no code, in no game: the usage
            assert api.texts(HOST)[-1].startswith("Use /again CODE")

            await h.command(HOST, "Hana", f"/again {code}")
            done = api.texts(HOST)[-1]
            found = re.search(r"code ([A-Z]{4,6})\.", done)
            assert found is not None, done
            new_code = found.group(1)
            assert new_code != code and "/startgame" in done
            new_id = await h.store.game_for_code(new_code)
            assert new_id is not None and new_id != old_id
            new = await h.service.load(new_id)
            assert new.kind == old.kind and new.lang == old.lang and new.host == old.host
            assert new.options == old.options and new.option("vote_seconds") == 90
            assert new.seed != old.seed and new.phase.name == "lobby" and not new.players

            # Asked again, with the button under the host's end: the same one
            # game, and no invitation twice.
            await t.settle()
            sent = len(fake.messages)
            offer = next(m for m in api.chat(HOST) if m.get("reply_markup"))
            assert buttons(offer) == [("Run it back", f"again:host:{code}")]
            assert offer["text"].endswith(f"/again {code}")
            texts = api.texts(HOST)
            ended = max(i for i, x in enumerate(texts) if "You ended the game." in x)
            assert texts.index(offer["text"]) > ended  # under the end's news
            await h.press(HOST, "Hana", offer, f"again:host:{code}")
            assert new_code in api.texts(HOST)[-1]
            await t.settle()
            assert len(fake.messages) == sent  # no second invitation by SMS
            invites = [
                m
                for uid in TG
                for m in api.chat(uid)
                if ("Join the rematch", f"again:{new_code}") in buttons(m)
            ]
            assert len(invites) == len(TG)  # one each, whatever was asked twice

            # Each Telegram player taps once; each SMS player texts YES CODE once.
            for uid, name in TG.items():
                invite = api.last_with_buttons(uid)
                assert invite is not None and f"join as {name}." in invite["text"]
                await h.press(uid, name, invite, f"again:{new_code}")
                assert api.texts(uid)[-1].startswith(f"You are in, {name}!")
            for phone, name in SMS.items():
                invite = fake.to(phone)[-1]
                assert f"Reply YES {new_code} to join as {name}." in invite, invite
                assert segments(invite) <= MAX_SEGMENTS
                await t.text(phone, f"yes {new_code.lower()}")
            new = await h.service.load(new_id)
            assert set(new.players) == set(old.players)
            assert {new.name_of(p) for p in new.players} == set(old.names)
            assert sms_id(next(iter(SMS))) in new.players
            # A second tap is harmless.
            uid, name = next(iter(TG.items()))
            invite = api.last_with_buttons(uid)
            assert invite is not None
            await h.press(uid, name, invite, f"again:{new_code}")
            assert len((await h.service.load(new_id)).players) == len(old.players)

            # The host starts as usual: a new deal.
            await h.command(HOST, "Hana", "/startgame")
            new = await h.service.load(new_id)
            assert new.running, api.texts(HOST)[-2:]

    run(go())


def test_an_sms_host_runs_it_back_with_again(fake: FakeTwilio, tmp_path: Path) -> None:
    async def go() -> None:
        async with serving(FakeBotApi()) as api, TalkTable(api, fake, tmp_path) as t:
            h = t.h
            host = "+4791249999"
            await t.text(host, "NY STASJON")
            found = re.search(r"\b([A-Z]{4})\b", fake.to(host)[-1])
            assert found is not None
            code = found.group(1)
            old_id = await h.store.game_for_code(code)
            assert old_id is not None
            for uid, name in TG.items():
                await h.command(uid, name, f"/start {code}")
            for phone, name in SMS.items():
                await t.text(phone, f"DELTA {code} {name}")
            await t.text(host, "IGJEN " + code)  # before the end
            assert "ikke slutt ennå" in fake.to(host)[-1], fake.to(host)[-1]
            await t.text(host, "START SPILL")
            await t.text(host, "AVSLUTT")
            assert (await h.service.load(old_id)).over
            await t.text(host, "IGJEN")  # alone, in no game: the usage
            assert "IGJEN" in fake.to(host)[-1] or "AGAIN" in fake.to(host)[-1]
            await t.text(host, f"igjen {code}")
            found = re.search(r"kode ([A-Z]{4,6})", fake.to(host)[-1])
            assert found is not None, fake.to(host)[-1]
            new_code = found.group(1)
            new_id = await h.store.game_for_code(new_code)
            assert new_id is not None and new_id != old_id
            for phone in SMS:
                assert f"JA {new_code}" in fake.to(phone)[-1], fake.to(phone)[-1]
                await t.text(phone, f"JA {new_code}")
            for uid, name in TG.items():
                invite = api.last_with_buttons(uid)
                assert invite is not None
                assert buttons(invite) == [("Bli med igjen", f"again:{new_code}")]
                await h.press(uid, name, invite, f"again:{new_code}")
            new = await h.service.load(new_id)
            assert len(new.players) == len(TG) + len(SMS)
            await t.text(host, "START SPILL")
            assert (await h.service.load(new_id)).running

    run(go())
