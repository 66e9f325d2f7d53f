"""How the Telegram adapter says things: the outbound side of the delivery
(delivery.py) and of the handlers' own replies.

A question is a view, so `sync` brings a player's prompt in step with their
question in the state loaded at delivery (the open-prompt record, record.py):
a new prompt when it changed, the old keyboard taken away, so nobody is waited
for whose latest message does not hold their question. Everything is queued
on the outbound queue (outbound.py), never sent inline.
"""

from __future__ import annotations

import itertools
import logging
import os
import time
from collections.abc import Callable, Collection, Mapping
from typing import Any, Generic, TypeVar

from cachetools import FIFOCache
from telegram import Bot, ForceReply, InlineKeyboardMarkup, Message

from adapters.deadline_text import until
from adapters.telegram.acting import PREFIX, chat_of, identity
from adapters.telegram.jobs import Job, Priority
from adapters.telegram.keyboards import is_free
from adapters.telegram.news import News
from adapters.telegram.outbound import Outbound
from adapters.telegram.prompts import draw
from adapters.telegram.record import (
    CHAT,
    FREE,
    KEY,
    MID,
    OPEN_ATTR,
    SWAP_TRIES,
    TICKET,
    Entry,
    Open,
    Records,
    parse_open,
)
from adapters.telegram.renderer import reminder, resync
from gameflow.core.away import away_until
from gameflow.core.events import Event, Kind
from gameflow.core.question import Question, question
from gameflow.core.state import Game
from gameflow.core.text import N_
from gameflow.i18n import render
from service.ports import GameStore

__all__ = [
    "OPEN_ATTR",
    "PREFIX",
    "SWAP_TRIES",
    "chat_of",
    "identity",
    "parse_open",
]

log = logging.getLogger(__name__)

REMINDER = N_("Reminder: this phase ends soon. Your answer is still missing.")
CLOSED = N_("This question has closed.")

GROUP_ATTR = "tg:group"  # the store attribute: the group chat a game was created in
# A group is only ever set when a game is created, before its join code is
# shown; absence is still re-checked now and then (a host's command racing /new).
GROUP_RECHECK = 60.0

K = TypeVar("K")
V = TypeVar("V")


class Recent(Generic[K, V]):
    """A small cache that forgets its oldest entries (by last put) beyond `size`."""

    def __init__(self, size: int = 10_000) -> None:
        self.size = size
        self._items: FIFOCache[K, V] = FIFOCache(size)

    def get(self, key: K) -> V | None:
        return self._items.get(key)

    def put(self, key: K, value: V) -> None:
        self._items[key] = value

    def pop(self, key: K) -> V | None:
        return self._items.pop(key, None)

    def all_keys(self) -> list[K]:
        return list(self._items)


def owes(game: Game, player: str) -> bool:
    """Does `player` owe an answer now (an open question)? Never for the dead,
    banished or sitting out."""
    return question(game, player) is not None


