"""A Station round as the players and the TV read it (issue #35, item 12):

- the role card names the team's goal, as the Traitors' card does;
- in a game played in private chats (no group), each player reads the vote's
  question once: the news line is left to the prompt, which says it anyway;
- the voted-out player reads "You sit out the next round" before the next
  round's title (a chat's news is cut at its private lines, in event order);
- the TV's summary of the last round says who sits out *this* round while it
  is played, and only "was voted out" in the end's summary.
"""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

import pytest
from station_helpers import start

from adapters.tv.screens import render_screen
from bench import tv_games as demo
from gameflow.core.engine import view
from gameflow.core.events import Kind
from gameflow.i18n import render
from tests.fake_telegram import buttons
from tests.store_helpers import run
from tests.telegram_helpers import telegram_bot
from tests.test_telegram import PEOPLE, choose

pytestmark = pytest.mark.station

HOST = 1
FREE = {"reward": 1, "outside": 0, "radio": 0, "guards": 0}


def test_the_role_card_names_the_goal_in_every_language() -> None:
    d = start(5, infiltrators=["ana", "bo"])
    cards = {
        e.to: e.text
        for e in d.events
        if e.kind is Kind.TELL and e.text is not None and e.text.msgid.startswith("You are")
    }
    loyal, infiltrator = cards["cy"], cards["ana"]
    assert "Goal: 8 parts before the station breaks." in render(loyal, "en")
    assert "Mål: 8 deler før stasjonen ødelegges." in render(loyal, "nb")
    assert "Cilj: 8 delova izveštaja" in render(loyal, "sr")
    assert "Goal: damage the station without being caught." in render(infiltrator, "en")
    assert "Mål: skad stasjonen" in render(infiltrator, "nb")
    assert "Cilj: oštećuj stanicu" in render(infiltrator, "sr")


def _screen_text(game: object) -> str:
    html = render_screen(view(game, None), demo.info())  # type: ignore[arg-type]
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def test_the_tv_says_who_sits_out_this_round_while_it_is_played() -> None:
    rounds = {r: {"plans": [FREE] * 3, "trap": None} for r in range(1, 9)}
    d = start(5, infiltrators=["ana", "bo"], rounds=rounds)
    d.to_vote()
    d.votes({"ana": "bo", "cy": "bo", "dag": "bo"})
    d.deadline()
    assert d.game.phase.round == 2 and d.game.phase.name == "mission"
    shown = _screen_text(d.game)
    assert "Bo was voted out and sits out this round." in shown
    assert "next round" not in shown
    while not d.game.over:
        d.next_round()
    end = _screen_text(d.game)
    assert "Bo was voted out." in end and "sits out" not in end.split("Round 1", 1)[-1][:200]


def test_a_private_chat_game_reads_the_vote_once_and_in_order(tmp_path: Path) -> None:
    async def go() -> None:
        async with telegram_bot(tmp_path, "games.sqlite3") as (api, h):
            await h.command(HOST, "Hana", "/new station")  # no group: news come privately
            link = re.search(r"start=([A-Z]+)", api.texts(HOST)[-1])
            assert link is not None
            for uid, name in PEOPLE.items():
                await h.command(uid, name, f"/start {link.group(1)}")
            await h.command(HOST, "Hana", "/set vote_seconds 120")
            await h.command(HOST, "Hana", "/startgame")
            for uid in PEOPLE:
                cards = [t for t in api.texts(uid) if re.match("You are (an|LOYAL)", t)]
                assert len(cards) == 1 and "Goal:" in cards[0], cards
            picks = {"Choose your job:": "radio", "Secret action:": "No secret action"}
            for uid in PEOPLE:
                await choose(h, uid, picks)
            marks = {uid: len(api.sent("sendMessage", uid)) for uid in PEOPLE}
            await h.command(HOST, "Hana", "/advance")
            for uid in PEOPLE:
                sent = [str(c.params["text"]) for c in api.sent("sendMessage", uid)[marks[uid] :]]
                asked = [t for t in sent if "Vote: who sits out the next round?" in t]
                assert len(asked) == 1, sent  # once: the prompt, not news too
                assert "Time left: 2 minutes." in asked[0]
            # the host, who has no prompt, still reads it as news
            assert any("Vote: who sits out the next round?" in t for t in api.texts(HOST))
            for uid in PEOPLE:
                message = api.last_with_buttons(uid)
                assert message is not None
                target = "Bo" if uid != 12 else "Ana"
                data = next(d for t, d in buttons(message) if t == target)
                await h.press(uid, PEOPLE[uid], message, data)
            bo = api.texts(12)
            told = next(i for i, t in enumerate(bo) if t.startswith("You sit out the next round"))
            title = next(i for i, t in enumerate(bo) if "Round 2 of 6" in t)
            assert told < title, bo[-4:]
            assert "Bo is voted out" in "\n".join(bo[:told])

    run(go())
