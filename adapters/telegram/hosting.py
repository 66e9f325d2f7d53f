"""The host's commands: a new game, its settings and the clock, and the game
master's keyboard (a mixin of `handlers.Telegram`: its fields are there).

A game made in a group says, in the group, how its host gets the TV link and
the host commands: a deep link (`t.me/<bot>?start=host-<code>`) that opens the
private chat, since a bot may not write first to someone who never started it
(the private message the host is also sent then fails with 403). The host's
clock commands are confirmed in one short message to the host, merged with the
news of that moment when the host follows the game in a private chat; a burst
of /set lines in one message is answered once. `/set` alone lists the game's
settings with their values and a line of help each, `/set NAME` explains one,
and `/setup` gives the whole setup in one message with the balance table's
warning (adapters/setup_view.py, issue #32).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from telegram import Chat, Update
from telegram.ext import ContextTypes

from adapters import setup_view
from adapters.telegram.jobs import Priority
from adapters.telegram.keyboards import offered, prompt_keyboard, prompt_text
from adapters.telegram.labels import kind_label
from adapters.telegram.language import user_lang
from adapters.telegram.notifier import chat_of, identity
from adapters.telegram.presses import Presses
from adapters.telegram.rematch import HOST_PRESS, PRESS
from adapters.telegram.renderer import CHANNEL, confirmed
from gameflow.core import actions as A
from gameflow.core import registry
from gameflow.core.engine import legal
from gameflow.core.legal import ActionSpec, find
from gameflow.core.options import fits, limit_of
from gameflow.core.rules import known_games
from gameflow.core.state import Game
from gameflow.core.text import N_, Msg, msg
from gameflow.i18n import render
from service import rematch, talk
from service.compose import Origin
from service.games import GameNotFound, Outcome
from service.outbox import OutboxMessage

Context = ContextTypes.DEFAULT_TYPE
TvLink = Callable[[Game], Awaitable[str | None]]

ALREADY_RUNNING = N_("That game has already begun. Send /status to me for your question.")
ALREADY_OVER = N_("That game has ended. Start a new one with /new {games}.")
NEW_ANSWERED = "tg:new-answered"  # the store attribute: the /new this game answered
HOST_PAYLOAD = "host-"  # /start host-<code>: the host's controls, privately
HOST_LINK = N_("Host: tap {link} to get the TV link and your controls in a private chat.")
HOST_HELP = N_(
    "Host: /set lists the settings, /set NAME VALUE changes one, /setup shows the whole "
    "setup; /startgame when everyone is in; /lang nb|sr|en, /kick NAME."
)
CONFIRM: dict[type[A.Action], str] = {
    A.Start: N_("Started: the roles are dealt."),
    A.Pause: N_("Paused: the clock has stopped."),
    A.Resume: N_("Resumed: the clock runs again."),
    A.Advance: N_("Moved on to the next phase."),
    A.End: N_("You ended the game."),
    A.MoveWindow: N_("Moved: the window has its new time."),
}
MOVE_USAGE = N_("Use /move WINDOW HH:MM, e.g. /move {window} 21:30. Windows: {windows}.")
MAX_TEXT = 4000  # a Telegram message holds 4096 characters
SET_DONE = N_("Done: {settings}.")
GM_HEAD = N_("The game master's actions now:")
AGAIN_USAGE = N_("Use /again CODE with the code of the game that ended: the same game again.")
AGAIN_DONE = N_(
    "Run it back: a new game of {game}, code {code}. Every player is invited to join "
    "with one tap; /startgame when everyone is in."
)
AGAIN_OFFER = N_("Run it back? The same game with the same players and a new deal: /again {code}")
AGAIN_BUTTON = N_("Run it back")
JOINED_AGAIN = N_("You are in, {name}! Wait here: your role and your choices come to this chat.")


def gm_lines(game: Game, specs: Sequence[ActionSpec]) -> list[str]:
    """/gm's text: each of the game master's actions by its button's name,
    with the game's one line saying what it does (`Words.action_help`)."""
    words = registry.get(game.kind).words
    lines = [render(GM_HEAD, game.lang)]
    for spec in specs:
        label = kind_label(spec.kind, game.lang, game)
        help_text = words.action_help.get(spec.kind)
        lines.append(f"{label}: {render(help_text, game.lang)}" if help_text else label)
    return lines


