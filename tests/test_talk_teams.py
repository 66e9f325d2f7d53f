"""Talk through the bot in the board games (issue #33), through the real wire
formats: Telegram updates against the fake Bot API and signed Twilio
webhooks against the fake Twilio, on one game service (tests/talk_table.py).

A live Station game relays the table's talk only with `table_talk` on; the
Resistance's spies talk privately with `team_talk` on, across Telegram and
SMS, and the loyal players never see it; a host who plays by SMS mutes a
player with `MUTE NAME`; the help texts name the talk's words in every
language."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from adapters.sms import grammar as G
from adapters.sms import render as R
from adapters.sms.segments import prepare, segments
from adapters.telegram.help import SETTINGS
from adapters.telegram.talk import TEAM_PRIVATELY
from gameflow.core import actions as A
from gameflow.core.engine import apply, new_game
from gameflow.core.result import Accepted, Rejected
from gameflow.core.state import Game
from gameflow.games.station import talk as station_talk
from gameflow.i18n import render
from service import talk
from tests.fake_telegram import FakeBotApi, serving
from tests.fake_twilio import FakeTwilio
from tests.store_helpers import run
from tests.talk_table import HOST, SMS, TG, TalkTable, sms_id

pytestmark = [pytest.mark.telegram, pytest.mark.sms]

ELI, FIA, GUS = SMS  # the SMS players' phones
EVERYONE = [*(f"tg:{u}" for u in TG), *(sms_id(p) for p in SMS)]
HOST_PHONE = "+4791240009"


class BoardTable(TalkTable):
    """The talk table with a board game, live (pacing fast), its host on
    Telegram (`open_board`) or by SMS (`open_by_sms`)."""

    async def __aenter__(self) -> BoardTable:
        await super().__aenter__()
        return self

    async def open_board(
        self,
        kind: str,
        roles: dict[str, str],
        sets: tuple[str, ...],
        before: tuple[str, ...] = (),
    ) -> Game:
        h = self.h
        h.setup = {"roles": roles}
        code, self.game_id = await h.new(HOST, kind)
        for line in before:
            await h.command(HOST, "Hana", line)
        for line in sets:
            await h.command(HOST, "Hana", f"/set {line}")
        return await self._fill(code, lambda: h.command(HOST, "Hana", "/startgame"))

    async def open_by_sms(self, kind: str, sets: tuple[str, ...]) -> Game:
        await self.text(HOST_PHONE, f"NEW {kind}")
        found = re.search(r"Game (\w+) is open", self.fake.to(HOST_PHONE)[-1])
        assert found, self.fake.to(HOST_PHONE)[-1]
        code = found.group(1)
        where = await self.store.whereis(sms_id(HOST_PHONE))
        assert where is not None
        self.game_id = where[0]
        for line in sets:
            await self.text(HOST_PHONE, f"SET {line}")
        return await self._fill(code, lambda: self.text(HOST_PHONE, "START GAME"))

    async def cmd(self, uid: int, text: str) -> None:
        """`uid` sends a command in the bot's private chat; the outbox drained."""
        await self.h.command(uid, TG.get(uid, "Hana"), text)
        await self.settle()

    async def _fill(self, code: str, start: object) -> Game:
        for uid, name in TG.items():
            await self.h.command(uid, name, f"/start {code}")
        for phone, name in SMS.items():
            await self.text(phone, f"JOIN {code} {name}")
        await start()  # type: ignore[operator]
        game = await self.game()
        assert game.running, (self.api.texts(HOST)[-3:], self.fake.to(HOST_PHONE)[-3:])
        await self.settle()
        return game


