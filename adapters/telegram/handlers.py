"""Thin PTB handlers: parse the update, build one core action, submit, answer.

Every input goes through `GameService.submit` with the update's id as its
idempotency key (`tg:<update_id>`), so a redelivered update is never applied
twice. Replies and edits are queued on the outbound queue. A callback-query
answer (the toast, or just the end of the button's spinner) is due within
seconds: behind the webhook it goes back in the webhook's own HTTP reply
(Telegram's "making requests when getting updates"), with no Bot API call of
ours at all; when polling, it is sent directly. Button presses are handled
in presses.py.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from telegram import Bot, BotCommand, Chat, Update, User
from telegram.error import TelegramError
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from adapters.telegram.delivery import TelegramDelivery
from adapters.telegram.help import help_text, not_understood
from adapters.telegram.hosting import HOST_PAYLOAD, Hosting, TvLink
from adapters.telegram.jobs import Priority
from adapters.telegram.keyboards import is_free, offered
from adapters.telegram.language import LANGUAGE_OF, user_lang
from adapters.telegram.notifier import Recent, TelegramNotifier, identity
from adapters.telegram.outbound import Outbound
from adapters.telegram.rematch import PRESS as REMATCH_PRESS
from adapters.telegram.rematch import TelegramInviter
from adapters.telegram.renderer import CHANNEL, echo_of
from adapters.telegram.talk import TelegramTalker
from adapters.telegram.talk import team as talk_team
from gameflow.core import actions as A
from gameflow.core import registry
from gameflow.core.away import parse_until
from gameflow.core.question import question
from gameflow.core.state import Game
from gameflow.core.text import N_, Msg, msg
from gameflow.i18n import render
from service import talk
from service.compose import Origin
from service.games import GameNotFound, GameService, Outcome
from service.rematch import add_inviter

log = logging.getLogger(__name__)

Context = ContextTypes.DEFAULT_TYPE

NO_GAME = N_("You are not in a game. Start one with /new {game}, or join with /join CODE.")
UNKNOWN_CODE = N_("There is no game with the code {code}.")
NOTHING_NOW = N_("Nothing to answer right now. Your next question comes to this chat.")
PRIVATELY = N_("Send /status to me in a private chat: your questions are private.")
HOST_CONTROLS = N_("You host this game: /startgame, /pause, /resume, /advance, /end.")
HOST_GM = N_("You host this game: /gm for the game master's actions now.")
ANONYMOUS = N_(
    "You are posting as the group (an anonymous admin), so I can't tell who you are. "
    "To host or play, turn off «Remain anonymous» in your admin rights for a moment, "
    "or send me /new station in a private chat."
)
PLEA_SENT = N_("Sent: {text}")
AWAY_USAGE = N_(
    "Use /away YYYY-MM-DD to be away through that day, /away DAYS for a number of days, "
    "or /away off when you are back."
)
# "/away off": back in the game (the words of every language, as SMS's BACK)
AWAY_OFF = frozenset({"off", "back", "av", "tilbake", "nazad", "povratak"})
ANONYMOUS_BOT = 1087968824  # Telegram's account posting for a group's anonymous admins


# The bot's command menu (the "/" button), in the order shown.
MENU = (
    ("status", N_("Your current question again")),
    ("help", N_("What you can do now")),
    ("join", N_("Join a game: /join CODE")),
    ("new", N_("Host a new game: /new {games}")),
    ("away", N_("Away until a date: /away 2027-01-20, or /away off")),
    ("startgame", N_("Host: deal the roles and begin")),
    ("pause", N_("Host: stop the clock")),
    ("resume", N_("Host: start the clock again")),
    ("advance", N_("Host: end this phase now")),
    ("move", N_("Host, campaign: move a window, /move vote 21:30")),
    ("console", N_("Host: your game master's console, a private link")),
    ("gone", N_("Host: a player who left, /gone NAME (/back NAME)")),
    ("end", N_("Host: end the game")),
    ("again", N_("Host: the same game again with the same players, /again CODE")),
    ("mute", N_("Host: mute a player's talk, /mute NAME (/unmute NAME)")),
    ("team", N_("Talk to your team alone: /team WORDS")),
)


async def register_menu(bot: Bot, default_lang: str) -> None:
    """Show the commands in Telegram's menu in the user's language (the
    default list in `default_lang`). Harmless to repeat: every worker does it at
    start; a failure only costs the menu, never the bot."""
    try:
        for code, lang in (("", default_lang), *LANGUAGE_OF.items()):
            commands = [BotCommand(name, render(menu_line(text), lang)) for name, text in MENU]
            await bot.set_my_commands(commands, language_code=code or None)
    except TelegramError:
        log.warning("could not set the bot's command menu", exc_info=True)


def menu_line(text: str) -> Msg:
    """A menu line, the games named from the registry (`/new`'s)."""
    return msg(text, games=registry.one_of(registry.kinds()))


def no_game() -> Msg:
    """ "You are not in a game", naming the game `/new` makes when none is named."""
    return msg(NO_GAME, game=registry.first().kind)


def player_name(user: User) -> str:
    name = " ".join((user.first_name or "").split())[:32]
    return name or f"#{user.id}"


@dataclass
class Telegram(Hosting):
    """Everything the handlers need; built by `build()` in webhook.py. The
    commands are here, the host's in hosting.py, the button presses in presses.py."""

    service: GameService
    outbound: Outbound
    notifier: TelegramNotifier
    default_lang: str = "nb"
    tv_link: TvLink | None = None
    # the deal's seed for a new game (None: the service draws one); tests fix it
    seed_for: Callable[[Update], str | None] | None = None
    # a fixed deal for a new game (tests force plot cards, roles, shield days)
    setup_for: Callable[[Update], Mapping[str, Any] | None] | None = None
    failed: set[int] = field(default_factory=set)
    # Behind the webhook: answers to callback queries, by query id, for the
    # route to put into its reply (see `notice`).
    answer_in_reply: bool = False
    answers: dict[str, dict[str, Any]] = field(default_factory=dict)
    # (game, seat) -> the draft this process last stored (see presses.py)
    written: Recent[tuple[str, int], str] = field(default_factory=Recent)
    # join code -> game, as last looked up (a code names its game while the
    # game lives; a join that fails through a cached code looks it up again)
    codes: Recent[str, str] = field(default_factory=Recent)
    # what the commits decided, sent from the durable outbox (delivery.py)
    delivery: TelegramDelivery | None = None

    async def settled(self) -> None:
        """Everything decided so far is sent (tests; a graceful stop)."""
        if self.delivery is not None:
            await self.delivery.settled()
        await self.outbound.join()

    # -- helpers ------------------------------------------------------------------

    def reply(self, chat: Chat | None, text: str, priority: Priority = Priority.NORMAL) -> None:
        if chat is not None:
            self.notifier.say(chat.id, text, priority=priority, label="reply")

    async def whose(self, user: User) -> tuple[Game, str] | None:
        where = await self.service.store.whereis(identity(user.id))
        if where is None:
            return None
        try:
            return await self.service.load(where[0]), where[1]
        except GameNotFound:
            return None

    async def sender_game(self, update: Update) -> tuple[Chat, Game, str] | None:
        """The chat, the game the sender is in and their identity in it; None
        (having told them they are in no game) when there is none."""
        user, chat = update.effective_user, update.effective_chat
        if user is None or chat is None:
            return None
        found = await self.whose(user)
        if found is None:
            self.reply(chat, render(no_game(), user_lang(user, self.default_lang)))
            return None
        return chat, found[0], found[1]

    def guarded(
        self, callback: Callable[[Update, Context], Coroutine[Any, Any, None]]
    ) -> Callable[[Update, Context], Coroutine[Any, Any, None]]:
        """`callback`, except for a group's anonymous admin (Telegram posts
        for them as the group, so nobody can be told apart): they are told how
        to take part instead of "you are not in a game"."""

        async def run(update: Update, context: Context) -> None:
            message, chat = update.effective_message, update.effective_chat
            sender = message.sender_chat if message is not None else None
            user = update.effective_user
            anonymous = sender is not None and chat is not None and sender.id == chat.id
            if anonymous or (user is not None and user.id == ANONYMOUS_BOT):
                self.reply(chat, render(ANONYMOUS, user_lang(user, self.default_lang)))
                return
            await callback(update, context)

        return run

    # -- commands -------------------------------------------------------------------

    async def start(self, update: Update, context: Context) -> None:
        """`/start CODE` is what a `t.me/<bot>?start=CODE` link sends."""
        if context.args and context.args[0].lower().startswith(HOST_PAYLOAD):
            await self.host_start(update, context.args[0][len(HOST_PAYLOAD) :])
            return
        if context.args:
            await self.join(update, context)
            return
        # A plain /start (the private chat opened by hand): someone in a game
        # gets what they can do there, and its host also the TV link.
        user, chat = update.effective_user, update.effective_chat
        found = await self.whose(user) if user is not None else None
        if found is None or found[0].over:
            self.reply(chat, render(no_game(), user_lang(user, self.default_lang)))
            return
        game, me = found
        lines = await self.tv_lines(game, game.lang) if me == game.host else []
        self.reply(chat, "\n".join([*lines, help_text(game, me, game.lang)]))

    async def help(self, update: Update, context: Context) -> None:
        """`/help`: the commands that apply to the sender now (help.py)."""
        user = update.effective_user
        if user is None:
            return
        game, me, lang = await self.where(user)
        self.reply(update.effective_chat, help_text(game, me, lang))

    async def where(self, user: User) -> tuple[Game | None, str | None, str]:
        """The game the user is in (None if none, or over), their identity in
        it and the language to answer in (the game's, else the user's own)."""
        found = await self.whose(user)
        if found is None or found[0].over:
            return None, None, user_lang(user, self.default_lang)
        return found[0], found[1], found[0].lang

    async def puzzled(self, update: Update, private: bool) -> None:
        """A command or message the bot did not understand: the sender's open
        question, or what they can do (help.py)."""
        user = update.effective_user
        if user is None:
            return
        game, me, lang = await self.where(user)
        self.reply(update.effective_chat, not_understood(game, me, lang, private=private))

    async def unknown(self, update: Update, context: Context) -> None:
        """A command the bot does not know. In a group only one addressed to
        this bot (`/x@bot`): a plain `/x` there may be for another bot."""
        message, chat = update.effective_message, update.effective_chat
        if message is None or chat is None:
            return
        private = chat.type == Chat.PRIVATE
        command = (message.text or "").split(maxsplit=1)[0] if message.text else ""
        _, at, bot = command.partition("@")
        if at and bot.casefold() != (context.bot.username or "").casefold():
            return  # another bot's command
        if not private and not at:
            return
        await self.puzzled(update, private)

    async def group_text(self, update: Update, context: Context) -> None:
        """Plain text in a group: only what is addressed to the bot (a reply
        to one of its messages, or a mention of it) gets an answer."""
        message = update.effective_message
        if message is None or not message.text:
            return
        me = context.bot
        replied = message.reply_to_message
        author = replied.from_user if replied is not None else None
        to_bot = author is not None and author.id == me.id
        handle = f"@{me.username or ''}".casefold()
        mentions = message.parse_entities(["mention"]).values()
        if to_bot or any(m.casefold() == handle for m in mentions):
            await self.puzzled(update, False)

    async def join(self, update: Update, context: Context) -> None:
        user, chat = update.effective_user, update.effective_chat
        if user is None or chat is None:
            return
        lang = user_lang(user, self.default_lang)
        code = "".join(context.args or []).strip().upper()
        game_id = self.codes.get(code) if code else None
        cached = game_id is not None
        if code and game_id is None:
            game_id = await self.service.store.game_for_code(code)
        outcome: Outcome | None = None
        while game_id is not None:
            try:
                outcome = await self.join_as(update, user, game_id)
            except GameNotFound:
                outcome = None
            if cached and (outcome is None or outcome.rejected is not None):
                # The code may have passed to a newer game since it was cached.
                self.codes.pop(code)
                fresh = await self.service.store.game_for_code(code)
                if fresh != game_id:
                    game_id, cached = fresh, False
                    continue
            break
        if game_id is None or outcome is None:
            self.reply(chat, render(msg(UNKNOWN_CODE, code=code or "?"), lang))
            return
        self.codes.put(code, game_id)
        refusal = self.refusal(outcome)
        if refusal is not None:
            self.reply(chat, refusal)
            return
        game = outcome.game
        text = msg(
            N_("You are in, {name}! Wait here: your role and your choices come to this chat."),
            name=game.name_of(identity(user.id)),
        )
        self.reply(chat, render(text, game.lang))

    async def join_as(self, update: Update, user: User, game_id: str) -> Outcome:
        """Join under the user's first name, or a longer one if it is taken."""
        base = player_name(user)
        outcome: Outcome | None = None
        for name in (
            base,
            f"{base} {(user.last_name or '')[:1]}".strip(),
            f"{base} {user.id % 1000}",
        ):
            outcome = await self.submit(update, game_id, A.Join(identity(user.id), None, name))
            if outcome.rejected is None or outcome.rejected.code != "name_taken":
                break
        assert outcome is not None
        return outcome

    async def status(self, update: Update, context: Context) -> None:
        """`/status`: the player's current question again, as a fresh prompt in
        their private chat (its earlier copy loses its keyboard), like STATUS
        by SMS: for a lost or scrolled-away prompt, or one a restart lost."""
        found = await self.sender_game(update)
        if found is None:
            return
        chat, game, player = found
        if chat.type != Chat.PRIVATE:  # questions are private: never in a group
            self.reply(chat, render(PRIVATELY, game.lang))
            return
        if game.seat(player) < 0:  # the host: no questions, but the controls
            acts = game.running and bool(offered(game, player))
            self.reply(chat, render(HOST_GM if acts else HOST_CONTROLS, game.lang))
            return
        if not await self.notifier.reprompt(game, player, f"tg:{update.update_id}"):
            self.reply(chat, render(NOTHING_NOW, game.lang))

    async def chat(self, update: Update, context: Context) -> None:
        """Plain text in a private chat: the answer to a question asking for
        words, else talk through the bot (issue #33, service/talk.py): to the
        table, or to the player's team when it may confer, written to the
        outbox with the update's id (a redelivery is relayed once). Where
        talk is no thing now (a live game without `table_talk`), "I didn't
        understand that." and the open question or the commands (help.py)."""
        user, message = update.effective_user, update.effective_message
        if user is None or message is None or not message.text:
            return
        found = await self.whose(user)
        if found is None or found[0].over:
            await self.puzzled(update, True)
            return
        game, player = found
        if await self.words(update, game, player, message.text):
            return
        said = await self.service.talk(game.id, player, message.text, key=f"tg:{update.update_id}")
        if said.status == talk.CLOSED:
            await self.puzzled(update, True)
        elif said.reply is not None:
            self.reply(update.effective_chat, render(said.reply, game.lang))

    async def mute(self, update: Update, context: Context) -> None:
        """`/mute NAME`, `/unmute NAME`: the host stops or restarts the relay
        of a player's talk (service/talk.py)."""
        found = await self.sender_game(update)
        if found is None:
            return
        chat, game, me = found
        message = update.effective_message
        on = not (message is not None and (message.text or "").startswith("/unmute"))
        name = " ".join(context.args or [])
        reply = await talk.hush(self.service.store, game, me, name, on)
        self.reply(chat, render(reply, game.lang))

    def __post_init__(self) -> None:
        # This channel's side of the players' talk (service/talk.py).
        talk.add_talker(self.service.talkers, TelegramTalker(self._wake_delivery))
        add_inviter(self.service.inviters, TelegramInviter(self._wake_delivery))

    def _wake_delivery(self, game_id: str) -> None:
        if self.delivery is not None:
            self.delivery.wake(game_id)

    async def words(self, update: Update, game: Game, player: str, text: str) -> bool:
        """A private message that answers the player's open question in their
        own words (the Traitors plea); False if their question asks for none."""
        from adapters.telegram.choice import build_action

        q = question(game, player)
        spec = next((s for s in q.specs if is_free(s)), None) if q is not None else None
        if spec is None:
            return False
        f = next(f for f in spec.fields if f.free)
        words = " ".join(text.split())
        try:
            action = build_action(game, player, spec, {f.name: words})
        except ValueError:
            return False
        origin = Origin(player, CHANNEL, spec.phase)
        outcome = await self.service.submit(
            game.id, action, key=f"tg:{update.update_id}", origin=origin
        )
        echo = echo_of(origin, outcome.events)
        if outcome.duplicate:
            return True
        refusal = self.refusal(outcome)
        if refusal is not None:
            self.reply(update.effective_chat, refusal)
        elif echo is not None and echo.text is not None:
            self.reply(update.effective_chat, render(echo.text, game.lang))
        else:
            self.reply(update.effective_chat, render(msg(PLEA_SENT, text=words), game.lang))
        return True

    async def away(self, update: Update, context: Context) -> None:
        """`/away DATE`, `/away DAYS`, `/away off`: the player is away (the
        defaults answer for them, no reminders, the host told once; see
        gameflow.core.away). The confirmation is the core's own TELL, sent to
        the player's private chat with the commit; here only refusals."""
        found = await self.sender_game(update)
        if found is None:
            return
        chat, game, me = found
        words = " ".join(context.args or []).strip()
        until: float | str | None = None
        if words.casefold() not in AWAY_OFF:
            try:
                until = parse_until(words, self.service.clock())
            except ValueError:
                self.reply(chat, render(AWAY_USAGE, game.lang))
                return
        outcome = await self.submit(update, game.id, A.Away(me, None, until))
        refusal = self.refusal(outcome)
        if refusal is not None:
            self.reply(chat, refusal)

    async def error(self, update: object, context: Context) -> None:
        """PTB's error handler: remember the update so the webhook can answer 500
        and Telegram delivers it again (its key keeps the retry from doubling)."""
        log.error("update failed", exc_info=context.error)
        if isinstance(update, Update):
            self.failed.add(update.update_id)


def add_handlers(application: Application[Any, Any, Any, Any, Any, Any], tg: Telegram) -> None:
    commands: dict[str, Callable[[Update, Context], Coroutine[Any, Any, None]]] = {
        "start": tg.start,
        "new": tg.new,
        "join": tg.join,
        "startgame": tg.startgame,
        "pause": tg.pause,
        "resume": tg.resume,
        "advance": tg.advance,
        "kick": tg.kick,
        "gone": tg.gone,  # /gone NAME, /back NAME: the host, issue #32
        "back": tg.gone,
        "end": tg.end,
        "set": tg.set,
        "setup": tg.setup,
        "lang": tg.lang,
        "gm": tg.gm,
        "status": tg.status,
        "away": tg.away,
        "move": tg.move,
        "help": tg.help,
        "mute": tg.mute,
        "unmute": tg.mute,
        "again": tg.again,
        "team": partial(talk_team, tg),  # issue #33: adapters/telegram/talk.py
    }
    # Commands and words count only from new messages: an edited /end must not
    # end a game (PTB's handlers take edits too unless told otherwise).
    new = filters.UpdateType.MESSAGE
    for name, callback in commands.items():
        application.add_handler(CommandHandler(name, tg.guarded(callback), filters=new))
    # Any other command: after the known ones, which take theirs first.
    application.add_handler(MessageHandler(filters.COMMAND & new, tg.unknown))
    application.add_handler(CallbackQueryHandler(tg.rejoin_press, pattern=f"^{REMATCH_PRESS}"))
    application.add_handler(CallbackQueryHandler(tg.button))
    private_text = filters.TEXT & ~filters.COMMAND & filters.ChatType.PRIVATE & new
    application.add_handler(MessageHandler(private_text, tg.chat))
    group_text = filters.TEXT & ~filters.COMMAND & filters.ChatType.GROUPS & new
    application.add_handler(MessageHandler(group_text, tg.group_text))
    application.add_error_handler(tg.error)
