"""Help on Telegram (issue #35, item 11), through the real webhook and the
fake Bot API with real Telegram updates:

- /help lists the commands that apply to the sender now (no game, a player,
  the host), in their language;
- an unknown command and a private message that answers nothing get "I didn't
  understand that." with the sender's open question, or what they can do, and
  change nothing;
- in a group the bot stays quiet for text and commands not addressed to it;
- a host who made a game in a group and opens the private chat with a plain
  /start gets the TV link and the host's commands, not "You are not in a game".
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.fake_telegram import Harness
from tests.store_helpers import run
from tests.telegram_helpers import telegram_bot
from tests.test_telegram import GROUP, HOST, lobby

pytestmark = pytest.mark.telegram

BOT = "muldvarp_test_bot"


def in_group(h: Harness, uid: int, name: str, text: str, **extra: Any) -> dict[str, Any]:
    """A plain message in the group (no command entity), with `extra` fields."""
    update = h.users.command(uid, name, text, chat_id=GROUP)
    del update["message"]["entities"]
    update["message"].update(extra)
    return update


def test_help_and_puzzled_replies_say_what_the_sender_can_do(tmp_path: Path) -> None:
    async def go() -> None:
        async with telegram_bot(tmp_path, "games.sqlite3") as (api, h):
            # in no game: what anyone can do, in their own language
            await h.command(21, "Zed", "/help")
            assert api.texts(21)[-1].splitlines() == [
                "You are not in a game. What you can do:",
                "/new station, /new resistance, /new traitors or /new werewolf: host a new game.",
                "/join CODE: join a game (or tap the link its host shares).",
                "/again CODE: a game you hosted, again with the same players.",
                "/help: this list.",
            ]
            await h.send(h.users.command(22, "Ola", "/help", lang="nb"))
            assert api.texts(22)[-1].startswith("Du er ikke med i et spill. Dette kan du gjøre:")
            await h.send(h.users.command(23, "Ana", "/help", lang="sr"))
            assert api.texts(23)[-1].startswith("Nisi u igri. Evo šta možeš:")
            await h.command(21, "Zed", "/frobnicate")
            assert api.texts(21)[-1].startswith("I didn't understand that.\nYou are not in a game.")
            await h.send(h.users.text(21, "Zed", "hello?"))
            assert api.texts(21)[-1].startswith("I didn't understand that.\nYou are not in a game.")

            # the host made the game in the group; a plain /start in private
            _, game_id = await lobby(h)
            await h.command(HOST, "Hana", "/start")
            mine = api.texts(HOST)[-1]
            assert f"https://tv.test/{game_id}" in mine, mine
            assert "You host this game. What you can do:" in mine and "/startgame" in mine
            await h.command(11, "Ana", "/help")
            assert api.texts(11)[-1].splitlines() == [
                "You play in this game. What you can do:",
                "/status: your current question again.",
                "/help: this list.",
            ]

            # the group: quiet for what is not the bot's, an answer for what is
            said = len(api.texts(GROUP))
            await h.send(in_group(h, 11, "Ana", "who brought snacks?"))
            await h.command(11, "Ana", "/roll", chat_id=GROUP)
            await h.command(11, "Ana", "/frob@other_bot", chat_id=GROUP)
            assert len(api.texts(GROUP)) == said
            await h.command(HOST, "Hana", f"/frob@{BOT}", chat_id=GROUP)
            assert api.texts(GROUP)[-1].startswith("I didn't understand that.\nYou host this game.")
            mention = {"entities": [{"type": "mention", "offset": 0, "length": len(BOT) + 1}]}
            await h.send(in_group(h, 12, "Bo", f"@{BOT} what now?", **mention))
            assert api.texts(GROUP)[-1].startswith("I didn't understand that.\nYou play in this")
            bot_said = api.chat(GROUP)[-1]
            await h.send(in_group(h, 13, "Cy", "and me?", reply_to_message=bot_said))
            assert api.texts(GROUP)[-1].startswith("I didn't understand that.\nYou play in this")
            assert len(api.texts(GROUP)) == said + 3

            # a running game: the open question, and nothing changes
            await h.command(HOST, "Hana", "/startgame", chat_id=GROUP)
            await h.command(HOST, "Hana", "/help")
            assert api.texts(HOST)[-1].splitlines() == [
                "You host this game. What you can do:",
                "/pause: stop the clock.",
                "/advance: end this phase now.",
                "/gone NAME, /back NAME: a player who left (the defaults answer for them), and back.",
                "/console: your game master's console, a private web page (/console new: a new link).",
                "/end: end the game.",
                "/help: this list.",
            ]
            before = (await h.service.load(game_id)).version
            await h.send(h.users.text(11, "Ana", "plan 2 please"))
            assert api.texts(11)[-1].splitlines() == [
                "I didn't understand that.",
                "Your question is open:",
                "Round 1: make your choice.",
                "Answer it with the buttons under it, or send /status to get it again.",
                "/help: what you can do.",
            ]
            await h.command(12, "Bo", "/vote Ana")
            assert api.texts(12)[-1].startswith("I didn't understand that.\nYour question is open:")
            assert (await h.service.load(game_id)).version == before
            await h.command(12, "Bo", "/help")
            assert "/away 2027-01-20" in api.texts(12)[-1]

            # an ended game: its host is told how to run it back
            await h.command(HOST, "Hana", "/end", chat_id=GROUP)
            assert (await h.service.load(game_id)).over
            await h.command(HOST, "Hana", "/help")
            assert "/again CODE: a game you hosted" in api.texts(HOST)[-1]

    run(go())
