"""The Telegram notifier: after every commit, what each player reads is brought
in step with the game.

- The open question is a view (`gameflow.core.question`): after every commit
  (an input, a deadline, a host action, a card played) the notifier asks every
  Telegram player's question and compares its key with the key of the prompt
  it last sent them (the store's open-prompt record, record.py). A changed key
  means a new prompt, and the old one loses its keyboard; a closed question
  means the keyboard goes. So nobody is waited for without their latest
  message holding the question, and a question never changes under a player
  without a new message. PROMPT events are no trigger: the state is.
- TELL: a private message to that player; secrets go with `protect_content`
  (no forwarding, no saving). A TELL that answers the player's own tap (the
  «Choice locked» after «Send valget») is not sent as a new message: the handler
  puts it into the prompt message the tap came from.
- ANNOUNCE: the group the game was created in gets the news, merged per chat
  (news.py: a group is never more than one message behind). A game without a
  group (played in private chats) sends each player and the host the news of
  each moment as one message. When the game ends, every player also gets the
  final announcements (the end reveal).
- HOST: a private message to the host.
- REMINDER with an addressee (the scheduler's `send_reminder`): a nudge to a
  player who still owes this phase's input; without one it only arms a timer.

Only Telegram identities (`tg:<user id>`) are served; players on other channels
are someone else's business. Everything is queued on the outbound queue, never
sent inline: the service calls notifiers while it holds the game's lock.
"""

from __future__ import annotations

import contextvars
import itertools
import logging
import os
import time
from collections import OrderedDict
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from telegram import Bot, ForceReply, InlineKeyboardMarkup, Message

from adapters.deadline_text import until
from adapters.telegram.keyboards import is_free
from adapters.telegram.news import News
from adapters.telegram.outbound import Outbound, Priority
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
from gameflow.core.events import Event, Kind
from gameflow.core.question import Question, question
from gameflow.core.state import LOBBY, Game
from gameflow.core.text import N_, Msg
from gameflow.i18n import render
from service.ports import GameStore

__all__ = ["OPEN_ATTR", "SWAP_TRIES", "parse_open"]

log = logging.getLogger(__name__)

PREFIX = "tg:"
REMINDER = N_("Reminder: this phase ends soon. Your answer is still missing.")
CLOSED = N_("This question has closed.")

GROUP_ATTR = "tg:group"  # the store attribute: the group chat a game was created in
# A group is only ever set when a game is created, before its join code is
# shown; absence is still re-checked now and then (a host's command racing /new).
GROUP_RECHECK = 60.0

K = TypeVar("K")
V = TypeVar("V")


def identity(user_id: int) -> str:
    return f"{PREFIX}{user_id}"


def chat_of(player: str | None) -> int | None:
    """The private chat of a Telegram player (a private chat's id is the user's)."""
    if player is None or not player.startswith(PREFIX):
        return None
    try:
        return int(player[len(PREFIX) :])
    except ValueError:
        return None


class Recent(Generic[K, V]):
    """A small cache that forgets its oldest entries beyond `size`."""

    def __init__(self, size: int = 10_000) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        return self._items.get(key)

    def put(self, key: K, value: V) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.size:
            self._items.popitem(last=False)

    def pop(self, key: K) -> V | None:
        return self._items.pop(key, None)

    def all_keys(self) -> list[K]:
        return list(self._items)


@dataclass(slots=True)
class Acting:
    """Set by a handler around its `submit`: the TELL this input makes for its
    own player in its own phase is handed back instead of sent, and the prompt
    message the input came from (`message`: chat, message id) is left to the
    handler to rewrite rather than closed."""

    game_id: str
    player: str
    seq: int
    echo: Event | None = None
    message: tuple[int, int] | None = None


ACTING: contextvars.ContextVar[Acting | None] = contextvars.ContextVar("acting", default=None)


@dataclass(slots=True)
class Confirming:
    """Set by a host command around its `submit`: its confirmation joins the
    news that the commit sends to the host's chat (one message, whatever the
    sender's timing), and `done` says it did; otherwise the handler sends it."""

    game_id: str
    chat: int
    text: str
    done: bool = False


