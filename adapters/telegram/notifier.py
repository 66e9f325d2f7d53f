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
- When a phase ends, the keyboards of its unanswered prompts are taken away.

Only Telegram identities (`tg:<user id>`) are served; players on other channels
are someone else's business. Everything is queued on the outbound queue, never
sent inline: the service calls notifiers while it holds the game's lock.
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from telegram import Bot, InlineKeyboardMarkup, Message

from adapters.store.base import GameStore
from adapters.telegram.choice import Draft, Drafts, editor, title_for
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


GROUP_ATTR = "tg:group"  # the store attribute: the group chat a game was created in


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
    kinds: tuple[str, ...] = field(default_factory=tuple)


class TelegramNotifier:
    def __init__(self, outbound: Outbound, store: GameStore, drafts: Drafts) -> None:
        self.outbound = outbound
        self.store = store
        self.drafts = drafts
        self.prompts: dict[tuple[str, str, int], Prompt] = {}
        self._groups: dict[str, int | None] = {}

    # -- directory -----------------------------------------------------------------

    async def set_group(self, game_id: str, chat_id: int) -> None:
        # Kept as long as the game (a 12-day campaign included), in every worker.
        await self.store.set_attr(game_id, GROUP_ATTR, str(chat_id))
        self._groups[game_id] = chat_id

    async def group_of(self, game_id: str) -> int | None:
        if self._groups.get(game_id) is None:
            # Not cached as absent: another worker may have set it since.
            stored = await self.store.get_attr(game_id, GROUP_ATTR)
            self._groups[game_id] = int(stored) if stored else None
        return self._groups[game_id]

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

    def close_markup(self, slot: Prompt) -> None:
        """Take a prompt's keyboard away. The message id is read when the call
        runs: the prompt itself is queued before it in the same chat."""

        async def call(bot: Bot) -> Any:
            if slot.message_id is None:
                return None
            self.drafts.drop((slot.chat_id, slot.message_id))
            return await bot.edit_message_reply_markup(
                chat_id=slot.chat_id, message_id=slot.message_id
            )

        self.outbound.send(
            slot.chat_id, call, priority=Priority.CHATTER, paced=False, label="close"
        )

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
        self._close_past(game, acting)

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
        slot = Prompt(chat, None, tuple(s.kind for s in specs))
        self.prompts[key] = slot
        draft: Draft | None = None
        if len(specs) == 1 and is_draft(specs[0]):
            draft = Draft(game.id, seq, seat, specs[0].kind)
            text, markup = editor(game, specs[0], draft, lang, title_for(game, specs[0], lang))
        else:
            text, markup = prompt_text(game, specs, lang), prompt_keyboard(game, seat, specs, lang)

        def sent(message: Any) -> None:
            if isinstance(message, Message):
                slot.message_id = message.message_id
                if draft is not None:
                    self.drafts.put((chat, message.message_id), draft)

        self.private(
            player,
            text,
            protect=True,
            priority=Priority.PROMPT,
            markup=markup,
            on_done=sent,
            label="prompt",
        )

    def _close_past(self, game: Game, acting: Acting | None) -> None:
        """Take the keyboards off this game's prompts of phases gone by (except
        the one the acting player just answered: its handler rewrites it)."""
        now = game.phase.seq
        mine = None if acting is None else (acting.game_id, acting.player, acting.seq)
        for key in [k for k in self.prompts if k[0] == game.id and (k[2] < now or game.over)]:
            slot = self.prompts.pop(key)
            if key != mine:
                self.close_markup(slot)

    def answered(self, game_id: str, player: str, seq: int) -> None:
        """The player answered their prompt: it needs no closing later."""
        self.prompts.pop((game_id, player, seq), None)

    def remind_one(self, game: Game, player: str, seq: int) -> bool:
        """Remind `player` if phase `seq` is current and they still owe an input."""
        if game.phase.seq != seq or not game.running:
            return False
        if not any(s.phase == seq for s in game_specs(legal(game, player))):
            return False
        text = render(REMINDER, game.lang)
        return self.private(player, text, priority=Priority.PROMPT, label="reminder")

    async def remind(self, game: Game) -> int:
        """Remind everyone who still owes an input in the current phase;
        returns how many were reminded."""
        seq = game.phase.seq
        return sum(self.remind_one(game, player, seq) for player in game.players)
