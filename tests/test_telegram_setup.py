"""Setting up over Telegram (issue #32 item 2), real updates through the fake
Bot API: `/set` alone lists the game's settings with their values and a line
of help each, its example a setting of the game in hand; yes/no settings take
the usual words of every language; a refused value says what fits and
changes nothing; `/setup` gives the whole setup in one message, with the
balance table's warning for a lopsided Traitors table and none for a
balanced one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.store_helpers import run
from tests.telegram_helpers import telegram_bot
from tests.test_telegram import HOST

pytestmark = pytest.mark.telegram

TABLE = {20 + i: name for i, name in enumerate(("Ana", "Bo", "Cy", "Dag", "Eli", "Fia"))}
MORE = {30 + i: name for i, name in enumerate(("Gro", "Hal", "Ida", "Jon"))}


def test_set_alone_lists_the_settings_and_yes_no_words_work_in_every_language(
    tmp_path: Path,
) -> None:
    async def go() -> None:
        async with telegram_bot(tmp_path) as (api, h):
            _code, game_id = await h.new(HOST, "traitors")
            await h.command(HOST, "Hana", "/lang nb")
            await h.command(HOST, "Hana", "/set")
            listing = api.texts(HOST)[-1].splitlines()
            # The example is a setting of this game (the Traitors refuse vote_seconds).
            example = re.search(r"/set (\w+) (\w+)\.$", listing[0])
            assert example is not None and example.group(1) != "vote_seconds", listing[0]
            lines = {line.split(" = ")[0]: line for line in listing[1:] if " = " in line}
            assert example.group(1) in lines
            assert lines["recruit"] == (
                "recruit = nei: forræderne kan rekruttere en lojal spiller i stedet for å drepe"
            )
            assert lines["fast_night"].startswith("fast_night = 4m: ")
            game = await h.service.load(game_id)
            assert set(lines) == set(dict(game.options))
            # The example works as written.
            await h.command(HOST, "Hana", f"/set {example.group(1)} {example.group(2)}")
            assert api.texts(HOST)[-1] == f"Ferdig: {example.group(1)} = {example.group(2)}."
            # The usual yes/no words, any case, in the game's language and the others.
            for word, value in (("ja", True), ("off", False), ("1", True), ("NEI", False)):
                await h.command(HOST, "Hana", f"/set recruit {word}")
                game = await h.service.load(game_id)
                assert game.option("recruit") is value, (word, api.texts(HOST)[-1])
            for word in ("on", "yes", "true", "da"):
                await h.command(HOST, "Hana", "/set recruit nei")
                await h.command(HOST, "Hana", f"/set recruit {word}")
                assert (await h.service.load(game_id)).option("recruit") is True, word
            # A duration in the form the list shows.
            await h.command(HOST, "Hana", "/set fast_night 5m")
            assert (await h.service.load(game_id)).option("fast_night") == 300.0
            # A refused value says what fits, in the game's language, and changes nothing.
            for line, fits in (
                ("/set recruit kanskje", "recruit tar ja eller nei"),
                ("/set fast_night forever", "fast_night tar en varighet fra 0 til 7 dager"),
                ("/set missions none", "missions tar én av: host, builtin, relay, chests."),
            ):
                before = await h.service.load(game_id)
                await h.command(HOST, "Hana", line)
                assert fits in api.texts(HOST)[-1], (line, api.texts(HOST)[-1])
                after = await h.service.load(game_id)
                assert after.options == before.options and after.version == before.version
            # /set NAME: that one, and what it takes.
            await h.command(HOST, "Hana", "/set final_day")
            assert api.texts(HOST)[-1].splitlines() == [
                "final_day = 0: dagen for den siste rådsalen; 0: etter antall spillere",
                "final_day tar et heltall fra 0 til 60.",
            ]

    run(go())


def test_setup_warns_of_a_lopsided_table_and_not_of_a_balanced_one(tmp_path: Path) -> None:
    async def go() -> None:
        async with telegram_bot(tmp_path) as (api, h):
            code, game_id = await h.new(HOST, "traitors")
            for uid, name in TABLE.items():
                await h.command(uid, name, f"/join {code}")
            await h.command(HOST, "Hana", "/setup")
            balanced = api.texts(HOST)[-1]
            assert balanced.startswith("Traitors, ready to start: 6 players, language en.")
            assert "Lopsided" not in balanced and "final_day = 0" in balanced
            assert "recruit = no" in balanced and balanced.endswith("start with /startgame.")
            # Two traitors at six players: docs/balance.md's 83.9 % at three days.
            await h.command(HOST, "Hana", "/set traitors 2")
            done = api.texts(HOST)[-1].splitlines()
            assert done[0] == "Done: traitors = 2." and done[1].startswith("Lopsided:"), done
            await h.command(HOST, "Hana", "/setup")
            lopsided = api.texts(HOST)[-1].splitlines()
            assert lopsided[1] == (
                "Lopsided: by the balance table the traitors win about 84 % of games "
                "with 6 players and 2 traitors (traitors 0 evens it)."
            )
            assert "traitors = 2" in lopsided
            # Back to the table's count: balanced again, and the start goes ahead.
            await h.command(HOST, "Hana", "/set traitors 0")
            assert api.texts(HOST)[-1] == "Done: traitors = 0."
            await h.command(HOST, "Hana", "/setup")
            assert "Lopsided" not in api.texts(HOST)[-1]
            # Only the host sees the setup and the settings.
            for line in ("/setup", "/set", "/set recruit", "/set recruit yes"):
                await h.command(20, "Ana", line)
                assert api.texts(20)[-1] == "Only the host can do that.", line
            # Issue #32's campaign: twelve days for ten players.
            for uid, name in MORE.items():
                await h.command(uid, name, f"/join {code}")
            await h.command(HOST, "Hana", "/set final_day 12")
            assert api.texts(HOST)[-1].splitlines() == [
                "Done: final_day = 12.",
                "Lopsided: by the balance table the traitors win about 72 % of games with "
                "10 players and 12 days; final_day 0 plays the balanced 3.",
            ]
            await h.command(HOST, "Hana", "/setup")
            setup = api.texts(HOST)[-1].splitlines()
            assert setup[0] == "Traitors, ready to start: 10 players, language en."
            assert setup[1].startswith("Lopsided:") and "final_day = 12" in setup
            await h.command(HOST, "Hana", "/set final_day 0")
            await h.command(HOST, "Hana", "/setup")
            assert "Lopsided" not in api.texts(HOST)[-1]
            game = await h.service.load(game_id)
            assert game.option("traitors") == 0 and game.option("final_day") == 0

    run(go())
