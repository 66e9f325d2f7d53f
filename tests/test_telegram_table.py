"""Test players for whole games over Telegram's wire format, who act only on
what their latest messages say.

A `Table` seats simulated people in front of the real adapter (updates posted
to the webhook, replies collected at the fake Bot API). Each person looks at
the newest message in their private chat that holds a question (a live
keyboard, or a request for words) and answers it with a strategy that reads
only that message's text and buttons, and what they were told before in their
own chat (their role card). Nobody reads the store or calls the service to
decide; the table only does so to check, after every step, that

- every press of an offered button was taken (no toast refusing it);
- every seat the game waits for has a live question as its newest question
  message, drawn for the current phase and for what the game asks of them;
- nobody has more than one live keyboard, and none of a phase gone by.

The clock is the scheduler's: when nobody answers (or a strategy holds back),
the phase's deadline is reached and delivered as the scheduler would.
"""

from __future__ import annotations

import copy
import random
import re
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from adapters.telegram.keyboards import decode
from gameflow.core import actions as A
from gameflow.core.question import question
from gameflow.core.rules import rules_for
from gameflow.core.state import Game
from tests.fake_telegram import Harness, buttons

HOST = 1
Message = dict[str, Any]
# (the person, the message, its button labels or None for a request for words)
# -> the label to press, the words to send, or None to hold back
Strategy = Callable[["Person", Message, list[str] | None], str | None]


# What must never reach a player: an id, a field or kind name, a placeholder.
RAW = [
    re.compile(r"tg:\d+"),
    re.compile(r"\b[a-z]+_[a-z_]+\b"),  # snake_case ids: cards, kinds, fields
    re.compile(r"[{}]"),  # an unfilled placeholder
    re.compile(r"\b(None|True|False)\b"),
]


def raw_in(text: str) -> str | None:
    text = re.sub(r"https?://\S+", "", text)  # links carry ids on purpose
    for pattern in RAW:
        found = pattern.search(text)
        if found:
            return found.group(0)
    return None


def live(message: Message) -> bool:
    markup = message.get("reply_markup") or {}
    return bool(markup.get("inline_keyboard") or markup.get("force_reply"))


@dataclass
class Person:
    uid: int
    name: str
    table: Table
    memory: dict[str, Any] = field(default_factory=dict)

    @property
    def chat(self) -> list[Message]:
        return self.table.api.chat(self.uid)

    def told(self, pattern: str) -> re.Match[str] | None:
        """The newest thing the bot told this person that matches `pattern`."""
        for message in reversed(self.chat):
            found = re.search(pattern, str(message.get("text", "")))
            if found:
                return found
        return None

    def question(self) -> Message | None:
        """The newest message of this chat that holds a question."""
        for message in reversed(self.chat):
            if live(message):
                return message
        return None


@dataclass
class Stats:
    presses: int = 0
    words: int = 0
    deadlines: int = 0
    expired_waiting: int = 0  # deadlines that ran out on someone still asked
    checks: int = 0
    refused: list[tuple[str, str, str]] = field(default_factory=list)
    titles: Counter[str] = field(default_factory=Counter)  # first line of each answered question