@pytest.mark.parametrize("table_talk", [True, False])
def test_a_live_station_game_relays_talk_only_with_table_talk(
    tmp_path: Path, fake: FakeTwilio, table_talk: bool
) -> None:
    async def main() -> None:
        async with serving(FakeBotApi()) as api, BoardTable(api, fake, tmp_path) as t:
            roles = {"tg:100": "infiltrator", sms_id(FIA): "infiltrator"}
            sets = ("table_talk on",) if table_talk else ()
            game = await t.open_board("station", roles, sets)
            assert game.option("pacing") == "fast" and game.option("table_talk") is table_talk
            await t.tg_say(101, "plan 2 looks safe")
            await t.text(ELI, "SAY Ana guarded twice")
            said = t.got("Bo: plan 2 looks safe")
            heard = t.got("Eli: Ana guarded twice")
            if table_talk:
                assert said == {p: int(p != "tg:101") for p in EVERYONE}, said
                assert heard == {p: int(p != sms_id(ELI)) for p in EVERYONE}, heard
            else:  # the table talks in the room: nothing is relayed
                assert said == heard == dict.fromkeys(EVERYONE, 0)
                assert "understand" in api.texts(101)[-1]
                assert "closed" in fake.to(ELI)[-1]

    run(main())


SPIES = {"tg:100": "spy", "tg:102": "spy", sms_id(FIA): "spy"}


@pytest.mark.parametrize("table_talk", [False, True])
def test_the_resistance_spies_talk_privately_across_both_channels(
    tmp_path: Path, fake: FakeTwilio, table_talk: bool
) -> None:
    """Ana, Cy (Telegram) and Fia (SMS) are the spies. Live without table
    talk their plain talk goes to the spies; with it, plain talk goes to the
    table and TEAM (/team, LAG, TAJNO) to the spies. A loyal player's TEAM
    is refused and relays nothing; no loyal player sees a spy's line."""

    def only_spies(speaker: str) -> dict[str, int]:
        return {p: int(p in SPIES and p != speaker) for p in EVERYONE}

    async def main() -> None:
        async with serving(FakeBotApi()) as api, BoardTable(api, fake, tmp_path) as t:
            sets = ("team_talk on", *(("table_talk on",) if table_talk else ()))
            game = await t.open_board("resistance", SPIES, sets)
            assert [p for i, p in enumerate(game.players) if game.rules.spy[i]] == [
                p for p in game.players if p in SPIES
            ]
            await t.cmd(100, "/team fail mission 1")
            assert t.got("Ana (team only): fail mission 1") == only_spies("tg:100")
            await t.text(FIA, "LAG not me this time")  # Norwegian, by SMS
            assert t.got("Fia (team only): not me this time") == only_spies(sms_id(FIA))
            await t.text(FIA, "tajno Cy goes next")  # Serbian, any case
            assert t.got("Fia (team only): Cy goes next") == only_spies(sms_id(FIA))

            # /team in a group relays nothing: the spy is told privately where to say it
            await t.h.command(100, "Ana", "/team in the group", chat_id=-5001)
            await t.settle()
            assert api.texts(100)[-1] == render(TEAM_PRIVATELY, "en")
            assert not api.texts(-5001)
            assert t.got("in the group") == dict.fromkeys(EVERYONE, 0)

            await t.tg_say(102, "I approve")  # a spy's plain talk
            if table_talk:
                assert t.got("Cy: I approve") == {p: int(p != "tg:102") for p in EVERYONE}
            else:
                assert t.got("Cy (team only): I approve") == only_spies("tg:102")

            # a loyal player has no team: refused, nothing relayed, on both channels
            await t.cmd(101, "/team who are you")
            assert api.texts(101)[-1] == "You have no team to talk with in private now."
            await t.text(ELI, "TEAM anyone there")
            assert fake.to(ELI)[-1] == "You have no team to talk with in private now."
            assert t.got("who are you") == t.got("anyone there") == dict.fromkeys(EVERYONE, 0)
            for loyal in ("tg:101", "tg:103", sms_id(ELI), sms_id(GUS)):
                assert talk.offered(await t.game(), loyal)[1] is False
            assert talk.offered(await t.game(), "tg:100")[1] is True

    run(main())


def _ok(out: Accepted[Game] | Rejected) -> Game:
    assert isinstance(out, Accepted), out
    return out.state