CONFIRMING: contextvars.ContextVar[Confirming | None] = contextvars.ContextVar(
    "confirming", default=None
)


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
        self,
        player: str | None,
        text: str,
        *,
        protect: bool = False,
        priority: Priority = Priority.NORMAL,
        markup: InlineKeyboardMarkup | None = None,
        on_done: Callable[[Any], None] | None = None,
        label: str = "tell",
    ) -> bool:
        chat = chat_of(player)
        if chat is None:
            return False
        self.say(
            chat,
            text,
            protect=protect,
            priority=priority,
            markup=markup,
            on_done=on_done,
            label=label,
        )
        return True

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
    ) -> None:
        async def call(bot: Bot) -> Message:
            return await bot.send_message(
                chat, text, protect_content=protect or None, reply_markup=markup
            )

        self.outbound.send(chat, call, priority=priority, on_done=on_done, label=label)

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

    def close(self, chat: int, message_id: int, free: bool = False, lang: str = "en") -> None:
        """Take a prompt's keyboard away; a question asking for words (whose
        reply field can't be taken back) is rewritten to say it has closed."""
        if not message_id:
            return

        async def call(bot: Bot) -> Any:
            if free:
                text = render(CLOSED, lang)
                return await bot.edit_message_text(text, chat_id=chat, message_id=message_id)
            return await bot.edit_message_reply_markup(chat_id=chat, message_id=message_id)

        self.outbound.send(chat, call, priority=Priority.CHATTER, paced=False, label="close")

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
        lang = game.lang
        acting = ACTING.get()
        public: list[Msg | str] = [
            e.text for e in events if e.kind is Kind.ANNOUNCE and e.text is not None
        ]
        if public:
            await self.announce(game, public)
        for e in events:
            if e.kind is Kind.TELL:
                if (
                    acting is not None
                    and acting.echo is None
                    and acting.game_id == game.id
                    and acting.player == e.to
                    and acting.seq == e.phase
                ):
                    acting.echo = e
                    continue
                text = render(e.text, lang) if e.text is not None else ""
                current = e.phase == game.phase.seq
                priority = Priority.PROMPT if current else Priority.NORMAL
                self.private(e.to, text, protect=e.secret, priority=priority)
            elif e.kind is Kind.HOST:
                text = render(e.text, lang) if e.text is not None else ""
                self.private(e.to or game.host, text, label="host")
            elif e.kind is Kind.REMINDER and e.to is not None:
                # the scheduler's reminder to one player (without `to` it only arms one)
                self.remind_one(game, e.to, e.phase)
        # PROMPT events need nothing: every player's question is compared below.
        await self.sync(game, acting)

    async def announce(self, game: Game, public: list[Msg | str]) -> None:
        """The news of one moment: to the game's group, merged with what is
        still waiting for it; without a group, to every player and the host
        (they may have no TV), one merged message per chat and moment."""
        group = await self.group_of(game.id)
        lang = game.lang
        if group is not None:
            self.news.add(group, public, lang, label="announce")
            if game.over:  # the end reveal reaches everyone
                for player in game.players:
                    chat = chat_of(player)
                    if chat is not None:
                        self.news.add(chat, public, lang, label="over")
            return
        # The lobby's news (who joined) go to the host, who starts the game;
        # from the deal on, everyone follows the game by message.
        lobby = game.phase.name == LOBBY
        seen: set[int] = set()
        confirming = CONFIRMING.get()
        for who in (game.host, *(() if lobby else game.players)):
            chat = chat_of(who)
            if chat is not None and chat not in seen:
                seen.add(chat)
                parts = public
                if (
                    confirming is not None
                    and (confirming.game_id, confirming.chat) == (game.id, chat)
                    and not confirming.done
                ):
                    parts, confirming.done = [*public, confirming.text], True
                self.news.add(chat, parts, lang, label="lobby" if lobby else "news")

    # -- keeping the questions in step ---------------------------------------------------

    def _ticket(self, game: Game) -> str:
        return f"{game.version}.{self._me}.{next(self._tickets)}"

    async def sync(
        self,
        game: Game,
        acting: Acting | None = None,
        *,
        force: Collection[str] = (),
        lost: bool = False,
    ) -> int:
        """Bring every Telegram player's prompt in step with their question in
        `game`; returns how many prompts were queued. `force`: send these
        players their question afresh even if unchanged (/status). `lost`:
        also send again prompts recorded but never delivered by a process
        other than this one (after a restart)."""
        players = [p for p in game.players if chat_of(p) is not None]
        if not players:
            return 0
        wanted: dict[str, Question | None] = {p: question(game, p) for p in players}
        closes: list[Entry] = []
        sends: list[tuple[str, Question, str]] = []
        mine = acting.message if acting is not None and acting.game_id == game.id else None

        def change(version: int, entries: Open) -> int | None:
            closes.clear()
            sends.clear()
            if version > game.version:
                return None  # a newer commit has decided already
            # The version is recorded whenever anything is open or recorded, so
            # that a slower worker's older notification changes nothing after it.
            changed = version != game.version and bool(entries or any(wanted.values()))
            for player in players:
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
                    if entry[MID] and (entry[CHAT], entry[MID]) != mine:
                        closes.append(entry)
                if q is not None:
                    ticket = self._ticket(game)
                    free = all(is_free(s) for s in q.specs)
                    chat = chat_of(player)
                    assert chat is not None
                    entries[player] = [q.phase, chat, 0, q.key, ticket, int(free)]
                    sends.append((player, q, ticket))
            return game.version if changed else None

        if not await self.records.change(game.id, change):
            return 0
        for entry in closes:
            self.close(entry[CHAT], entry[MID], bool(entry[FREE]), game.lang)
        for player, q, ticket in sends:
            self.prompt(game, player, q, ticket)
        return len(sends)

    def prompt(self, game: Game, player: str, q: Question, ticket: str) -> None:
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

        self.outbound.send(chat, call, priority=Priority.PROMPT, label="prompt")

    async def reprompt(self, game: Game, player: str) -> bool:
        """`player`'s current question again, as a fresh prompt at the bottom of
        their chat (a lost message, a restart that lost what was queued, a
        scrolled-away keyboard); the earlier copy loses its keyboard, so only
        one is up. False when they have nothing to answer."""
        if not owes(game, player):
            return False
        await self.sync(game, force=(player,))
        return True

    async def resume(self, game: Game) -> int:
        """After a restart: send each current prompt that never arrived (the
        process that queued it died first), and any question no prompt was
        decided for; returns how many. Prompts this process queued are its own."""
        if not game.running:
            return 0
        return await self.sync(game, lost=True)

    def remind_one(self, game: Game, player: str, seq: int) -> bool:
        """Remind `player` if phase `seq` is current and they still owe an input."""
        if game.phase.seq != seq or not owes(game, player):
            return False
        text = render(REMINDER, game.lang)
        deadline = game.phase.deadline or game.phase.started
        closes = until(game, game.lang, min(max(self.wall(), game.phase.started), deadline))
        text = f"{text}\n{closes}" if closes else text
        return self.private(player, text, priority=Priority.PROMPT, label="reminder")

    async def remind(self, game: Game) -> int:
        """Remind everyone who still owes an input in the current phase;
        returns how many were reminded."""
        seq = game.phase.seq
        return sum(self.remind_one(game, player, seq) for player in game.players)
