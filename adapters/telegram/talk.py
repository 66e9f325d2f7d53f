"""Players' talk on Telegram (issue #33; the relay itself is service/talk.py).

The service decides who hears a line and writes it to the outbox; this
renders it for the Telegram recipients: each player's private chat (a
team's line with `protect_content`, like every secret), and the game's
group for the table's talk (resolved at delivery: skipped without one).
`/team words` says a line to the player's team alone (`team`), as SMS `TEAM`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from telegram import Chat, Update

from adapters.telegram.acting import chat_of
from adapters.telegram.jobs import Priority
from adapters.telegram.renderer import CHANNEL, GROUP, IF_GROUP
from gameflow.core.state import Game
from gameflow.core.text import N_, msg
from gameflow.i18n import render
from service import talk
from service.outbox import OutboxMessage

TEAM_PRIVATELY = N_("Talk to your team in your private chat with me: /team and your words.")


@dataclass
class TelegramTalker(talk.Talker):
    """service/talk.py's `Talker` for Telegram; `wake_up` wakes the delivery."""

    wake_up: Callable[[str], None] | None = None
    channel: str = CHANNEL

    def to(
        self, game: Game, player: str, text: str, key: str, private: bool
    ) -> list[OutboxMessage]:
        chat = chat_of(player)
        if chat is None:
            return []
        payload = {
            "kind": "say",
            "chat": chat,
            "text": text,
            "protect": private,
            "priority": int(Priority.CHATTER),
            "label": "talk",
        }
        return [OutboxMessage(CHANNEL, key, payload)]

    def group(self, game: Game, text: str, key: str) -> list[OutboxMessage]:
        news = {"kind": "news", "to": GROUP, "when": IF_GROUP, "parts": [text], "label": "talk"}
        return [OutboxMessage(CHANNEL, key, news)]


async def team(tg: Any, update: Update, context: Any) -> None:
    """`/team words` (adapters/telegram/handlers.py `Telegram`): the line to
    the sender's team alone (service/talk.py `to_team`), keyed by the update.
    Said in a group, nothing is relayed and the sender is told privately."""
    user, message = update.effective_user, update.effective_message
    found = await tg.sender_game(update)
    if found is None or user is None or message is None:
        return
    chat, game, player = found
    if chat.type != Chat.PRIVATE:
        tg.notifier.say(user.id, render(msg(TEAM_PRIVATELY), game.lang), label="reply")
        return
    words = (message.text or "").split(maxsplit=1)[1:]
    said = await talk.to_team(
        tg.service, game.id, player, words[0] if words else "", key=f"tg:{update.update_id}"
    )
    if said.reply is not None:
        tg.reply(chat, render(said.reply, game.lang))