class Hosting(Presses):
    """On top of the presses (their `submit`, `refusal` and `notice`)."""

    tv_link: TvLink | None
    seed_for: Callable[[Update], str | None] | None
    setup_for: Callable[[Update], Mapping[str, Any] | None] | None

    if TYPE_CHECKING:  # provided by handlers.Telegram

        def reply(self, chat: Chat | None, text: str, priority: Priority = ...) -> None: ...
        async def sender_game(self, update: Update) -> tuple[Chat, Game, str] | None: ...
        def _wake_delivery(self, game_id: str) -> None: ...

    async def new(self, update: Update, context: Context) -> None:
        user, chat = update.effective_user, update.effective_chat
        if user is None or chat is None:
            return
        lang = user_lang(user, self.default_lang)
        kind = (context.args or [registry.all_games()[0].kind])[0].lower()  # the first game
        if kind not in known_games():
            games = " | ".join(known_games())
            self.reply(chat, render(msg(N_("Which game? /new {games}"), games=games), lang))
            return
        seed = self.seed_for(update) if self.seed_for is not None else None
        setup = self.setup_for(update) if self.setup_for is not None else None
        created = await self.service.create_game(
            kind,
            identity(user.id),
            lang=lang,
            seed=seed,
            setup=setup,
            key=f"tg:new:{update.update_id}",
        )
        game = created.game
        # Telegram may deliver this /new again (after a restart): answered once.
        if created.duplicate and await self.service.store.get_attr(game.id, NEW_ANSWERED):
            return
        if game.phase.name != "lobby" or created.code is None:
            over = msg(ALREADY_OVER, games=registry.one_of(registry.kinds()))
            self.reply(chat, render(over if game.over else msg(ALREADY_RUNNING), lang))
            return
        if chat.type != Chat.PRIVATE:
            await self.notifier.set_group(game.id, chat.id)
        await self.service.store.set_attr(game.id, NEW_ANSWERED, str(update.update_id))
        code = created.code
        bot = context.bot.username
        lines = [
            render(msg(N_("New game: {game}. Join with one tap:"), game=kind), lang),
            f"https://t.me/{bot}?start={code}",
            render(msg(N_("or send /join {code} to me."), code=code), lang),
        ]
        # The TV link and the host's commands go to the host alone (privately,
        # when the game was made in a group): only the host sets up the screen.
        mine = await self.host_lines(game, lang)
        if chat.type == Chat.PRIVATE:
            self.reply(chat, "\n".join(lines + mine))
            return
        link = f"https://t.me/{bot}?start={HOST_PAYLOAD}{code}"
        lines.append(render(msg(HOST_LINK, link=link), lang))
        self.reply(chat, "\n".join(lines))
        self.notifier.say(user.id, "\n".join(mine), label="host")

    async def host_lines(self, game: Game, lang: str) -> list[str]:
        """The TV link (a fresh one) and the host's commands."""
        return [*await self.tv_lines(game, lang), render(HOST_HELP, lang)]

    async def tv_lines(self, game: Game, lang: str) -> list[str]:
        """The TV link, a fresh one (none without a TV page)."""
        if self.tv_link is not None:
            tv = await self.tv_link(game)
            if tv:
                return [render(msg(N_("Main screen (TV): {link}"), link=tv), lang)]
        return []

    async def host_start(self, update: Update, code: str) -> None:
        """`/start host-<code>` (the group's host link): the TV link and the
        host's commands, in the private chat it opened, to the host only."""
        user, chat = update.effective_user, update.effective_chat
        if user is None or chat is None:
            return
        lang = user_lang(user, self.default_lang)
        game_id = await self.service.store.game_for_code(code.upper())
        try:
            game = await self.service.load(game_id) if game_id else None
        except GameNotFound:
            game = None
        if game is None:
            self.reply(
                chat, render(msg(N_("There is no game with the code {code}."), code=code), lang)
            )
            return
        if game.host != identity(user.id):
            self.reply(chat, render(N_("Only the host can do that."), game.lang))
            return
        self.reply(chat, "\n".join(await self.host_lines(game, game.lang)))

    async def host(
        self, update: Update, context: Context, make: Callable[[str, Game], A.Action | Msg]
    ) -> Outcome | None:
        """A host command: the game the user hosts, one action, its refusal or
        a short confirmation; the outcome, when it was submitted."""
        found = await self.sender_game(update)
        if found is None:
            return None
        chat, game, me = found
        action = make(me, game)
        if isinstance(action, Msg):
            self.reply(chat, render(action, game.lang))
            return None
        origin = None
        if type(action) in CONFIRM and chat_of(me) is not None:
            text = render(CONFIRM[type(action)], game.lang)
            origin = Origin(me, CHANNEL, confirm=text)
        outcome = await self.submit(update, game.id, action, origin)
        refusal = self.refusal(outcome)
        if refusal is not None:
            self.reply(chat, refusal)
        elif outcome.duplicate:
            pass
        elif isinstance(action, A.SetLanguage | A.Kick | A.Gone | A.NotGone):
            self.reply(chat, render(N_("Done."), outcome.game.lang))
        elif origin is not None and confirmed(outcome.messages):
            pass  # it went out with the commit's news, in one message
        elif type(action) in CONFIRM:
            self.confirm(outcome.game, me, render(CONFIRM[type(action)], outcome.game.lang))
        return outcome

    def confirm(self, game: Game, host: str, text: str) -> None:
        """One short message to the host, merged with the news of this moment
        when those go to the host's chat (a game without a group)."""
        chat = chat_of(host)
        if chat is not None:
            self.notifier.news.add(chat, [text], game.lang, label="confirm")

    async def startgame(self, update: Update, context: Context) -> None:
        await self.host(update, context, lambda me, g: A.Start(me))

    async def pause(self, update: Update, context: Context) -> None:
        await self.host(update, context, lambda me, g: A.Pause(me))

    async def resume(self, update: Update, context: Context) -> None:
        await self.host(update, context, lambda me, g: A.Resume(me))

    async def advance(self, update: Update, context: Context) -> None:
        await self.host(update, context, lambda me, g: A.Advance(me, g.phase.seq))

    async def end(self, update: Update, context: Context) -> None:
        """`/end`; once the host has ended the game, its news is followed by
        the offer to run it back (one button: `again:host:<code>`)."""
        user = update.effective_user
        code = None
        where = await self.service.store.whereis(identity(user.id)) if user else None
        if where is not None:
            code = await self.service.store.code_for(where[0])
        outcome = await self.host(update, context, lambda me, g: A.End(me))
        if outcome is None or not outcome.accepted or code is None:
            return
        game = outcome.game
        chat = chat_of(game.host)
        if game.over and chat is not None:
            offer = {
                "kind": "say",
                "chat": chat,
                "text": render(msg(AGAIN_OFFER, code=code), game.lang),
                "button": [render(AGAIN_BUTTON, game.lang), f"{HOST_PRESS}{code}"],
            }
            await self.service.store.append_outbox(
                game.id, [OutboxMessage(CHANNEL, "again:offer", offer)]
            )
            self._wake_delivery(game.id)

    async def move(self, update: Update, context: Context) -> None:
        """`/move WINDOW HH:MM`: the host moves a campaign window (the core's
        MoveWindow, offered by `legal()` while a campaign runs; see
        docs/rules/campaign.md). A window may be named by the start of its
        name; a game with no windows to move gets the core's reason."""
        args = [a.casefold() for a in context.args or []]

        def make(me: str, game: Game) -> A.Action | Msg:
            spec = find(legal(game, me), A.MoveWindow.kind)
            names = [str(n) for n in spec.options("window")] if spec is not None else []
            if spec is None:  # not the host, or no campaign: the core says which
                return A.MoveWindow(me, None, args[0] if args else "", "")
            hits = [n for n in names if args and n.startswith(args[0])]
            window = args[0] if args and args[0] in names else (hits[0] if len(hits) == 1 else "")
            if len(args) != 2 or not window:
                return msg(MOVE_USAGE, window=names[0], windows=", ".join(names))
            return A.MoveWindow(me, None, window, args[1])

        await self.host(update, context, make)

    async def kick(self, update: Update, context: Context) -> None:
        await self.on_player(update, context, A.Kick)

    async def gone(self, update: Update, context: Context) -> None:
        """`/gone NAME`, `/back NAME`: the host marks a player who left for
        good as gone (the game answers for them), or back (gameflow.core.away)."""
        text = update.effective_message.text or "" if update.effective_message else ""
        back = text.casefold().startswith("/back")
        await self.on_player(update, context, A.NotGone if back else A.Gone)

    async def on_player(
        self, update: Update, context: Context, cls: type[A.Kick | A.Gone | A.NotGone]
    ) -> None:
        wanted = " ".join(context.args or []).casefold()

        def make(me: str, game: Game) -> A.Action | Msg:
            player = talk.player_named(game, wanted)
            if player is not None:
                return cls(me, None, player)
            return msg(N_("Nobody called {name} is in the game."), name=wanted or "?")

        await self.host(update, context, make)

    async def set(self, update: Update, context: Context) -> None:
        """`/set NAME VALUE`, one or several lines of them in one message:
        each line is applied on its own, and the message gets one reply
        (with the balance warning when the setup is now lopsided). `/set`
        alone lists the settings; `/set NAME` explains one."""
        found = await self.sender_game(update)
        message = update.effective_message
        if found is None or message is None:
            return
        chat, game, me = found
        text = message.text or ""
        lines = [line.split(maxsplit=2) for line in text.splitlines()]
        lines = [parts for parts in lines if parts and parts[0].startswith("/set")]
        if len(lines) == 1 and len(lines[0]) < 3:
            if me != game.host:  # the settings are the host's business, as by SMS
                self.reply(chat, render(N_("Only the host can do that."), game.lang))
            else:
                self.explain(chat, game, lines[0][1] if len(lines[0]) == 2 else "")
            return
        done: list[str] = []
        answers: list[str] = []
        for i, parts in enumerate(lines):
            if len(parts) != 3:
                answers.append(render(setup_view.usage(game), game.lang))
                continue
            action = A.SetOption(me, None, parts[1], setup_view.read(parts[2]))
            key = f"tg:{update.update_id}" if i == 0 else f"tg:{update.update_id}:{i}"
            outcome = await self.submit(update, game.id, action, key=key)
            refusal = self.refusal(outcome)
            if refusal is not None:
                answers.append(refusal)
            elif not outcome.duplicate:
                done.append(f"{parts[1]} = {parts[2]}")
                game = outcome.game
        if done:
            answers.insert(0, render(msg(SET_DONE, settings=", ".join(done)), game.lang))
            warning = setup_view.warning(game)
            if warning is not None:
                answers.append(render(warning, game.lang))
        if answers:
            self.reply(chat, "\n".join(answers))

    def explain(self, chat: Chat, game: Game, name: str) -> None:
        """`/set` alone: every setting, its value and what it does (in as few
        messages as Telegram's length allows); `/set NAME`: that one, and
        what it takes."""
        if not name:
            self.long_reply(chat, [render(m, game.lang) for m in setup_view.listing(game)])
            return
        info = setup_view.find(game, name)
        if info is None:
            problem = msg(N_("There is no setting called {name}."), name=name)
            self.reply(
                chat, "\n".join(render(m, game.lang) for m in (problem, setup_view.usage(game)))
            )
            return
        rules = registry.get(game.kind).rules
        lines = [
            setup_view.line(game, info),
            fits(info.name, info.default, limit_of(rules, info.name)),
        ]
        self.reply(chat, "\n".join(render(m, game.lang) for m in lines))

    async def hosted_game(self, update: Update) -> tuple[Chat, Game, str] | None:
        """The sender's game when they host it; None (and, to a player, the
        refusal) otherwise."""
        found = await self.sender_game(update)
        if found is None:
            return None
        chat, game, me = found
        if me != game.host:
            self.reply(chat, render(N_("Only the host can do that."), game.lang))
            return None
        return found

    async def setup(self, update: Update, context: Context) -> None:
        """`/setup`: the whole setup in one message, with the balance table's
        warning where a side wins more than 65 % (the host's review before
        /startgame)."""
        found = await self.hosted_game(update)
        if found is None:
            return
        chat, game, _ = found
        self.long_reply(chat, [render(m, game.lang) for m in setup_view.setup(game)])

    def long_reply(self, chat: Chat, lines: list[str]) -> None:
        """`lines` in one message, or in several where one would be too long."""
        chunk: list[str] = []
        for text in lines:
            if chunk and len("\n".join([*chunk, text])) > MAX_TEXT:
                self.reply(chat, "\n".join(chunk))
                chunk = []
            chunk.append(text)
        if chunk:
            self.reply(chat, "\n".join(chunk))

    async def lang(self, update: Update, context: Context) -> None:
        code = (context.args or [""])[0].lower()
        await self.host(update, context, lambda me, g: A.SetLanguage(me, None, code))

    async def gm(self, update: Update, context: Context) -> None:
        """The game master's own actions now (Traitors' scoring, recruiting...),
        as a keyboard drawn from the host's legal actions."""
        found = await self.hosted_game(update)
        if found is None:
            return
        chat, game, me = found
        specs = offered(game, me)
        if not specs:
            self.reply(chat, render(N_("Nothing to do for the game master right now."), game.lang))
            return
        text = prompt_text(game, specs, game.lang, gm_lines(game, specs))
        markup = prompt_keyboard(game, -1, specs, game.lang)
        self.notifier.private(me, text, protect=True, priority=Priority.PROMPT, markup=markup)

    async def again(self, update: Update, context: Context) -> None:
        """`/again CODE`: the host runs the ended game CODE back (service/rematch.py):
        the same game, options and players, a new deal; every player is invited
        on their own channel. Asked twice, it makes one game."""
        user, chat = update.effective_user, update.effective_chat
        if user is None or chat is None:
            return
        lang = user_lang(user, self.default_lang)
        code = "".join(context.args or []).strip().upper()
        old_id = await self.service.store.game_last_with_code(code) if code else None
        if old_id is None:
            found = await self.service.store.whereis(identity(user.id))
            if not code and found is not None:  # still in a game: its host is told it runs
                old_id = found[0]
            else:
                text = msg(N_("There is no game with the code {code}."), code=code)
                self.reply(chat, render(text if code else msg(AGAIN_USAGE), lang))
                return
        refused = await self.run_back(user.id, old_id, lang)
        if refused is not None:
            self.reply(chat, refused)

    async def run_back(self, user_id: int, old_id: str, lang: str) -> str | None:
        """Run the game `old_id` back for the Telegram user `user_id`: the new
        game's code, TV link and commands to them; the refusal, if refused."""
        try:
            done = await rematch.run_back(self.service, old_id, identity(user_id))
        except GameNotFound:
            return render(AGAIN_USAGE, lang)
        if done.refused is not None or done.game is None:
            return render(done.refused or msg(AGAIN_USAGE), lang)
        game = done.game
        done_text = render(msg(AGAIN_DONE, game=game.kind, code=done.code or "?"), game.lang)
        lines = [done_text, *await self.host_lines(game, game.lang)]
        self.notifier.say(user_id, "\n".join(lines))
        return None

    async def rejoin_press(self, update: Update, context: Context) -> None:
        """The invitation's button (`again:<code>`): the player joins the
        rematch under the name they had, with one tap."""
        query = update.callback_query
        if query is None or not query.data or not query.data.startswith(PRESS):
            return
        user = query.from_user
        lang = user_lang(user, self.default_lang)
        me = identity(user.id)
        if query.data.startswith(HOST_PRESS):  # the host's offer after /end
            old_id = await self.service.store.game_last_with_code(query.data[len(HOST_PRESS) :])
            text = await self.run_back(user.id, old_id, lang) if old_id else None
            await self.notice(query, text, lang, translated=True)
            return
        code = query.data[len(PRESS) :]
        outcome, why = await rematch.rejoin(self.service, code, me, key=f"tg:{update.update_id}")
        if outcome is None:
            await self.notice(query, render(why or msg(AGAIN_USAGE), lang), lang, translated=True)
            return
        refusal = self.refusal(outcome)
        await self.notice(query, refusal, lang, translated=True)
        if refusal is None and not outcome.duplicate:
            name = outcome.game.name_of(me)
            text = render(msg(JOINED_AGAIN, name=name), outcome.game.lang)
            self.notifier.say(user.id, text)