class Table:
    def __init__(self, h: Harness, people: dict[int, str], seed: int = 1) -> None:
        self.h = h
        self.api = h.api
        self.people = {uid: Person(uid, name, self) for uid, name in people.items()}
        self.rng = random.Random(seed)
        self.stats = Stats()
        self.game_id = ""
        # With a clock the test runs itself: time a person waits for their
        # screen to change after a tap (the edit may queue behind a message).
        self.pause: Callable[[], Awaitable[None]] | None = None

    # -- setting up, as people do ---------------------------------------------------

    async def open(self, kind: str, *, group: int | None = None, sets: tuple[str, ...] = ()) -> str:
        """The host creates a game (in `group`, or privately), sets options,
        everyone joins by the deep link, and the host starts it."""
        h = self.h
        code, game_id = await h.new(HOST, kind, chat_id=group)
        self.game_id = game_id
        for line in sets:
            await h.command(HOST, "Hana", f"/set {line}")
        for person in self.people.values():
            await h.command(person.uid, person.name, f"/start {code}")
        await h.command(HOST, "Hana", "/startgame", chat_id=group)
        game = await self.game()
        assert game.running, h.api.texts(HOST)[-3:]
        return game_id

    async def game(self) -> Game:
        return await self.h.service.load(self.game_id)

    # -- answering --------------------------------------------------------------------

    async def answer(self, person: Person, strategy: Strategy) -> bool:
        """`person` answers their newest question, step by step within its
        message (an editor), until it is locked or replaced; False if they
        hold back."""
        message = person.question()
        if message is None:
            return False
        title = str(message.get("text", "")).splitlines()[0]
        if (message.get("reply_markup") or {}).get("force_reply"):
            words = strategy(person, message, None)
            if words is None:
                return False
            await self.h.send(self.h.users.text(person.uid, person.name, words))
            self.stats.words += 1
            self.stats.titles[title] += 1
            return True
        mid = message["message_id"]
        for _ in range(40):
            message = self.api.messages[person.uid][mid]
            labels = buttons(message)
            newest = person.question()
            if not labels or newest is None or newest["message_id"] != mid:
                self.stats.titles[title] += 1
                return True  # locked, or a new question replaced it
            label = strategy(person, message, [t for t, _ in labels])
            if label is None:
                return False
            data = next(d for t, d in labels if t == label)
            before = copy.deepcopy(message)
            toast = await self.h.press(person.uid, person.name, message, data)
            for _ in range(20 if self.pause is not None else 0):
                newest = person.question()
                now = self.api.messages[person.uid][mid]
                if now != before or newest is None or newest["message_id"] != mid:
                    break
                assert self.pause is not None
                await self.pause()
            self.stats.presses += 1
            if toast is not None:
                self.stats.refused.append((person.name, label, toast))
        raise AssertionError(f"{person.name} never finished {message['text']!r}")

    # -- checking -----------------------------------------------------------------------

    async def check(self) -> None:
        """Nobody is waited for without their newest message holding the
        question; no keyboard of a past phase is up; one question each."""
        game = await self.game()
        self.stats.checks += 1
        for person in self.people.values():
            up = [m for m in person.chat if live(m)]
            assert len(up) <= 1, (person.name, [m["text"] for m in up])
        if not game.running:
            for person in self.people.values():
                assert person.question() is None, (person.name, "a question after the end")
            return
        seq = game.phase.seq
        for seat in rules_for(game.kind).awaiting(game):
            player = game.players[seat]
            person = self.people[int(player.removeprefix("tg:"))]
            q = question(game, player)
            where = f"{game.kind} {game.phase.name}: {person.name}"
            assert q is not None, f"{where} is awaited but asked nothing"
            message = person.question()
            assert message is not None, f"{where} is awaited without a question message"
            labels = buttons(message)
            if labels:
                presses = [decode(d) for _, d in labels]
                assert all(p is not None and p.seq == seq for p in presses), (where, labels)
                kinds = {s.kind for s in q.specs}
                assert {p.kind for p in presses if p is not None} <= kinds, (where, labels)
            else:
                assert any(f.free for s in q.specs for f in s.fields), where
        for person in self.people.values():
            message = person.question()
            if message is None or not buttons(message):
                continue
            press = decode(buttons(message)[0][1])
            assert press is not None and press.seq == seq, (person.name, "a keyboard of the past")
            mine = question(game, f"tg:{person.uid}")
            assert mine is not None, (person.name, "a live keyboard for no question")

    def clean(self) -> None:
        """No raw id in any text or button a player or the group was sent
        (the host's /set answers name the options the host typed)."""
        for chat in self.api.messages:
            if chat == HOST:
                continue
            for message in self.api.chat(chat):
                for text in (str(message.get("text", "")), *(t for t, _ in buttons(message))):
                    found = raw_in(text)
                    assert found is None, (chat, found, text)

    # -- playing ------------------------------------------------------------------------

    async def deadline(self) -> None:
        """The phase's time runs out (the injected clock), delivered as the
        scheduler delivers it; or the host moves a phase without one on."""
        game = await self.game()
        if rules_for(game.kind).awaiting(game):
            self.stats.expired_waiting += 1
        clock = self.h.clock
        seq = game.phase.seq
        if game.phase.deadline is None:
            await self.h.command(HOST, "Hana", "/advance")
        else:
            clock.now = max(clock.now, game.phase.deadline)
            key = f"deadline:{self.game_id}:{seq}"
            await self.h.service.submit(self.game_id, A.Deadline(None, seq), key=key)
            await self.h.tg.settled()
        self.stats.deadlines += 1

    async def play(self, strategy: Strategy, *, steps: int = 3000) -> Game:
        """Everyone answers what they are asked, in a shuffled order, until
        the game ends; the clock runs out whenever nobody answers."""
        for _ in range(steps):
            game = await self.game()
            await self.check()
            if game.over:
                self.clean()
                return game
            order = list(self.people.values())
            self.rng.shuffle(order)
            for person in order:
                if await self.answer(person, strategy):
                    break
            else:
                await self.deadline()
        raise AssertionError("the game did not end")


def pick(person: Person, labels: list[str], *avoid: str) -> str:
    options = [t for t in labels if t not in avoid and not t.startswith("✓")] or labels
    return person.table.rng.choice(options)
