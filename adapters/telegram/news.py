"""Public news, merged per chat: what a group (or a player without one) reads.

Telegram lets a bot post about 20 messages a minute to a group. When every
announcement is its own message, a busy moment (ten joins, a vote read out
name by name) queues up and the group runs tens of seconds behind the private
prompts. So announcements are never queued one by one: each chat has at most
one batch of news waiting in the outbound queue, and whatever is announced
before that batch goes out is added to it (GreyWolfDev's Werewolf bot merges
its queued messages per chat the same way). The batch is rendered only when
its turn comes, so a group is never more than one message behind. Consecutive
joins are summarised as one line ("Ana, Bo and Cy joined (5 players).").

In a private chat, a batch takes more news only while it is the last thing
queued for that chat: news never overtakes a prompt or a secret queued after it.
A batch withdrawn (the entries that made it went to another worker) takes no
more news: what is added then goes in a call of its own, so it is not dropped
with the withdrawn one; and a call that carries several entries' news is
withdrawn only when all of them withdraw it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from babel.lists import format_list
from telegram import Bot, Message

from adapters.deadline_text import LOCALES
from adapters.telegram.jobs import Job, Priority
from adapters.telegram.outbound import Outbound
from gameflow.core.text import N_, Msg, msg, nmsg
from gameflow.i18n import render

JOINED = "{name} joined ({n} player)."  # the core's msgid for one join (plural: players)
JOINED_MANY = N_("{names} joined ({count} players).")


def part_of_one(name: str, count: int) -> Msg:
    """One join, as the core says it."""
    return nmsg("{name} joined ({n} player).", "{name} joined ({n} players).", count, name=name)


@dataclass(slots=True)
class Batch:
    """News waiting for one chat: rendered when it is sent."""

    chat: int
    lang: str
    parts: list[Msg | str] = field(default_factory=list)
    added: list[float] = field(default_factory=list)  # when each part was added
    job: Job | None = None
    sent: bool = False


@dataclass(slots=True)
class NewsStats:
    messages: int = 0  # news messages sent
    parts: int = 0  # announcements they carried
    lags: list[float] = field(default_factory=list)  # per announcement: added -> sent
    most_queued: int = 0  # the most news messages ever waiting for one chat at once


def compose(parts: Sequence[Msg | str], lang: str) -> str:
    """One message from a batch: one line per announcement, runs of joins as
    one line naming everyone who joined."""
    lines: list[str] = []
    names: list[str] = []
    count: Any = 0
    for part in (*parts, None):
        join = isinstance(part, Msg) and part.msgid == JOINED
        if join:
            assert isinstance(part, Msg)
            values = dict(part.params)
            names.append(str(values.get("name", "")))
            count = values.get("n", count)
            continue
        if names:
            if len(names) == 1:
                line = render(part_of_one(names[0], count), lang)
            else:
                listed = format_list(names, locale=LOCALES.get(lang, "en_GB"))
                line = render(msg(JOINED_MANY, names=listed, count=count), lang)
            lines.append(line)
            names = []
        if part is not None:
            text = render(part, lang) if isinstance(part, Msg) else part
            if text:
                lines.append(text)
    return "\n".join(lines)


class News:
    """The per-chat news batches of one process's outbound queue."""

    def __init__(self, outbound: Outbound, *, merge: bool = True) -> None:
        self.outbound = outbound
        self.merge = merge
        self.stats = NewsStats()
        self._batches: dict[int, Batch] = {}
        self._queued: dict[int, int] = {}  # chat -> news messages waiting

    def add(
        self,
        chat: int,
        parts: Sequence[Msg | str],
        lang: str,
        *,
        protect: bool = False,
        label: str = "news",
    ) -> Job | None:
        """Queue `parts` for `chat`, into its waiting batch when it has one;
        returns the call that will carry them."""
        if not parts:
            return None
        now = self.outbound.clock()
        batch = self._batches.get(chat)
        if (
            self.merge
            and batch is not None
            and not batch.sent
            and batch.job is not None
            and not batch.job.withdrawn  # its entries went to another worker
            and not batch.job.settled
            and batch.lang == lang
            and (chat < 0 or self.outbound.last(chat) is batch.job)
        ):
            batch.parts.extend(parts)
            batch.added.extend(now for _ in parts)
            batch.job.holders += 1
            return batch.job
        if batch is not None and not batch.sent and batch.job is not None and batch.job.withdrawn:
            self._queued[chat] -= 1  # never sent: it waits no more
        batch = Batch(chat, lang, list(parts), [now] * len(parts))
        self._batches[chat] = batch
        self._queued[chat] = self._queued.get(chat, 0) + 1
        self.stats.most_queued = max(self.stats.most_queued, self._queued[chat])

        async def call(bot: Bot) -> Message | None:
            if not batch.sent:  # a retry (429) sends the same text again
                batch.sent = True
                if self._batches.get(chat) is batch:
                    del self._batches[chat]
                self._queued[chat] -= 1
            text = compose(batch.parts, batch.lang)
            message = await bot.send_message(chat, text, protect_content=protect or None)
            done = self.outbound.clock()
            self.stats.messages += 1
            self.stats.parts += len(batch.parts)
            self.stats.lags.extend(done - at for at in batch.added)
            return message

        batch.job = self.outbound.send(chat, call, priority=Priority.CHATTER, label=label)
        return batch.job
