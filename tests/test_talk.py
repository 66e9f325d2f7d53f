"""Players at home talk through the bot (issue #33), through the real wire
formats: Telegram updates against the fake Bot API and signed Twilio
webhooks against the fake Twilio, on one game service (tests/talk_table.py).

A Traitors campaign of four Telegram and three SMS players: by day the
table's talk reaches every other living player once, on their own channel,
also when an update or a webhook is delivered again; a banished player's
talk is refused kindly and they hear no more; at night the traitors' talk
reaches exactly the living traitors, whichever channel and whichever deal
(the roles swapped); quiet hours refuse talk and say when it opens."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from gameflow.games.traitors.state import NIGHT_PHASES
from service import talk
from tests.campaign_helpers import oslo
from tests.fake_telegram import FakeBotApi, serving
from tests.fake_twilio import FakeTwilio
from tests.store_helpers import run
from tests.talk_table import HOST, SMS, TG, TalkTable, sms_id

pytestmark = [pytest.mark.telegram, pytest.mark.sms]

ELI, FIA, GUS = SMS  # the SMS players' phones
EVERYONE = [*(f"tg:{u}" for u in TG), *(sms_id(p) for p in SMS)]
ANA_AND_FIA = {"tg:100": "traitor", sms_id(FIA): "traitor"}  # the traitors, unless said


@asynccontextmanager
async def table(
    tmp_path: Path, fake: FakeTwilio, roles: dict[str, str] = ANA_AND_FIA, **how: Any
) -> AsyncIterator[tuple[FakeBotApi, TalkTable]]:
    """The fake Bot API and the table's campaign, open with `roles` dealt
    (`how`: TalkTable.open's `sets` and `group`)."""
    async with serving(FakeBotApi()) as api, TalkTable(api, fake, tmp_path) as t:
        await t.open(roles, **how)
        yield api, t


def test_a_day_of_table_talk_on_both_channels(tmp_path: Path, fake: FakeTwilio) -> None:
    async def main() -> None:
        async with table(tmp_path, fake) as (_api, t):
            game = await t.game()
            assert game.phase.name not in NIGHT_PHASES

            update = await t.tg_say(100, "I trust \u202eBo, not Cy\x07")
            line = "Ana: I trust Bo, not Cy"  # the bot names her; the bidi and bell dropped
            await t.text(ELI, "SAY Dag was quiet today")
            sms_line = "Eli: Dag was quiet today"
            sid = await t.text(GUS, "kaži Ja sam nevin")  # Serbian, any case and accents
            sr_line = "Gus: Ja sam nevin"
            # a redelivered update and a redelivered webhook are relayed once
            await t.tg_say(100, "", update=update)
            await t.text(GUS, "kaži Ja sam nevin", sid=sid)

            for text, speaker in (
                (line, "tg:100"),
                (sms_line, sms_id(ELI)),
                (sr_line, sms_id(GUS)),
            ):
                got = t.got(text)
                assert got == {p: int(p != speaker) for p in EVERYONE}, (text, got)
            # the game did not move: talk is no game action, and not in its log
            assert (await t.game()).version == game.version
            assert not any("trust" in str(e) for e in await t.store.log(t.game_id))

    run(main())


def test_a_banished_player_is_silent_and_hears_no_more(tmp_path: Path, fake: FakeTwilio) -> None:
    async def main() -> None:
        async with table(tmp_path, fake) as (api, t):
            await t.banish("tg:103")  # Dag
            game = await t.game()
            assert game.rules.status[game.seat("tg:103")] == "banished"
            await t.tg_say(103, "but I was loyal!")
            assert "no longer talk" in api.texts(103)[-1]
            assert t.got("but I was loyal") == dict.fromkeys(EVERYONE, 0)

            game = await t.advance_until(("mission",))  # the next day (maybe a murder)
            alive = {p for p in EVERYONE if game.rules.status[game.seat(p)] == "active"}
            assert "tg:101" in alive and "tg:103" not in alive
            before = len(api.texts(103))
            await t.tg_say(101, "Dag was right")
            got = t.got("Bo: Dag was right")
            assert got == {p: int(p in alive and p != "tg:101") for p in EVERYONE}, got
            assert len(api.texts(103)) == before  # the dead hear no more talk

            await t.banish(sms_id(ELI))
            await t.text(ELI, "SAY listen to me")
            assert "no longer talk" in fake.to(ELI)[-1]
            assert t.got("listen to me") == dict.fromkeys(EVERYONE, 0)

    run(main())


TEAMS = {
    "a": {"tg:100": "traitor", sms_id(FIA): "traitor"},
    "b": {"tg:102": "traitor", sms_id(GUS): "traitor", "tg:101": "traitor"},
}


@pytest.mark.parametrize("deal", sorted(TEAMS))
def test_the_traitors_talk_reaches_exactly_the_living_traitors(
    tmp_path: Path, fake: FakeTwilio, deal: str
) -> None:
    roles = TEAMS[deal]
    traitors = sorted(roles)

    async def main() -> None:
        async with table(tmp_path, fake, roles) as (api, t):
            loyal = next(p for p in EVERYONE if p not in roles)
            await t.banish(loyal)  # a dead loyal hears nothing of it either
            game = await t.advance_until(NIGHT_PHASES)
            assert game.phase.name in NIGHT_PHASES
            alive = [p for p in EVERYONE if game.rules.status[game.seat(p)] == "active"]

            for n, speaker in enumerate(traitors):
                words = f"murder plan {n}"
                if speaker.startswith("tg:"):
                    await t.tg_say(int(speaker[3:]), words)
                else:
                    phone = next(p for p in SMS if sms_id(p) == speaker)
                    await t.text(phone, f"SI {words}")  # Norwegian
                got = t.got(f"(team only): {words}")
                want = {p: int(p in roles and p != speaker and p in alive) for p in EVERYONE}
                assert got == want, (speaker, got)

            # a loyal at night has nobody to talk to: not understood, nothing sent
            other = next(p for p in alive if p not in roles and p.startswith("tg:"))
            await t.tg_say(int(other[3:]), "hello? anyone?")
            assert t.got("hello? anyone?") == dict.fromkeys(EVERYONE, 0)
            assert "understand" in api.texts(int(other[3:]))[-1]

    run(main())


def test_quiet_hours_refuse_talk_and_say_when_it_opens(tmp_path: Path, fake: FakeTwilio) -> None:
    async def main() -> None:
        async with table(tmp_path, fake) as (api, t):
            t.clock.now = oslo(15, 23, 30)
            sent = len(fake.messages), len(api.sent())
            await t.tg_say(101, "anyone awake?")
            await t.text(ELI, "SAY anyone awake?")
            assert t.got("anyone awake?") == dict.fromkeys(EVERYONE, 0)
            # the refusals are replies (Telegram's at once; the SMS one waits
            # out the quiet hours like every text of the game)
            assert "07:00" in api.texts(101)[-1]
            assert len(fake.messages) == sent[0]
            t.clock.now = oslo(16, 7) + 1
            await t.settle()
            assert "07:00" in fake.to(ELI)[-1]

    run(main())


def test_flood_control_warns_then_mutes(tmp_path: Path, fake: FakeTwilio) -> None:
    async def main() -> None:
        async with table(tmp_path, fake) as (api, t):
            for i in range(talk.BURST):
                await t.tg_say(101, f"line {i}")
            await t.tg_say(101, "one too many")
            assert "Slow down" in api.texts(101)[-1]
            await t.tg_say(101, "and another")
            assert "muted" in api.texts(101)[-1]
            assert t.got("one too many") == dict.fromkeys(EVERYONE, 0)
            assert t.got("and another") == dict.fromkeys(EVERYONE, 0)
            assert t.got("Bo: line 4")["tg:100"] == 1
            t.clock.now += talk.MUTES[0] + 1
            await t.tg_say(101, "calm now")
            assert t.got("Bo: calm now")["tg:100"] == 1

    run(main())


def test_mute_stops_talk_texts_and_unmute_restarts_them(tmp_path: Path, fake: FakeTwilio) -> None:
    async def main() -> None:
        async with table(tmp_path, fake) as (_api, t):
            await t.text(ELI, "DEMP")
            assert "UNMUTE" in fake.to(ELI)[-1] or "DEMP" in fake.to(ELI)[-1] or fake.to(ELI)[-1]
            await t.tg_say(101, "first")
            assert t.got("Bo: first")[sms_id(ELI)] == 0
            assert t.got("Bo: first")[sms_id(GUS)] == 1
            await t.text(ELI, "GLASNO")
            await t.tg_say(101, "second")
            assert t.got("Bo: second")[sms_id(ELI)] == 1

    run(main())


@pytest.mark.parametrize("accept", [True, False])
def test_a_tempted_player_joins_the_traitors_talk_and_a_refuser_never_sees_it(
    tmp_path: Path, fake: FakeTwilio, accept: bool
) -> None:
    """Ana, Cy (Telegram) and Fia (SMS) are the traitors; Fia is banished,
    so Ana and Cy tempt Gus (SMS) at night. Gus joins the traitors' talk from
    the next night if he accepts; if he refuses he never sees it."""

    async def main() -> None:
        roles = {"tg:100": "traitor", "tg:102": "traitor", sms_id(FIA): "traitor"}
        async with table(tmp_path, fake, roles, sets=("recruit true", "final_day 6")) as (_api, t):
            await t.banish(sms_id(FIA))
            await t.advance_until(NIGHT_PHASES)
            gus = sms_id(GUS)
            await t.tg_say(100, "tempt Gus?")  # before: Cy only
            assert t.got("tempt Gus?") == {p: int(p == "tg:102") for p in EVERYONE}
            await t.act({"as": "tg:100", "do": "tempt", "target": gus})
            await t.act({"as": "tg:102", "do": "tempt", "target": gus})
            await t.act({"as": gus, "do": "answer", "accept": accept})
            await t.deadline()  # breakfast: the answer counts
            game = await t.game()
            assert (game.rules.role[game.seat(gus)] == "traitor") == accept

            await t.banish("tg:103")  # the next round table, then the night
            game = await t.advance_until(NIGHT_PHASES)
            await t.tg_say(100, "welcome to the team")
            await t.text(GUS, "SAY glad to be here")
            got = t.got("(team only): welcome to the team")
            assert got == {p: int(p == "tg:102" or (accept and p == gus)) for p in EVERYONE}, got
            back = t.got("(team only): glad to be here")
            want = {p: int(accept and p in ("tg:100", "tg:102")) for p in EVERYONE}
            assert back == want, back
            if not accept:
                assert "closed" in fake.to(GUS)[-1]

    run(main())


def test_the_host_mutes_and_unmutes_a_player(tmp_path: Path, fake: FakeTwilio) -> None:
    async def main() -> None:
        async with table(tmp_path, fake) as (api, t):
            await t.h.command(102, "Cy", "/mute Bo")
            assert api.texts(102)[-1] == "Only the host can do that."
            await t.h.command(HOST, "Hana", "/mute Nobody")
            assert "no player called Nobody" in api.texts(HOST)[-1]
            await t.h.command(HOST, "Hana", "/mute bo")  # any case
            assert "Bo is muted" in api.texts(HOST)[-1]
            await t.tg_say(101, "you cannot stop me")
            assert "host has muted you" in api.texts(101)[-1]
            await t.text(ELI, "SAY me neither")  # others still talk
            assert t.got("you cannot stop me") == dict.fromkeys(EVERYONE, 0)
            assert t.got("Eli: me neither")["tg:101"] == 1
            await t.h.command(HOST, "Hana", "/unmute Bo")
            assert "Bo may talk again" in api.texts(HOST)[-1]
            await t.tg_say(101, "thank you")
            assert t.got("Bo: thank you")[sms_id(ELI)] == 1

    run(main())


def test_a_live_game_has_no_table_talk(tmp_path: Path, fake: FakeTwilio) -> None:
    """A live game's table talks in the room: plain text is not understood,
    SAY is told talk is closed, and nothing is relayed."""

    async def main() -> None:
        async with table(tmp_path, fake, sets=("pacing fast",)) as (api, t):
            assert (await t.game()).option("pacing") == "fast"
            await t.tg_say(101, "hello table")
            assert "understand" in api.texts(101)[-1]
            await t.text(ELI, "SAY hello table")
            assert "closed" in fake.to(ELI)[-1]
            assert t.got("hello table") == dict.fromkeys(EVERYONE, 0)

    run(main())


def test_the_group_hears_the_table_and_never_the_team(tmp_path: Path, fake: FakeTwilio) -> None:
    group = -5001

    async def main() -> None:
        async with table(tmp_path, fake, group=group) as (api, t):
            await t.text(ELI, "SAY from my phone")
            assert sum("Eli: from my phone" in x for x in api.texts(group)) == 1
            await t.advance_until(NIGHT_PHASES)
            await t.tg_say(100, "our secret")
            assert t.got("(team only): our secret")[sms_id(FIA)] == 1
            assert not any("our secret" in x for x in api.texts(group))

    run(main())