def test_station_team_talk_is_the_living_infiltrators_only() -> None:
    """Station's team (gameflow/games/station/talk.py): the living infiltrators
    with `team_talk` on, the speaker first; a dead one has none and is in no
    one's; a loyal player has none; off, nobody has one."""
    roles = {"p0": "infiltrator", "p3": "infiltrator", "p5": "infiltrator"}
    game = new_game("station", "g", "host", 7, options={"team_talk": True}, setup={"roles": roles})
    for p in (f"p{i}" for i in range(8)):
        game = _ok(apply(game, A.Join(p, None, p.upper()), 0.0))
    game = _ok(apply(game, A.Start("host", None), 0.0))
    assert game.running
    assert station_talk.team(game, "p3") == ("p3", "p0", "p5")
    assert station_talk.team(game, "p1") == ()
    dead = tuple(i == 5 for i in range(8))
    after = game._replace(rules=game.rules._replace(dead=dead))
    assert station_talk.team(after, "p0") == ("p0", "p3")
    assert station_talk.team(after, "p5") == ()
    off = game._replace(
        options=tuple((k, False if k == "team_talk" else v) for k, v in game.options)
    )
    assert station_talk.team(off, "p0") == ()


def test_without_team_talk_the_spies_have_no_private_talk(tmp_path: Path, fake: FakeTwilio) -> None:
    async def main() -> None:
        async with serving(FakeBotApi()) as api, BoardTable(api, fake, tmp_path) as t:
            game = await t.open_board("resistance", SPIES, ("table_talk on",))
            assert game.option("team_talk") is False
            await t.cmd(100, "/team fail it")
            assert api.texts(100)[-1] == "You have no team to talk with in private now."
            await t.text(FIA, "TEAM fail it")
            assert fake.to(FIA)[-1] == "You have no team to talk with in private now."
            assert t.got("fail it") == dict.fromkeys(EVERYONE, 0)
            await t.tg_say(100, "hello all")  # the table's talk is open
            assert t.got("Ana: hello all") == {p: int(p != "tg:100") for p in EVERYONE}

    run(main())


def test_the_host_mutes_a_player_by_sms(tmp_path: Path, fake: FakeTwilio) -> None:
    """The host plays by SMS: MUTE NAME mutes that player's talk, UNMUTE NAME
    lets them talk again; a player's MUTE NAME is refused, and a player's
    MUTE alone still turns their own talk texts off."""

    async def main() -> None:
        async with serving(FakeBotApi()) as api, BoardTable(api, fake, tmp_path) as t:
            await t.open_by_sms("station", ("table_talk on",))
            await t.text(ELI, "MUTE Bo")
            assert fake.to(ELI)[-1] == "Only the host can do that."
            await t.text(HOST_PHONE, "MUTE Nobody")
            assert "no player called Nobody" in fake.to(HOST_PHONE)[-1]
            await t.text(HOST_PHONE, "demp bo")  # Norwegian, any case
            assert "Bo is muted" in fake.to(HOST_PHONE)[-1]
            await t.tg_say(101, "you cannot stop me")
            assert "host has muted you" in api.texts(101)[-1]
            assert t.got("you cannot stop me") == dict.fromkeys(EVERYONE, 0)
            await t.text(GUS, "SAY Bo is muted")  # the others still talk
            assert t.got("Gus: Bo is muted")["tg:101"] == 1
            await t.text(HOST_PHONE, "GLASNO Bo")  # Serbian UNMUTE
            assert "Bo may talk again" in fake.to(HOST_PHONE)[-1]
            await t.tg_say(101, "thank you")
            assert t.got("Bo: thank you")[sms_id(ELI)] == 1

            await t.text(ELI, "HELP")  # a player's help names the talk, the host's MUTE name
            assert "SAY words: talk to the others" in fake.to(ELI)[-1]
            await t.text(HOST_PHONE, "HELP")
            assert "MUTE name, UNMUTE name" in fake.to(HOST_PHONE)[-1]
            await t.text(ELI, "MUTE")  # alone: Eli's own talk texts off
            assert "Talk texts are off" in fake.to(ELI)[-1]
            await t.tg_say(101, "quiet now")
            assert t.got("Bo: quiet now")[sms_id(ELI)] == 0

    run(main())


