"""Hosting over Telegram: a host who made a game in a group without ever
opening a private chat with the bot gets, in the group, a link that opens one
and brings the TV link and the host commands; the host's clock commands are
confirmed in one short message; a burst of /set lines gets one reply."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.fake_telegram import FakeBotApi, Harness, serving
from tests.store_helpers import run
from tests.telegram_helpers import clocked_store, telegram_bot
from tests.test_telegram import GROUP, HOST, PEOPLE

pytestmark = pytest.mark.telegram


def test_a_host_who_never_opened_the_bot_gets_a_link_in_the_group(tmp_path: Path) -> None:
    async def go() -> None:
        clock, store = clocked_store(tmp_path)
        async with serving(FakeBotApi(strict_dm=True)) as api, Harness(api, store, clock) as h:
            await h.command(HOST, "Hana", "/new station", chat_id=GROUP)
            assert api.texts(HOST) == []  # the private message was refused (403)
            assert [c.chat_id for c in api.refused] == [HOST]
            reply = api.texts(GROUP)[-1]
            link = re.search(r"https://t\.me/muldvarp_test_bot\?start=(host-[A-Z]+)", reply)
            assert link is not None, reply
            assert "tv.test" not in reply  # the TV link stays private
            # someone else taps it: nothing for them
            await h.command(12, "Bo", f"/start {link.group(1)}")
            assert api.texts(12)[-1] == "Only the host can do that."
            # the host taps it: the private chat opens with /start host-CODE
            await h.command(HOST, "Hana", f"/start {link.group(1)}")
            mine = api.texts(HOST)[-1]
            assert "https://tv.test/" in mine and "/startgame" in mine, mine
        await store.close()

    run(go())


def test_host_commands_are_confirmed_once_and_sets_answered_once(tmp_path: Path) -> None:
    async def go() -> None:
        async with telegram_bot(tmp_path) as (api, h):
            code, game_id = await h.new(HOST, "station")  # a private-chat game
            before = len(api.texts(HOST))
            await h.command(HOST, "Hana", "/set vote_seconds 90\n/set discussion_seconds 60")
            assert api.texts(HOST)[before:] == ["Done: vote_seconds = 90, discussion_seconds = 60."]
            game = await h.service.load(game_id)
            assert game.option("vote_seconds") == 90 and game.option("discussion_seconds") == 60
            await h.command(HOST, "Hana", "/set vote_seconds 30\n/set nonsense 1")
            answer = api.texts(HOST)[-1].splitlines()
            assert answer[0] == "Done: vote_seconds = 30." and len(answer) == 2, answer
            for uid, name in PEOPLE.items():
                await h.command(uid, name, f"/join {code}")
            before = len(api.texts(HOST))
            await h.command(HOST, "Hana", "/startgame")
            # the moment's news and the confirmation: one message to the host
            new = api.texts(HOST)[before:]
            assert len(new) == 1 and "Started: the roles are dealt." in new[0], new
            await h.command(HOST, "Hana", "/pause")
            assert api.texts(HOST)[-1].endswith("Paused: the clock has stopped.")
            await h.command(HOST, "Hana", "/resume")
            assert api.texts(HOST)[-1].endswith("Resumed: the clock runs again.")

    run(go())