class TelegramNotifier:
    def __init__(
        self,
        outbound: Outbound,
        store: GameStore,
        *,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        merge_news: bool = True,
    ) -> None:
        self.outbound = outbound
        self.store = store
        self.clock = clock
        self.wall = wall  # the game's time, for "time left" in prompts and reminders
        self.records = Records(store)
        self.news = News(outbound, merge=merge_news)
        self._groups: Recent[str, tuple[int | None, float]] = Recent()
        # tickets of prompts this process queued and has not delivered yet
        self.queued: Recent[str, str] = Recent()
        self._tickets = itertools.count(1)
        self._me = os.urandom(3).hex()
        # the outbox delivery's (wiring): called with the game whose outbox grew
        self.wake: Callable[[str], None] | None = None

    # -- directory -----------------------------------------------------------------

    async def set_group(self, game_id: str, chat_id: int) -> None:
        # Kept as long as the game (a 12-day campaign included), in every worker.
        await self.store.set_attr(game_id, GROUP_ATTR, str(chat_id))
        self._groups.put(game_id, (chat_id, self.clock()))

    async def group_of(self, game_id: str) -> int | None:
        cached = self._groups.get(game_id)
        now = self.clock()
        if cached is not None and (cached[0] is not None or now - cached[1] < GROUP_RECHECK):
            return cached[0]
        stored = await self.store.get_attr(game_id, GROUP_ATTR)
        group = int(stored) if stored else None
        self._groups.put(game_id, (group, now))
        return group

    # -- sending ---------------------------------------------------------------------

    def private(
        self, player: str | None, text: str, *, label: str = "tell", **options: Any
    ) -> Job | None:
        """`say` (same `options`) in a Telegram player's private chat; None for
        anyone else."""
        chat = chat_of(player)
        return None if chat is None else self.say(chat, text, label=label, **options)

    def say(
        self,
        chat: int,
        text: str,
        *,
        protect: bool = False,
        priority: Priority = Priority.NORMAL,
        markup: InlineKeyboardMarkup | None = None,
        on_done: Callable[[Any], None] | None = None,
        label: str = "say",
    ) -> Job:
        async def call(bot: Bot) -> Message:
            return await bot.send_message(
                chat, text, protect_content=protect or None, reply_markup=markup
            )

        return self.outbound.send(chat, call, priority=priority, on_done=on_done, label=label)

    def edit(
        self,
        chat: int,
        message_id: int,
        text: str,
        markup: InlineKeyboardMarkup | None = None,
        *,
        label: str = "edit",
    ) -> None:
        async def call(bot: Bot) -> Any:
            return await bot.edit_message_text(
                text, chat_id=chat, message_id=message_id, reply_markup=markup
            )

        self.outbound.send(chat, call, priority=Priority.PROMPT, paced=False, label=label)

    def close(self, chat: int, message_id: int, free: bool = False, lang: str = "en") -> Job | None:
        """Take a prompt's keyboard away; a question asking for words (whose
        reply field can't be taken back) is rewritten to say it has closed."""
        if not message_id:
            return None

        async def call(bot: Bot) -> Any:
            if free:
                text = render(CLOSED, lang)
                return await bot.edit_message_text(text, chat_id=chat, message_id=message_id)
            return await bot.edit_message_reply_markup(chat_id=chat, message_id=message_id)

        return self.outbound.send(chat, call, priority=Priority.CHATTER, paced=False, label="close")

    def lock(self, chat: int, message_id: int, text: str) -> None:
        """The player answered from this prompt: it now shows the answer,
        without a keyboard (the record already forgot it)."""

        async def call(bot: Bot) -> Any:
            return await bot.edit_message_text(
                text, chat_id=chat, message_id=message_id, reply_markup=None
            )

        self.outbound.send(chat, call, priority=Priority.PROMPT, paced=False, label="locked")

    # -- the port --------------------------------------------------------------------

    async def notify(self, game: Game, events: tuple[Event, ...]) -> None:
        """After a commit: its messages are in the outbox already (compose.py):
        wake the delivery. The scheduler's reminders come this way too, with no
        commit: they are appended to the game's outbox here."""
        reminders = [
            reminder(game, e.to, e.phase, f"{game.version}:{int(self.wall() // 60)}")
            for e in events
            if e.kind is Kind.REMINDER and e.to is not None and chat_of(e.to) is not None
        ]
        if reminders:
            await self.store.append_outbox(game.id, reminders)
        if self.wake is not None:
            self.wake(game.id)

    # -- keeping the questions in step (the delivery's side) ----------------------------

    def _ticket(self, game: Game) -> str:
        return f"{game.version}.{self._me}.{next(self._tickets)}"

    async def sync(
        self,
        game: Game,
        players: Collection[str] | None = None,
        *,
        force: Collection[str] = (),
        keep: Mapping[str, tuple[int, int]] | None = None,
        lost: bool = False,
    ) -> dict[str, list[Job]]:
        """Bring Telegram players' prompts (all of them, or `players`) in step
        with their question in `game`; returns the calls queued per player
        (the old prompt's close, the new prompt). `force`: send these players
        their question afresh even if unchanged (/status). `keep`: a player's
        message their handler rewrites (the one they tapped): never closed
        here. `lost`: also send again prompts recorded but never delivered by
        a process other than this one (a batch a dead worker held)."""
        chosen = game.players if players is None else players
        tg = [p for p in dict.fromkeys(chosen) if chat_of(p) is not None]
        if not tg:
            return {}
        wanted: dict[str, Question | None] = {
            p: question(game, p) if game.seat(p) >= 0 else None for p in tg
        }
        closes: list[tuple[str, Entry]] = []
        sends: list[tuple[str, Question, str]] = []
        kept = dict(keep or {})

        def change(version: int, entries: Open) -> int | None:
            closes.clear()
            sends.clear()
            if version > game.version:
                return None  # a newer state has been drawn already
            # The version is recorded whenever anything is open or recorded, so
            # that an older state drawn later changes nothing after it.
            changed = version != game.version and bool(entries or any(wanted.values()))
            for player in tg:
                q = wanted[player]
                key = None if q is None else q.key
                entry = entries.get(player)
                same = entry is not None and entry[KEY] == key
                undelivered = (
                    lost
                    and entry is not None
                    and entry[MID] == 0
                    and self.queued.get(entry[TICKET]) is None
                )
                if (same and player not in force and not undelivered) or (
                    entry is None and q is None
                ):
                    continue
                changed = True
                if entry is not None:
                    del entries[player]
                    if entry[MID] and (entry[CHAT], entry[MID]) != kept.get(player):
                        closes.append((player, entry))
                if q is not None:
                    ticket = self._ticket(game)
                    free = all(is_free(s) for s in q.specs)
                    chat = chat_of(player)
                    assert chat is not None
                    entries[player] = [q.phase, chat, 0, q.key, ticket, int(free)]
                    sends.append((player, q, ticket))
            return game.version if changed else None

        jobs: dict[str, list[Job]] = {}
        if not await self.records.change(game.id, change):
            return jobs
        for player, entry in closes:
            job = self.close(entry[CHAT], entry[MID], bool(entry[FREE]), game.lang)
            if job is not None:
                jobs.setdefault(player, []).append(job)
        for player, q, ticket in sends:
            jobs.setdefault(player, []).append(self.prompt(game, player, q, ticket))
        return jobs

    def prompt(self, game: Game, player: str, q: Question, ticket: str) -> Job:
        """Queue `player`'s question `q` as a new message. When its turn comes
        it is sent only if its ticket is still the record's (no newer question
        was decided meanwhile, in any worker); once sent, its message id is
        recorded, and if the record moved on in between, the message loses its
        keyboard again at once."""
        chat = chat_of(player)
        assert chat is not None
        lang = game.lang
        now = min(max(self.wall(), game.phase.started), game.phase.deadline or float("inf"))
        drawn = draw(game, player, q, lang, now)
        game_id = game.id
        self.queued.put(ticket, game_id)

        def ours(entries: Open) -> bool:
            entry = entries.get(player)
            return entry is not None and entry[TICKET] == ticket

        async def call(bot: Bot) -> Message | None:
            try:
                _, entries = await self.records.read(game_id)
                if not ours(entries):
                    return None  # superseded while it waited in the queue
                markup: InlineKeyboardMarkup | ForceReply | None = drawn.markup
                message = await bot.send_message(
                    chat, drawn.text, protect_content=True, reply_markup=markup
                )
            finally:
                self.queued.pop(ticket)
            mid = message.message_id
            kept = [False]

            def delivered(version: int, entries: Open) -> int | None:
                kept[0] = ours(entries)
                if not kept[0]:
                    return None
                entries[player][MID] = mid
                return version

            await self.records.change(game_id, delivered, fresh=True)
            if not kept[0]:  # a newer question was decided while this was sent
                self.close(chat, mid, drawn.free, lang)
            return message

        return self.outbound.send(chat, call, priority=Priority.PROMPT, label="prompt")

    async def reprompt(self, game: Game, player: str, tag: str = "") -> bool:
        """`player`'s current question again, as a fresh prompt at the bottom of
        their chat (a lost message, a scrolled-away keyboard), through the
        outbox; the earlier copy loses its keyboard, so only one is up. False
        when they have nothing to answer."""
        if not owes(game, player):
            return False
        tag = tag or f"{game.version}:{self._ticket(game)}"
        await self.store.append_outbox(game.id, [resync(player, tag)])
        if self.wake is not None:
            self.wake(game.id)
        return True

    def remind_one(self, game: Game, player: str, seq: int) -> Job | None:
        """Remind `player` if phase `seq` is current and they still owe an input."""
        if game.phase.seq != seq or not owes(game, player):
            return None
        if away_until(game, player, self.wall()) is not None:  # away: not chased
            return None
        text = render(REMINDER, game.lang)
        deadline = game.phase.deadline or game.phase.started
        closes = until(game, game.lang, min(max(self.wall(), game.phase.started), deadline))
        text = f"{text}\n{closes}" if closes else text
        return self.private(player, text, priority=Priority.PROMPT, label="reminder")
