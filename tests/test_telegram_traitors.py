"""A whole game of the Traitors over Telegram's wire format, played by people
who act only on what their messages say (tests/test_telegram_table.py), with
every phase made to happen: the silver relay (a traitor drops a bag), the
three chests, the shield and the dagger (the fixed shield-room days), a tied
round table with pleas written as messages, a temptation turned down, a lone
traitor's forcing, and the final end vote. Deadlines run out on the way.

The plan is the table's (who votes for whom), as friends at a party might
agree; each person still reads it off their own keyboard's names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.store_helpers import run
from tests.telegram_helpers import telegram_bot
from tests.test_telegram_table import Message, Person, Table, pick

pytestmark = pytest.mark.telegram

GROUP = -888
PEOPLE = {
    100: "Ana",
    101: "Bo",
    102: "Cy",
    103: "Dag",
    104: "Eli",
    105: "Fred",
    106: "Gro",
    107: "Hal",
}
SETUP = {
    "roles": {"tg:100": "traitor", "tg:101": "traitor", "tg:102": "traitor"},
    "days": {"1": {"shield": "tg:105"}, "2": {"shield": "tg:106", "dagger": "tg:107"}},
}
OPTIONS = ("pacing fast", "missions builtin", "dagger true", "recruit true", "final_day 3")
# day -> voter -> whom; day 1 ties Ana (a traitor) with Fred, 4 votes each
VOTES = {
    1: {"Ana": "Fred", "Fred": "Ana", "Bo": "Fred", "Cy": "Fred", "Dag": "Fred"},
    2: {"Bo": "Dag"},
    3: {"Cy": "Dag"},
}
DEFAULT = {1: "Ana", 2: "Bo", 3: "Cy"}


def seen(person: Person, what: str, message: Message) -> int:
    """How many different questions of this sort `person` has had so far."""
    ids: set[int] = person.memory.setdefault(what, set())
    ids.add(message["message_id"])
    return len(ids)


def traitors(person: Person, message: Message, labels: list[str] | None) -> str | None:
    text = str(message["text"])
    lines = text.splitlines()
    title, heading = lines[0], lines[-1]
    stats = person.table.stats
    if labels is None:  # the plea, in the player's own words
        assert "plea" in text, text
        return f"I am loyal, believe me. {person.name}"
    if title.startswith("The silver relay"):
        if person.name == "Dag" and seen(person, "relay", message) == 2:
            return None  # Dag lets day 3's mission run out
        if "Hand over the bag" in labels:
            return "Hand over the bag"
        if heading.startswith("Drop the bag"):
            stats.titles["dropped" if person.name == "Bo" else "kept"] += 1
            return "Yes" if person.name == "Bo" else "No"
        return pick(person, labels, "Start over")
    if title.startswith("Three chests"):
        return pick(person, labels)
    if title.startswith("Round table"):
        if heading.startswith("Lay down the dagger"):
            stats.titles["dagger"] += 1
            return "Yes"
        if "Send vote" in labels:
            return "Send vote"
        if "Re-vote between" in text:
            want = re.search(r"Re-vote between (\w+)", text)
            assert want is not None
            return want.group(1) if want.group(1) in labels else pick(person, labels)
        day = seen(person, "table", message)
        want_name = VOTES.get(day, {}).get(person.name, DEFAULT.get(day, ""))
        return want_name if want_name in labels else pick(person, labels, "Start over")
    if title.startswith("Night"):
        return night(person, text, heading, labels)
    if title.startswith("The traitors want you"):
        stats.titles["declined"] += 1
        return "No"
    if title.startswith("The final"):
        return "Yes"
    return pick(person, labels, "Start over")


def night(person: Person, text: str, heading: str, labels: list[str]) -> str:
    """Night 1 (two traitors left of three): both tempt Dag. Night 2 (one
    left): force Eli, murder Gro (who holds the shield)."""
    stats = person.table.stats
    if "Send the letter" in labels:
        return "Send the letter"
    if "Force this player" in labels:
        return "Force this player"
    if heading == "Tempt:":
        stats.titles["tempted"] += 1
        return "Dag"
    if heading == "Force:":
        stats.titles["forced"] += 1
        return "Eli"
    if "Tempt" in labels:
        return "Tempt"
    if "Force" in labels:
        return "Force"
    return "Gro" if "Gro" in labels else pick(person, labels, "Start over")


def test_a_whole_traitors_game_through_every_phase(tmp_path: Path) -> None:
    async def go() -> None:
        async with telegram_bot(tmp_path) as (api, h):
            h.setup = SETUP
            table = Table(h, PEOPLE, seed=3)
            await table.open("traitors", group=GROUP, sets=OPTIONS)
            game = await table.play(traitors)
            s = table.stats

            assert game.over and not s.refused, s.refused
            for seen_ in ("dropped", "kept", "dagger", "tempted", "declined", "forced"):
                assert s.titles[seen_] >= 1, (seen_, s.titles)
            assert s.words == 2  # both tied players pleaded, in their own words
            assert any(t.startswith("Three chests") for t in s.titles), s.titles
            assert any(t.startswith("The final") for t in s.titles), s.titles
            assert s.expired_waiting >= 1
            group = "\n".join(api.texts(GROUP))
            assert "I am loyal, believe me. Ana" in group  # the plea was read out
            await h.service.verify(table.game_id)

    run(go())
