"""`/console` on Telegram: the game master's console link, in the host's
private chat only (issue #32). Only its hash is kept, so every `/console`
makes a new link (the last few keep working: a phone and a laptop);
`/console new` rotates: every earlier link stops working.

Registered by the composition root (bots/app.py) in a handler group before
the adapter's own, so `/console` is answered here and goes no further; it
needs the console's link maker, which only the composition root has.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from telegram import Chat, Update
from telegram.ext import Application, ApplicationHandlerStop, CommandHandler, ContextTypes, filters

from adapters.console.texts import TEXTS
from adapters.telegram.handlers import Telegram
from adapters.telegram.language import user_lang
from gameflow.core.state import Game
from gameflow.core.text import msg
from gameflow.i18n import render

ConsoleLink = Callable[[Game, bool], Awaitable[str]]
"""A new console link for a game (`True`: rotate, every earlier one dies)."""

GROUP = -1  # before the adapter's handlers (group 0), which would call it unknown


def add_console(
    application: Application[Any, Any, Any, Any, Any, Any], tg: Telegram, link: ConsoleLink
) -> None:
    async def console(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        try:
            await answer(tg, link, update, context.args or [])
        finally:
            raise ApplicationHandlerStop

    new = filters.UpdateType.MESSAGE
    application.add_handler(CommandHandler("console", console, filters=new), group=GROUP)


async def answer(tg: Telegram, link: ConsoleLink, update: Update, args: list[str]) -> None:
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None:
        return
    if chat.type != Chat.PRIVATE:  # never in a group: the link is the host's alone
        tg.reply(chat, render(TEXTS["only_private"], user_lang(user, tg.default_lang)))
        return
    found = await tg.sender_game(update)
    if found is None:
        return
    chat, game, me = found
    if me != game.host:
        tg.reply(chat, render(TEXTS["only_host"], game.lang))
        return
    rotate = bool(args) and args[0].casefold() in ("new", "ny", "novi", "nova")
    url = await link(game, rotate)
    lines = [render(TEXTS["rotated"], game.lang)] if rotate else []
    lines.append(render(msg(TEXTS["link"], link=url), game.lang))
    tg.reply(chat, "\n".join(lines))