# -- the help texts ----------------------------------------------------------------

SMS_WORDS = {
    "en": ("SAY", "TEAM", "MUTE", "UNMUTE", "SET"),
    "nb": ("SI", "LAG", "DEMP", "LYD", "SETT"),
    "sr": ("KAŽI", "TAJNO", "TIHO", "GLASNO", "PODESI"),
}


def _resistance(lang: str) -> Game:
    """A live Resistance game with table and team talk, Ana and Cy the spies."""
    roles = {"ana": "spy", "cy": "spy"}
    options = {"table_talk": True, "team_talk": True}
    game = new_game(
        "resistance", "g", "host", 7, lang=lang, options=options, setup={"roles": roles}
    )
    for p in ("ana", "bo", "cy", "dag", "eli"):
        game = _ok(apply(game, A.Join(p, None, p.title()), 0.0))
    return _ok(apply(game, A.Start("host", None), 0.0))


@pytest.mark.parametrize("lang", sorted(SMS_WORDS))
def test_sms_help_names_the_talk_words_the_grammar_takes(lang: str) -> None:
    """HELP adds the lines that apply to the sender now: the talk to a
    player, TEAM to a spy only, SET and MUTE name to the host; each within
    two segments as texted; every word it names is one the grammar reads."""
    say, team, mute, unmute, set_ = SMS_WORDS[lang]
    game = _resistance(lang)
    spy, loyal, host = (R.help_text(game, p, lang) for p in ("ana", "bo", "host"))
    stranger = R.help_text(None, "x", lang)
    assert stranger == R.t(R.HELP, lang) and f"{say} " not in stranger
    assert all(f"{w}" in spy for w in (say, team, mute, unmute)), spy
    assert f"{say} " in loyal and f"{team} " not in loyal, loyal
    assert f"{set_}:" in host and f"{mute} " in host and f"{team} " not in host, host
    for text in (spy, loyal, host):
        assert segments(prepare(text, lang, transliterate_sr=True)) <= 2, text
    assert G.parse(f"{say} hello").kind == "say"
    assert G.parse(f"{team} hello") == G.Command("team", ("hello",))
    assert G.parse(mute) == G.Command("mute")
    assert G.parse(f"{mute} Ana Bo") == G.Command("mute", ("Ana Bo",))
    assert G.parse(f"{unmute} Ana") == G.Command("unmute", ("Ana",))
    assert G.parse(set_).kind == "set"


TG_WORDS = {
    "en": ("talk to the other players", "/team", "/mute NAME", "/setup"),
    "nb": ("snakke med de andre spillerne", "/team", "/mute NAVN", "/setup"),
    "sr": ("razgovaraš sa ostalim igračima", "/team", "/mute IME", "/setup"),
}


@pytest.mark.parametrize("lang", sorted(TG_WORDS))
def test_telegram_help_lists_talk_only_where_it_applies(
    tmp_path: Path, fake: FakeTwilio, lang: str
) -> None:
    """/help lists /set alone and /setup to the host in the lobby; in the
    game the table's talk to every player, /team to a spy only, and /mute to
    the host; in the game's language."""
    talk_line, team_line, mute_line, setup_line = TG_WORDS[lang]

    async def main() -> None:
        async with serving(FakeBotApi()) as api, BoardTable(api, fake, tmp_path) as t:
            sets = ("team_talk on", "table_talk on")
            await t.open_board("resistance", SPIES, sets, before=(f"/lang {lang}", "/help"))
            settings = render(SETTINGS, lang)  # the lobby's /help: /set alone, /setup
            assert setup_line in settings and any(settings in x for x in api.texts(HOST))
            for uid in (100, 101, HOST):
                await t.cmd(uid, "/help")
            spy, loyal, host = api.texts(100)[-1], api.texts(101)[-1], api.texts(HOST)[-1]
            assert talk_line in spy and talk_line in loyal, (spy, loyal)
            assert team_line in spy and team_line not in loyal, (spy, loyal)
            assert mute_line in host and mute_line not in spy + loyal, host

    run(main())
