"""Whole games over Telegram's wire format, played by people who act only on
what their latest messages say (tests/test_telegram_table.py): updates posted
to the webhook, every reply collected at the fake Bot API.

Station in a group, Resistance with every plot card (a fixed deck) and the
opinion maker in private chats (no group, no TV: everyone follows the game by
message). The table checks after every step that nobody is waited for without
their newest message holding the question, and every offered answer is taken.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gameflow.games.resistance.cards import CARDS
from gameflow.i18n import render
from tests.store_helpers import run
from tests.telegram_helpers import telegram_bot
from tests.test_telegram_table import Message, Person, Table, pick

pytestmark = pytest.mark.telegram

GROUP = -777
NAMES = ("Ana", "Bo", "Cy", "Dag", "Eli", "Fred", "Gro", "Hal", "Ida", "Jon")


def people(n: int) -> dict[int, str]:
    return {100 + i: NAMES[i] for i in range(n)}


def station(person: Person, message: Message, labels: list[str] | None) -> str | None:
    assert labels is not None, "Station asks for no words"
    title = str(message["text"]).splitlines()[0]
    # One player lets the first vote's time run out (the deadline decides).
    if title.startswith("Vote") and person.uid == 101:
        held = person.memory.setdefault("held", message["message_id"])
        if held == message["message_id"]:
            return None
    if "Send choice" in labels:
        return "Send choice"
    return pick(person, labels, "Start over")


def test_a_whole_station_game_in_a_group(tmp_path: Path) -> None:
    async def go() -> None:
        async with telegram_bot(tmp_path) as (api, h):
            table = Table(h, people(6), seed=4)
            await table.open("station", group=GROUP)
            game = await table.play(station)
            s = table.stats
            assert game.over and not s.refused, s.refused
            assert s.expired_waiting >= 1 and s.presses > 30
            # the vote says what it is for; no raw ids reached anyone
            assert s.titles["Vote: who sits out the next round?"] >= 1, s.titles
            # the group got the news, merged: fewer messages than announcements
            news = table.h.tg.notifier.news.stats
            assert news.parts > news.messages > 0
            # the end reveal reached everyone, privately too
            final = api.texts(GROUP)[-1]
            for uid in table.people:
                assert final in api.texts(uid)[-3:], uid
            await h.service.verify(table.game_id)

    run(go())


# Every kind dealt in the first three missions (three cards each for nine
# players), the permanent Opinion Maker first so that Take Responsibility has
# a card to take.
DECK = [
    "opinion_maker",
    "strong_leader",
    "no_confidence",
    "take_responsibility",
    "keeping_close_eye",
    "in_the_spotlight",
    "overheard_conversation",
    "establish_confidence",
    "open_up",
    "no_confidence",
    "keeping_close_eye",
    "strong_leader",
]


def resistance(person: Person, message: Message, labels: list[str] | None) -> str | None:
    assert labels is not None, "Resistance asks for no words"
    text = str(message["text"])
    rng = person.table.rng
    for line in text.splitlines():  # a card played on someone: "Play X on:"
        found = re.fullmatch(r"Play (.+) on:", line)
        if found:
            person.table.stats.titles[f"Play: {found.group(1)}"] += 1
    played = [t for t in labels if t.startswith("Play: ")]
    if played:  # every plot card is played as soon as it may be
        person.table.stats.titles[played[0]] += 1
        return played[0]
    for send in ("Propose a team", "Give a card", "Play a card"):
        if send in labels and "Done" not in labels and len(labels) <= 3:
            return send
    if "Done" in labels:  # the team: as many names as the message says
        size = re.search(r"team of (\d+)", text)
        assert size is not None, text
        want = int(size.group(1))
        chosen = [t for t in labels if t.startswith("✓ ")]
        if len(chosen) == want:
            return "Done"
        if len(chosen) > want:
            return chosen[0]
        return pick(person, [t for t in labels if t not in ("Done", "Start over")])
    if "Yes" in labels:
        return "Yes" if rng.random() < 0.75 else "No"
    return pick(person, labels, "Start over")


def test_a_whole_resistance_game_with_every_plot_card_in_private_chats(tmp_path: Path) -> None:
    async def go() -> None:
        async with telegram_bot(tmp_path) as (api, h):
            h.setup = {"plot_deck": DECK}
            table = Table(h, people(9), seed=2)
            await table.open("resistance")
            game = await table.play(resistance)
            s = table.stats
            assert game.over and not s.refused, s.refused
            names = {render(c.name, "en") for c in CARDS.values()}
            played = {t.removeprefix("Play: ") for t in s.titles if t.startswith("Play: ")}
            everything = "\n".join(t for uid in table.people for t in api.texts(uid))
            dealt = set(re.findall(r"gives the plot card (.+?) to ", everything))
            assert dealt == names, dealt
            # every card with a choice was played from its buttons
            assert played == names - {"Opinion Maker", "Establish Confidence"}, played
            assert "The opinion makers vote first" in everything
            assert s.titles["Vote on the proposed team."] > 20
            # no TV and no group: everyone followed the game by message
            for uid in table.people:
                texts = api.texts(uid)
                assert any("Mission 1 " in t for t in texts), uid
            await h.service.verify(table.game_id)

    run(go())
