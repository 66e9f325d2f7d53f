"""The Telegram adapter end to end: the real PTB Application behind our webhook
route, talking to a fake Bot API server on 127.0.0.1, with the game service on
the embedded store. Five simulated people play a round of Station by tapping
the buttons the fake server received."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest

from gameflow.core.events import Event, Kind
from gameflow.games.station.state import Station
from tests.fake_telegram import Harness, buttons
from tests.store_helpers import run
from tests.telegram_helpers import telegram_bot

pytestmark = pytest.mark.telegram

HOST, GROUP = 1, -100500
PEOPLE = {11: "Ana", 12: "Bo", 13: "Cy", 14: "Dag", 15: "Eli"}


async def lobby(h: Harness) -> tuple[str, str]:
    """The host creates a Station game in a group; five people join by deep link."""
    await h.command(HOST, "Hana", "/new station", chat_id=GROUP)
    reply = h.api.texts(GROUP)[-1]
    link = re.search(r"https://t\.me/muldvarp_test_bot\?start=([A-Z]+)", reply)
    assert link is not None, reply
    code = link.group(1)
    game_id = await h.store.game_for_code(code)
    assert game_id is not None
    # the TV link and the host's commands went to the host privately, not the group
    assert f"https://tv.test/{game_id}" in h.api.texts(HOST)[-1]
    assert "/startgame" in h.api.texts(HOST)[-1] and "tv.test" not in reply
    for uid, name in PEOPLE.items():
        await h.command(uid, name, f"/start {code}")
        assert "You are in" in h.api.texts(uid)[-1]
    game = await h.service.load(game_id)
    assert game.names == tuple(PEOPLE.values())
    assert game.players == tuple(f"tg:{uid}" for uid in PEOPLE)
    return code, game_id


def editor_of(h: Harness, uid: int) -> dict[str, Any]:
    message = h.api.last_with_buttons(uid)
    assert message is not None, f"no keyboard in chat {uid}"
    return message


def current(h: Harness, uid: int, message_id: int) -> dict[str, Any]:
    return h.api.messages[uid][message_id]


async def choose(h: Harness, uid: int, picks: dict[str, str]) -> dict[str, Any]:
    """Fill in the one-message choice editor by tapping, step by step; returns
    the editor message (as it looks after «Send choice»)."""
    message = editor_of(h, uid)
    mid = message["message_id"]
    for _ in range(6):
        message = current(h, uid, mid)
        labels = buttons(message)
        send = [d for t, d in labels if t == "Send choice"]
        if send:
            assert await h.press(uid, PEOPLE[uid], message, send[0]) is None
            return current(h, uid, mid)
        text = message["text"]
        heading = text.splitlines()[-1]
        wanted = picks.get(heading)
        options = [(t, d) for t, d in labels if t != "Start over"]
        pick = next((d for t, d in options if t == wanted), options[0][1])
        assert await h.press(uid, PEOPLE[uid], message, pick) is None
    raise AssertionError("the editor never offered «Send choice»")


def test_a_station_round_over_telegram(tmp_path: Path) -> None:
    async def go() -> None:
        async with telegram_bot(tmp_path, "games.sqlite3") as (api, h):
            _, game_id = await lobby(h)
            # lobby news go to the group the game was made in
            assert any("Eli joined (5 players)" in t for t in api.texts(GROUP))

            # a non-host can't start; the host can
            await h.command(11, "Ana", "/startgame")
            assert api.texts(11)[-1] == "Only the host can do that."
            await h.command(HOST, "Hana", "/startgame", chat_id=GROUP)
            game = await h.service.load(game_id)
            assert game.phase.name == "mission"
            st: Station = game.rules

            # every role card went privately to its owner only, protected
            infiltrators = {game.names[s] for s in range(5) if st.infiltrator[s]}
            for seat, uid in enumerate(PEOPLE):
                cards = [
                    c
                    for c in api.sent("sendMessage", uid)
                    if re.match("You are (an|LOYAL)", str(c.params["text"]))
                ]
                assert len(cards) == 1
                assert cards[0].params.get("protect_content") is True
                infiltrator = st.infiltrator[seat]
                assert ("INFILTRATOR" in cards[0].params["text"]) == infiltrator
                if not infiltrator:
                    assert not any(
                        n in cards[0].params["text"] for n in infiltrators - {PEOPLE[uid]}
                    )
            for call in api.sent("sendMessage"):
                if call.chat_id == GROUP:
                    text = str(call.params["text"])
                    assert "INFILTRATOR" not in text and "LOYAL" not in text
                    assert "Your card" not in text

            # someone else's button is refused and changes nothing
            ana_editor = copy.deepcopy(editor_of(h, 11))
            first = buttons(ana_editor)[0][1]
            before = (await h.service.load(game_id)).version
            assert await h.press(12, "Bo", ana_editor, first) == "That button is not yours."
            assert (await h.service.load(game_id)).version == before
            assert current(h, 11, ana_editor["message_id"])["text"] == ana_editor["text"]

            # everyone fills in the one-message editor and locks it
            picks = {"Choose your job:": "radio", "Secret action:": "No secret action"}
            for uid in PEOPLE:
                message = await choose(h, uid, picks)
                assert message["text"].startswith("Choice locked: plan 1")
                assert "reply_markup" not in message
            game = await h.service.load(game_id)
            assert game.phase.name == "discussion"
            assert all(c is not None for c in game.rules.choices)

            # a stale button (from the finished mission phase) changes nothing
            version = game.version
            assert (
                await h.press(11, "Ana", ana_editor, first) == "That question has already closed."
            )
            assert (await h.service.load(game_id)).version == version

            # the host moves on to the vote; one tap locks a vote
            await h.command(HOST, "Hana", "/advance", chat_id=GROUP)
            game = await h.service.load(game_id)
            assert game.phase.name == "vote"
            for uid in PEOPLE:
                message = editor_of(h, uid)
                assert message.get("has_protected_content") is True
                target = "Bo" if uid == 11 else "Ana"
                data = next(d for t, d in buttons(message) if t == target)
                assert await h.press(uid, PEOPLE[uid], message, data) is None
                locked = current(h, uid, message["message_id"])
                assert locked["text"] == f"Vote locked: {target}."
            game = await h.service.load(game_id)
            assert game.phase.round == 2 and game.phase.name == "mission"
            assert any("Ana is voted out" in t for t in api.texts(GROUP))

            # Ana sits out round 2: no prompt for her, the others get theirs
            second = game.phase.seq
            for uid in PEOPLE:
                message = api.last_with_buttons(uid)
                fresh = message is not None and f"|{second}|" in buttons(message)[0][1]
                assert fresh == (uid != 11), uid
            await h.service.verify(game_id)

    run(go())


def test_host_controls_and_settings(tmp_path: Path) -> None:
    async def go() -> None:
        async with telegram_bot(tmp_path, "games.sqlite3") as (api, h):
            code, game_id = await h.new(HOST, "station")
            for uid, name in PEOPLE.items():
                await h.command(uid, name, f"/join {code}")
            # private-chat game: the lobby news go to the host
            assert any("Ana joined" in t for t in api.texts(HOST))
            await h.command(HOST, "Hana", "/set vote_seconds 90")
            await h.command(HOST, "Hana", "/lang nb")
            await h.command(12, "Bo", "/kick Ana")
            assert api.texts(12)[-1] == "Bare verten kan gjøre det."
            await h.command(HOST, "Hana", "/kick Ana")
            game = await h.service.load(game_id)
            assert game.option("vote_seconds") == 90.0 and game.lang == "nb"
            assert "tg:11" not in game.players
            await h.command(11, "Ana", f"/join {code}")
            await h.command(HOST, "Hana", "/startgame")
            # the scheduler's reminder reaches those who still owe their choice
            # (its REMINDER events, through the outbox)
            game = await h.service.load(game_id)
            seq = game.phase.seq
            everyone = tuple(Event(Kind.REMINDER, f"tg:{u}", None, seq, 1.0) for u in PEOPLE)
            await h.tg.notifier.notify(game, everyone)
            await h.tg.notifier.notify(game, everyone)  # fired twice: sent once
            await h.tg.settled()
            assert all(api.texts(u)[-1].startswith("Påminnelse") for u in PEOPLE)
            assert sum(t.startswith("Påminnelse") for t in api.texts(13)) == 1
            # one to arm a timer has no addressee; an old phase's is dropped
            h.clock.tick(60)
            counts = {u: len(api.texts(u)) for u in PEOPLE}
            await h.tg.notifier.notify(
                game,
                (
                    Event(Kind.REMINDER, None, None, seq, 1.0),
                    Event(Kind.REMINDER, "tg:14", None, seq, 1.0),
                    Event(Kind.REMINDER, "tg:15", None, seq - 1, 1.0),
                ),
            )
            await h.tg.settled()
            grown = {u: len(api.texts(u)) - counts[u] for u in PEOPLE}
            assert grown == {11: 0, 12: 0, 13: 0, 14: 1, 15: 0}
            # «Start over» empties a half-filled choice
            editor = api.last_with_buttons(13)
            assert editor is not None
            await h.press(13, "Cy", editor, buttons(editor)[0][1])
            message = api.messages[13][editor["message_id"]]
            restart = next(d for t, d in buttons(message) if t == "Begynn på nytt")
            await h.press(13, "Cy", message, restart)
            message = api.messages[13][editor["message_id"]]
            assert message["text"].endswith("Velg en plan:") and "•" not in message["text"]
            await h.command(HOST, "Hana", "/pause")
            assert (await h.service.load(game_id)).phase.paused
            await h.command(HOST, "Hana", "/resume")
            await h.command(HOST, "Hana", "/end")
            game = await h.service.load(game_id)
            assert game.over and game.ended_by_host
            # the end reached every player, and the open prompts lost their keyboards
            for uid in PEOPLE:
                assert api.texts(uid)[-2] == "Verten har avsluttet spillet."  # then the reveal
                assert api.last_with_buttons(uid) is None
            editor = next(m for m in api.chat(12) if m["text"].startswith("Runde 1:"))
            assert editor.get("has_protected_content") is True

    run(go())


def test_the_game_master_acts_from_a_keyboard(tmp_path: Path) -> None:
    async def go() -> None:
        async with telegram_bot(tmp_path) as (api, h):
            await h.command(HOST, "Hana", "/new traitors")
            code = re.findall(r"start=([A-Z]+)", api.texts(HOST)[-1])[0]
            people = {**PEOPLE, 16: "Fred"}
            for uid, name in people.items():
                await h.command(uid, name, f"/start {code}")
            await h.command(HOST, "Hana", "/startgame")
            game_id = (
                await h.store.game_for_code(code) or (await h.store.whereis("tg:1") or ("",))[0]
            )
            await h.command(11, "Ana", "/gm")
            assert api.texts(11)[-1] == "Only the host can do that."
            await h.command(HOST, "Hana", "/gm")
            menu = api.last_with_buttons(HOST)
            assert menu is not None and menu.get("has_protected_content") is True
            labels = buttons(menu)
            assert all("|-1|" in data for _, data in labels)  # the game master's seat
            # a player can't press the game master's buttons
            assert await h.press(11, "Ana", menu, labels[0][1]) == "That button is not yours."
            before = (await h.service.load(game_id)).version
            free = next(data for _, data in labels if "|murder_free|" in data)
            assert await h.press(HOST, "Hana", menu, free) is None
            assert (await h.service.load(game_id)).version == before + 1
            assert (await h.service.load(game_id)).rules.murder_free

    run(go())
