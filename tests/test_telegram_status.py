"""`/status` (a player's current question again, as SMS's STATUS) and the bot's
command menu, through the real PTB Application against the fake Bot API."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.telegram.notifier import OPEN_ATTR, parse_open
from tests.fake_telegram import FakeBotApi, Harness, Users, buttons, serving
from tests.store_helpers import run
from tests.telegram_helpers import clocked_store, telegram_bot
from tests.test_telegram import GROUP, HOST, PEOPLE, choose, current, editor_of, lobby

pytestmark = pytest.mark.telegram


def with_buttons(api: FakeBotApi, uid: int) -> list[int]:
    return [m["message_id"] for m in api.chat(uid) if "reply_markup" in m]


def test_status_sends_the_question_again_and_closes_the_old_copy(tmp_path: Path) -> None:
    async def go() -> None:
        async with telegram_bot(tmp_path, "games.sqlite3") as (api, h):
            await h.command(99, "Zed", "/status")  # in no game
            assert api.texts(99)[-1].startswith("You are not in a game.")
            _, game_id = await lobby(h)
            await h.command(11, "Ana", "/status")  # in the lobby: nothing to answer yet
            assert api.texts(11)[-1].startswith("Nothing to answer right now.")
            await h.command(HOST, "Hana", "/startgame", chat_id=GROUP)
            first = editor_of(h, 11)["message_id"]
            assert with_buttons(api, 11) == [first]

            # Ana lost her prompt somewhere up the chat: /status brings a fresh
            # copy to the bottom, and the old one loses its keyboard
            await h.command(11, "Ana", "/status")
            again = editor_of(h, 11)
            assert again["message_id"] > first and again.get("has_protected_content") is True
            assert with_buttons(api, 11) == [again["message_id"]]
            assert "reply_markup" not in current(h, 11, first)
            record = parse_open(await h.store.get_attr(game_id, OPEN_ATTR))
            assert record["tg:11"][2] == again["message_id"]

            # the fresh copy works; once answered there is nothing to ask again
            picks = {"Choose your job:": "radio", "Secret action:": "No secret action"}
            locked = await choose(h, 11, picks)
            assert locked["text"].startswith("Choice locked")
            game = await h.service.load(game_id)
            assert game.rules.choices[0] is not None
            await h.command(11, "Ana", "/status")
            assert api.texts(11)[-1].startswith("Nothing to answer right now.")
            assert with_buttons(api, 11) == []

            # never in a group (questions are private); the host gets the controls
            before = len(api.texts(12))
            await h.command(12, "Bo", "/status", chat_id=GROUP)
            assert api.texts(GROUP)[-1].startswith("Send /status to me in a private chat")
            assert len(api.texts(12)) == before
            await h.command(HOST, "Hana", "/status")
            assert api.texts(HOST)[-1].startswith("You host this game: /startgame")

    run(go())


def test_the_command_menu_is_set_in_every_language(tmp_path: Path) -> None:
    async def go() -> None:
        clock, store = clocked_store(tmp_path, "games.sqlite3")
        async with serving(FakeBotApi()) as api, Harness(api, store, clock):
            assert {"", "en", "nb", "no", "sr", "hr"} <= set(api.menus)
            for code, first in (("en", "Your current question again"), ("nb", "Spørsmålet")):
                commands = api.menus[code]
                assert commands[0]["command"] == "status"
                assert commands[0]["description"].startswith(first)
            assert api.menus["no"] == api.menus["nb"] and api.menus["hr"] == api.menus["sr"]
            assert api.menus[""] == api.menus["nb"]  # the bot's default language
            names = {c["command"] for c in api.menus["sr"]}
            assert {"status", "join", "new", "startgame", "end"} <= names
        await store.close()

    run(go())


def test_prompts_a_crash_lost_are_sent_after_the_restart_from_the_outbox(tmp_path: Path) -> None:
    async def go() -> None:
        clock, store = clocked_store(tmp_path, "games.sqlite3")
        users = Users()
        async with serving(FakeBotApi()) as api:
            async with Harness(api, store, clock, users) as a:
                _, game_id = await lobby(a)
                await a.command(HOST, "Hana", "/startgame", chat_id=GROUP)
                picks = {"Choose your job:": "radio", "Secret action:": "No secret action"}
                for uid in PEOPLE:
                    await choose(a, uid, picks)
                assert (await a.service.load(game_id)).phase.name == "discussion"
                # The host moves on to the vote; the worker takes the outbox
                # batch with the vote's prompts and dies before sending any.
                assert a.tg.delivery is not None
                await a.tg.delivery.stop(grace=0)
                await a.tg.outbound.stop(drain=False)
                advance = users.command(HOST, "Hana", "/advance", chat_id=GROUP)
                assert await a.post(advance) == 200
                held = await store.take("telegram", game_id, "the-dead-worker")
                assert {e.payload["kind"] for e in held} >= {"sync", "news"}
            game = await store.load(game_id)
            assert game is not None and game.phase.name == "vote"
            assert all(api.last_with_buttons(uid) is None for uid in PEOPLE)

            async with Harness(api, store, clock, users) as b:
                assert b.tg.delivery is not None
                await b.tg.delivery.drain(timeout=0.5)  # held by the dead worker: not yet
                assert all(api.last_with_buttons(uid) is None for uid in PEOPLE)
                clock.tick(60)  # its hold has lapsed: any worker takes the batch
                await b.tg.settled()
                seq = f"|{game.phase.seq}|"
                for uid in PEOPLE:
                    message = api.last_with_buttons(uid)
                    assert message is not None and seq in buttons(message)[0][1], uid
                assert b.tg.delivery.reclaimed == len(held)
                # once up (and recorded), nothing is sent twice
                counts = {uid: len(api.chat(uid)) for uid in (*PEOPLE, GROUP)}
                await b.tg.settled()
                assert {uid: len(api.chat(uid)) for uid in (*PEOPLE, GROUP)} == counts
                vote_news = [t for t in api.texts(GROUP) if "vote" in t.lower()]
                assert len(vote_news) >= 1
                # and the prompts work: everyone votes, the round ends
                for uid in PEOPLE:
                    message = api.last_with_buttons(uid)
                    assert message is not None
                    data = next(
                        d for t, d in buttons(message) if t == ("Bo" if uid == 11 else "Ana")
                    )
                    assert await b.press(uid, PEOPLE[uid], message, data) is None
                after = await b.service.load(game_id)
                assert after.phase.round == 2
        await store.close()

    run(go())
