"""The Telegram notifier: a committed transition's events become queued messages.

- TELL: a private message to that player; secrets go with `protect_content`
  (no forwarding, no saving). A TELL that answers the player's own tap (the
  «Choice locked» after «Send valget») is not sent as a new message: the handler
  puts it into the prompt message the tap came from.
- PROMPT: the player's legal actions of that phase, asked afresh from the state
  (a prompt for a past phase, or for someone dead, banished or sitting out,
  whose `legal()` is empty, sends nothing). One spec with several fields becomes
  the step-by-step editor (choice.py); anything else a keyboard (keyboards.py).
- ANNOUNCE: one message per transition to the group the game was created in,
  if any (groups allow 20 messages a minute); in a private-chat game the lobby
  news go to the host. The TV page stays the main screen. When the game ends,
  every player also gets the final announcements (the end reveal).
- HOST: a private message to the host.
- REMINDER with an addressee (the scheduler's `send_reminder`): a nudge to a
  player who still owes this phase's input; without one it only arms a timer.
- When a phase ends, the keyboards of its unanswered prompts are taken away,
  by whichever worker sees the phase change (a deadline may fire in another
  process than the one that sent the prompts, or after a restart): the prompts
  whose keyboard is up are recorded in the store, as the game's attribute
  `tg:open` ({player: [phase, chat, message id]}, changed by compare-and-set
  so that workers never undo each other's changes). A prompt is recorded once
  it is delivered and forgotten when it is answered or closed. Prompts this
  process queued but has not delivered yet are closed from memory (the close
  runs after the prompt, in the chat's order). A prompt whose phase another
  process closed while it waited in this process's queue is not sent at all,
  and one closed while it was being sent (after the check) is closed by its
  sender: it records the prompt first and checks the stored phase after, so
  whichever side comes second sees the other.

Only Telegram identities (`tg:<user id>`) are served; players on other channels
are someone else's business. Everything is queued on the outbound queue, never
sent inline: the service calls notifiers while it holds the game's lock.
"""

from __future__ import annotations

import contextvars
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from telegram import Bot, InlineKeyboardMarkup, Message

from adapters.deadline_text import until
from adapters.store.base import GameStore
from adapters.telegram.choice import Draft, editor, title_for
from adapters.telegram.keyboards import game_specs, is_draft, prompt_keyboard, prompt_text
from adapters.telegram.outbound import Outbound, Priority
from gameflow.core.engine import legal
from gameflow.core.events import Event, Kind
from gameflow.core.state import LOBBY, Game
from gameflow.core.text import N_
from gameflow.i18n import render

log = logging.getLogger(__name__)

PREFIX = "tg:"
REMINDER = N_("Reminder: this phase ends soon. Your answer is still missing.")

GROUP_ATTR = "tg:group"  # the store attribute: the group chat a game was created in
OPEN_ATTR = "tg:open"  # the store attribute: prompts whose keyboard is up
SWAP_TRIES = 20  # compare-and-set rounds before giving up on a record
# A group is only ever set when a game is created, before its join code is
# shown; absence is still re-checked now and then (a host's command racing /new).
GROUP_RECHECK = 60.0

