"""Restarts and edge cases over the real wire format: a /new that Telegram
delivers again after a restart is answered once (no second TV link), also
once its game has ended; commands count only from new messages (an edited
/end ends nothing); a group's anonymous admin is told how to take part; a
stranger is answered in their Telegram language; an older commit's
notification never overwrites a newer one's prompts."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.store.sqlite_store import SqliteStore
from adapters.telegram.record import OPEN_ATTR, parse_record
from tests.fake_telegram import FakeBotApi, Harness, Users, serving
from tests.store_helpers import FakeClock, run
from tests.telegram_helpers import telegram_bot
from tests.test_telegram import GROUP, HOST, choose, lobby

pytestmark = pytest.mark.telegram


def test_a_new_game_delivered_again_after_a_restart_is_answered_once(tmp_path: Path) -> None:
    async def go() -> None:
        clock, users = FakeClock(), Users()
        store = SqliteStore(str(tmp_path / "g.sqlite3"), clock=clock, synchronous="OFF")
        async with serving(FakeBotApi()) as api:
            new = users.command(HOST, "Hana", "/new station", chat_id=GROUP)
            ended = users.command(2, "Ivo", "/new traitors")
            async with Harness(api, store, clock, users) as a:
                await a.send(new)
                await a.send(ended)
                await a.command(2, "Ivo", "/end")
                assert (
                    await a.service.load((await store.whereis("tg:1") or ("",))[0])
                ).running is False
            before = {chat: len(api.texts(chat)) for chat in (GROUP, HOST, 2)}
            # the worker died before acknowledging: Telegram delivers both again
            async with Harness(api, store, clock, users) as b:
                await b.send(new)
                await b.send(ended)
            assert {chat: len(api.texts(chat)) for chat in (GROUP, HOST, 2)} == before
            tv = [t for t in api.texts(HOST) if "tv.test" in t]
            assert len(tv) == 1  # one TV link, never a second token
            assert not any("None" in t for c in (GROUP, HOST, 2) for t in api.texts(c))
        await store.close()

    run(go())


def test_an_edited_end_ends_nothing(tmp_path: Path) -> None:
    async def go() -> None:
        async with telegram_bot(tmp_path) as (api, h):
            _, game_id = await lobby(h)
            await h.command(HOST, "Hana", "/startgame", chat_id=GROUP)
            update = h.users.command(HOST, "Hana", "/end", chat_id=GROUP)
            update["edited_message"] = update.pop("message")
            update["edited_message"]["edit_date"] = update["edited_message"]["date"] + 5
            await h.send(update)
            game = await h.service.load(game_id)
            assert game.running and not game.over
            texts = len(api.texts(GROUP))
            # an edited plain message is no answer either
            words = h.users.text(11, "Ana", "hello")
            words["edited_message"] = words.pop("message")
            await h.send(words)
            assert len(api.texts(GROUP)) == texts

    run(go())


def test_an_anonymous_admin_is_told_how_to_host(tmp_path: Path) -> None:
    async def go() -> None:
        async with telegram_bot(tmp_path) as (api, h):
            for text in ("/new station", "/startgame"):
                update = h.users.command(1087968824, "Group", text, chat_id=GROUP)
                message = update["message"]
                message["from"]["is_bot"] = True
                message["from"]["username"] = "GroupAnonymousBot"
                message["sender_chat"] = {"id": GROUP, "type": "supergroup", "title": "Party"}
                await h.send(update)
                reply = api.texts(GROUP)[-1]
                assert "anonymous admin" in reply and "Remain anonymous" in reply, reply
                assert "You are not in a game" not in reply
            assert await h.store.whereis("tg:1087968824") is None  # nobody hosts as the group

    run(go())


def test_strangers_are_answered_in_their_telegram_language(tmp_path: Path) -> None:
    async def go() -> None:
        async with telegram_bot(tmp_path) as (api, h):
            for uid, lang, start in (
                (90, "sr", "Nisi ni u jednoj igri"),
                (91, "bs", "Nisi ni u jednoj igri"),
                (92, "nn", "Du er ikke med i noe spill"),
                (93, "de", "You are not in a game"),
            ):
                await h.send(h.users.command(uid, "Zed", "/status", lang=lang))
                assert api.texts(uid)[-1].startswith(start), (lang, api.texts(uid)[-1])

    run(go())


def test_an_older_commits_notification_never_overwrites_a_newer_one(tmp_path: Path) -> None:
    """Worker a is slow: it notifies version v after another worker has
    notified v+1. The record keeps v+1's questions; nothing of v is sent."""

    async def go() -> None:
        async with telegram_bot(tmp_path) as (api, h):
            _, game_id = await lobby(h)
            await h.command(HOST, "Hana", "/startgame", chat_id=GROUP)
            older = await h.service.load(game_id)
            # Ana answers: her question closes (version v+1, notified at once)
            picks = {"Choose your job:": "radio", "Secret action:": "No secret action"}
            await choose(h, 11, picks)
            newer = await h.service.load(game_id)
            version, entries = parse_record(await h.store.get_attr(game_id, OPEN_ATTR))
            assert version == newer.version and "tg:11" not in entries
            sent = len(api.sent("sendMessage"))
            # the slow worker's notification of the older state arrives now
            await h.tg.notifier.notify(older, ())
            await h.tg.settled()
            assert len(api.sent("sendMessage")) == sent  # Ana is not asked again
            after = parse_record(await h.store.get_attr(game_id, OPEN_ATTR))
            assert after == (version, entries)

    run(go())