K = TypeVar("K")
V = TypeVar("V")
Open = dict[str, list[int]]  # player -> [phase, chat, message id]


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
    own player in its own phase is handed back instead of sent."""

    game_id: str
    player: str
    seq: int
    echo: Event | None = None


ACTING: contextvars.ContextVar[Acting | None] = contextvars.ContextVar("acting", default=None)


@dataclass(slots=True)
class Prompt:
    chat_id: int
    message_id: int | None = None


def parse_open(text: str | None) -> Open:
    """The `tg:open` record; anything malformed in it counts as absent."""
    try:
        data = json.loads(text) if text else {}
        entries = {str(p): [int(x) for x in v] for p, v in data.items()}
    except (ValueError, TypeError, AttributeError):
        return {}
    return {p: v for p, v in entries.items() if len(v) == 3}


def record(entries: Open, player: str, seq: int, chat: int, message_id: int) -> bool:
    if player in entries and entries[player][0] > seq:
        return False  # a later prompt is up already
    entries[player] = [seq, chat, message_id]
    return True


def forget(entries: Open, player: str, seq: int, message_id: int | None = None) -> bool:
    """Drop `player`'s record of phase `seq` (only if it is of `message_id`, when
    given: closing an old prompt must not forget the fresh one that replaced it)."""
    entry = entries.get(player)
    if entry is None or entry[0] != seq or message_id not in (None, entry[2]):
        return False
    del entries[player]
    return True


def owes(game: Game, player: str) -> bool:
    """Does `player` owe an answer in the game's current phase (a question
    `legal()` offers them now)? Never for the dead, banished or sitting out."""
    seq = game.phase.seq
    return game.running and any(s.phase == seq for s in game_specs(legal(game, player)))


class TelegramNotifier:
    def __init__(
        self,
        outbound: Outbound,
        store: GameStore,
        *,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.outbound = outbound
        self.store = store
        self.clock = clock
        self.wall = wall  # the real time, for "answer by" in reminders
        # prompts this process queued and has not recorded in the store yet
        self.pending: Recent[tuple[str, str, int], Prompt] = Recent()
        self._groups: Recent[str, tuple[int | None, float]] = Recent()
        # game -> (phase, over) whose past prompts this process closed last
        self._closed: Recent[str, tuple[int, bool]] = Recent()

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

    # -- the open-prompt record --------------------------------------------------------

    async def change_open(self, game_id: str, change: Callable[[Open], bool]) -> None:
        """Read, change and swap the game's `tg:open` record until the swap holds
        (another worker may change it at the same moment). Store trouble is
        logged, never raised: the message itself went out."""
        try:
            gone = False
            for _ in range(SWAP_TRIES):
                old = await self.store.get_attr(game_id, OPEN_ATTR)
                entries = parse_open(old)
                if not change(entries):
                    return
                new = json.dumps(entries, separators=(",", ":"))
                if await self.store.swap_attr(game_id, OPEN_ATTR, old, new):
                    return
                if old is None and gone:
                    return  # no such game (any more)
                gone = old is None
            log.warning("%s: gave up recording an open prompt", game_id)
        except Exception:
            log.exception("%s: recording an open prompt failed", game_id)

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

    def close_markup(self, game_id: str, player: str, seq: int, slot: Prompt) -> None:
        """Take a prompt's keyboard away. The message id is read when the call
        runs: a prompt this process queued is sent before it, in the chat's order."""

        async def call(bot: Bot) -> Any:
            if slot.message_id is None:
                return None  # never delivered
            mid = slot.message_id
            try:
                return await bot.edit_message_reply_markup(chat_id=slot.chat_id, message_id=mid)
            finally:
                await self.change_open(game_id, lambda e: forget(e, player, seq, mid))

        self.outbound.send(
            slot.chat_id, call, priority=Priority.CHATTER, paced=False, label="close"
        )

    def lock(
        self, game_id: str, player: str, seq: int, chat: int, message_id: int, text: str
    ) -> None:
        """The player answered their prompt: it now shows the answer, without a
        keyboard, and needs no closing later."""
        self.pending.pop((game_id, player, seq))

        async def call(bot: Bot) -> Any:
            try:
                return await bot.edit_message_text(
                    text, chat_id=chat, message_id=message_id, reply_markup=None
                )
            finally:
                await self.change_open(game_id, lambda e: forget(e, player, seq, message_id))

        self.outbound.send(chat, call, priority=Priority.PROMPT, paced=False, label="locked")

    # -- the port --------------------------------------------------------------------

    async def notify(self, game: Game, events: tuple[Event, ...]) -> None:
        lang = game.lang
        acting = ACTING.get()
        group: int | None = None
        if any(e.kind is Kind.ANNOUNCE for e in events):
            group = await self.group_of(game.id)
        public: list[str] = []  # one message per transition: groups allow 20 a minute
        for e in events:
            text = render(e.text, lang) if e.text is not None else ""
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
                current = e.phase == game.phase.seq
                priority = Priority.PROMPT if current else Priority.NORMAL
                self.private(e.to, text, protect=e.secret, priority=priority)
            elif e.kind is Kind.PROMPT:
                self.prompt(game, e.to, e.phase)
            elif e.kind is Kind.ANNOUNCE:
                public.append(text)
            elif e.kind is Kind.HOST:
                self.private(e.to or game.host, text, label="host")
            elif e.kind is Kind.REMINDER and e.to is not None:
                # the scheduler's reminder to one player (without `to` it only arms one)
                self.remind_one(game, e.to, e.phase)
        if public:
            joined = "\n".join(public)
            if group is not None:
                self.say(group, joined, priority=Priority.CHATTER, label="announce")
            elif game.phase.name == LOBBY:
                self.private(game.host, joined, priority=Priority.CHATTER, label="lobby")
            if game.over:
                for player in game.players:
                    self.private(player, joined, priority=Priority.CHATTER, label="over")
        await self._close_past(game, acting)

    def prompt(self, game: Game, player: str | None, seq: int) -> None:
        """Draw `player`'s prompt for phase `seq` from `legal()`, if it is still
        that phase and they may act (never for the dead, banished or sitting out)."""
        chat = chat_of(player)
        if player is None or chat is None or game.phase.seq != seq or not game.running:
            return
        specs = tuple(s for s in game_specs(legal(game, player)) if s.phase == seq)
        if not specs:
            return
        seat = game.seat(player)
        lang = game.lang
        key = (game.id, player, seq)
        slot = Prompt(chat)
        self.pending.put(key, slot)
        if len(specs) == 1 and is_draft(specs[0]):
            draft = Draft(game.id, seq, seat, specs[0].kind)
            text, markup = editor(game, specs[0], draft, lang, title_for(game, specs[0], lang))
        else:
            text, markup = prompt_text(game, specs, lang), prompt_keyboard(game, seat, specs, lang)
            closes = until(game, lang, game.phase.started)
            text = f"{text}\n{closes}" if closes else text
        game_id = game.id

        async def call(bot: Bot) -> Message | None:
            if not await self._still_open(game_id, seq):
                self._drop_pending(key, slot)
                return None  # the question closed while this waited in the queue
            message = await bot.send_message(chat, text, protect_content=True, reply_markup=markup)
            slot.message_id = mid = message.message_id
            await self.change_open(game_id, lambda e: record(e, player, seq, chat, mid))
            # Recorded first, checked after: a phase change committed before this
            # check is seen here, and one committed after it finds the record.
            if self.pending.get(key) is slot and not await self._still_open(game_id, seq):
                self.pending.pop(key)
                self.close_markup(game_id, player, seq, slot)
            self._drop_pending(key, slot)
            return message

        self.outbound.send(chat, call, priority=Priority.PROMPT, label="prompt")

    async def reprompt(self, game: Game, player: str) -> bool:
        """`player`'s current question again, as a fresh prompt at the bottom of
        their chat (a lost message, a restart that lost what was queued, a
        scrolled-away keyboard); the earlier prompt of this phase loses its
        keyboard, so only one is up. False when they have nothing to answer."""
        if not owes(game, player):
            return False
        seq = game.phase.seq
        slot = self.pending.pop((game.id, player, seq))
        if slot is not None:  # queued here: closed after it is sent, in the chat's order
            self.close_markup(game.id, player, seq, slot)
        else:
            entry = parse_open(await self.store.get_attr(game.id, OPEN_ATTR)).get(player)
            if entry is not None and entry[0] == seq:
                self.close_markup(game.id, player, seq, Prompt(entry[1], entry[2]))
        self.prompt(game, player, seq)
        return True

    async def resume(self, game: Game) -> int:
        """After a restart: send again each current prompt that never arrived
        (the process that queued it died first), to every Telegram player who
        still owes an answer and has no prompt of this phase up; returns how
        many. Prompts this process has queued are left to it."""
        seq = game.phase.seq
        if not game.running:
            return 0
        entries = parse_open(await self.store.get_attr(game.id, OPEN_ATTR))
        sent = 0
        for player in game.players:
            up = entries.get(player)
            if chat_of(player) is None or (up is not None and up[0] == seq):
                continue
            if self.pending.get((game.id, player, seq)) is not None:
                continue
            if owes(game, player):
                self.prompt(game, player, seq)
                sent += 1
        return sent

    def _drop_pending(self, key: tuple[str, str, int], slot: Prompt) -> None:
        if self.pending.get(key) is slot:
            self.pending.pop(key)

    async def _still_open(self, game_id: str, seq: int) -> bool:
        """Is phase `seq` still the game's current phase, by the stored state?
        (Another worker, or a deadline, may have moved the game on.) Store
        trouble counts as open: the keyboard is closed at the next phase change."""
        try:
            game = await self.store.load(game_id)
        except Exception:
            log.exception("%s: checking a prompt's phase failed", game_id)
            return True
        return game is not None and game.running and game.phase.seq == seq

    async def _close_past(self, game: Game, acting: Acting | None) -> None:
        """Take the keyboards off this game's prompts of phases gone by (except
        the one the acting player just answered: its handler rewrites it), once
        per phase change this process sees."""
        now, over = game.phase.seq, game.over
        if game.phase.name == LOBBY or self._closed.get(game.id) == (now, over):
            return
        mine = None if acting is None else (acting.game_id, acting.player, acting.seq)
        closing: set[tuple[str, int]] = set()
        for key in self.pending.all_keys():
            if key[0] == game.id and (key[2] < now or over):
                slot = self.pending.pop(key)
                closing.add((key[1], key[2]))
                if slot is not None and key != mine:
                    self.close_markup(game.id, key[1], key[2], slot)
        entries = parse_open(await self.store.get_attr(game.id, OPEN_ATTR))
        for player, (seq, chat, message_id) in entries.items():
            key = (game.id, player, seq)
            if (seq < now or over) and key != mine and (player, seq) not in closing:
                self.close_markup(game.id, player, seq, Prompt(chat, message_id))
        self._closed.put(game.id, (now, over))

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
