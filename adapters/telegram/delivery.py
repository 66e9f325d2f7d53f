"""Telegram delivery from the durable outbox: any worker sends what any commit
decided (issue #19).

A commit only writes its messages (renderer.py); what needs I/O (the game's
group chat, which prompt is up) is decided here, when the batch goes out, and
an entry is acked only once Telegram accepted it, so no worker's death loses a
message. `TelegramDelivery` says how, and what a kill can duplicate.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from adapters import status_link
from adapters.outbox_loop import OutboxLoop
from adapters.owed import GROUP
from adapters.telegram.hosting import TvLink
from adapters.telegram.jobs import Failed, Job, Priority
from adapters.telegram.news import part_of_one
from adapters.telegram.notifier import TelegramNotifier
from adapters.telegram.renderer import ALWAYS, CHANNEL, IF_GROUP
from gameflow.core.state import Game
from gameflow.core.text import Msg
from gameflow.i18n import render
from service.outbox import OutboxEntry
from service.ports import GameStore

log = logging.getLogger(__name__)


def news_parts(raw: Sequence[Any]) -> list[Msg | str]:
    """A news entry's parts back as the news queue takes them."""
    out: list[Msg | str] = []
    for part in raw:
        if isinstance(part, list) and len(part) == 3 and part[0] == "join":
            out.append(part_of_one(str(part[1]), int(part[2])))
        elif isinstance(part, str):
            out.append(part)
    return out


def result_of(value: Any) -> dict[str, Any]:
    """What an entry is acked with: the message id Telegram gave, or why not."""
    if isinstance(value, Failed):
        return {"failed": value.error}
    mid = getattr(value, "message_id", None)
    return {"message_id": mid} if isinstance(mid, int) else {}


def where(payload: dict[str, Any], group: int | None) -> tuple[int | None, bool]:
    """A `news` or `link` entry's chat (the game's group, resolved now, or a
    chat id) and whether it is due there (`when`: always, only with a group,
    only without one)."""
    to, when = payload.get("to"), payload.get("when", ALWAYS)
    target = group if to == GROUP else int(to) if isinstance(to, int) else None
    return target, when == ALWAYS or (when == IF_GROUP) == (group is not None)


class TelegramDelivery(OutboxLoop):
    """The Telegram side of the outbox loop (adapters/outbox_loop.py).

    The messages of a commit are written with it (renderer.py); this loop, in every
    worker (adapters/outbox_loop.py), takes a game's next batch and puts each entry
    on the outbound queue (outbound.py: the bot's, chat's and group's limits, shared
    by all workers through the limiter; 429s waited out, never dropped; prompts
    before news). An entry is acked once Telegram accepted what it carries, with
    its message id; one Telegram refuses for good (a player who blocked the bot) is
    acked as failed. So no worker's death loses a message: a batch held unacked
    for `min_idle` seconds is handed to the next worker that asks.

    What needs I/O is decided here, not in the commit:

    - the game's group chat (the store's group record): news "for the group" is
      skipped without one, and news "unless there is a group" then goes to every
      player and the host;
    - the questions: the batch's `sync` entries are served by one `sync` of the
      state loaded after the batch was taken, which holds every commit the batch
      came from. The open-prompt record (record.py) says which prompt is up: a
      question already up is not sent again, a changed one replaces it. A batch
      handed out again (`attempts` > 1) also re-sends a prompt recorded but never
      delivered by its dead worker.

    Per recipient the queue keeps the batch's order: a role card comes before the
    first question; the questions go last, so a question is at the bottom of its
    chat. What a kill can duplicate: a message Telegram accepted whose entry was
    not acked yet (at most the messages in flight of the games being delivered),
    and a prompt whose message id was not recorded yet. Nothing else."""

    channel = CHANNEL

    def __init__(
        self,
        store: GameStore,
        notifier: TelegramNotifier,
        *,
        tv_link: TvLink | None = None,
        **options: Any,
    ) -> None:
        super().__init__(store, **options)
        self.notifier = notifier
        self.tv_link = tv_link
        self.delivered = 0  # entries acked here
        self.skipped = 0  # entries with nothing to send (no group, superseded)

    async def deliver(self, game_id: str, batch: list[OutboxEntry]) -> None:
        game = await self.store.load(game_id)
        if game is None:  # gone (expired): nothing left to say
            for e in batch:
                await self._ack(e, {"skipped": True})
            return
        group = await self.notifier.group_of(game_id)
        waits: list[tuple[OutboxEntry, list[Job]]] = []
        syncs: list[OutboxEntry] = []
        link: str | None = None
        for e in batch:
            kind = e.payload.get("kind")
            if kind == "sync":
                syncs.append(e)
                continue
            if kind == "link":
                if link is None and self.tv_link is not None:
                    link = await self.tv_link(game) or ""  # one fresh link a batch
                waits.append((e, self._link(game, group, e, link or "")))
                continue
            waits.append((e, self._queue(game, group, e)))
        if syncs:
            jobs = await self._sync(game, syncs)
            waits.extend((e, jobs.get(str(e.payload.get("player")), [])) for e in syncs)
        # Each entry is acked as soon as its own calls are done (a slow group
        # never holds up the acks of the private messages beside it).
        self.handed(game_id)
        try:
            await asyncio.gather(*(self._settle(e, jobs) for e, jobs in waits))
        except asyncio.CancelledError:
            # Stopped (a lost hold, or the worker stopping): what has not gone
            # yet is left to whoever delivers the batch next.
            for _, calls in waits:
                for call in calls:
                    self.notifier.outbound.withdraw(call)
            raise

    async def _settle(self, e: OutboxEntry, jobs: list[Job]) -> None:
        if not jobs:
            self.skipped += 1
            await self._ack(e, {"skipped": True})
            return
        results = [result_of(await job.wait()) for job in jobs]
        await self._ack(e, next((r for r in results if r), {}))

    async def _ack(self, e: OutboxEntry, result: dict[str, Any]) -> None:
        if await self.store.ack(CHANNEL, e.game_id, e.key, result):
            self.delivered += 1

    def _queue(self, game: Game, group: int | None, e: OutboxEntry) -> list[Job]:
        """Queue what one (non-question) entry says; its calls."""
        p, n = e.payload, self.notifier
        kind = p.get("kind")
        jobs: list[Job | None] = []
        if kind == "say":
            priority = Priority(int(p.get("priority", Priority.NORMAL)))
            label = str(p.get("label", "tell"))
            chat, text, protect = int(p["chat"]), str(p.get("text", "")), bool(p.get("protect"))
            button = p.get("button")  # [label, callback data]: a rematch's invitation
            markup = None
            if button:
                key = InlineKeyboardButton(str(button[0]), callback_data=str(button[1]))
                markup = InlineKeyboardMarkup([[key]])
            jobs.append(
                n.say(chat, text, protect=protect, priority=priority, label=label, markup=markup)
            )
        elif kind == "news":
            parts = news_parts(p.get("parts", ()))
            extra = news_parts(p.get("extra", ()))
            target, due = where(p, group)
            label = str(p.get("label", "news"))
            if target is not None and due:
                jobs.append(n.news.add(target, [*parts, *extra], game.lang, label=label))
            elif target is not None and extra:  # a confirmation whose news went elsewhere
                jobs.append(n.news.add(target, extra, game.lang, label="confirm"))
        elif kind == "reveal":  # the end's reveal: one message where it is due
            target, due = where(p, group)
            if target is not None and due:
                jobs.append(n.say(target, str(p.get("text", "")), label="reveal"))
        elif kind == "remind":
            jobs.append(n.remind_one(game, str(p.get("player")), int(p.get("seq", -1))))
        else:
            log.warning("%s: unknown telegram outbox entry %r", e.game_id, kind)
        return [j for j in jobs if j is not None]

    def _link(self, game: Game, group: int | None, e: OutboxEntry, link: str) -> list[Job]:
        """The status page's link (a `link` entry), where it is due."""
        target, due = where(e.payload, group)
        if not link or target is None or not due:
            return []
        text = render(status_link.line(link), game.lang)
        jobs = [self.notifier.say(target, text, label="link")]
        if status_link.at_home(game):  # a message of its own: the link's stays as it is
            cal = render(status_link.calendar_line(link), game.lang)
            jobs.append(self.notifier.say(target, cal, label="link"))
        return jobs

    async def _sync(self, game: Game, syncs: list[OutboxEntry]) -> dict[str, list[Job]]:
        """One `sync` for the batch's questions (see the module doc)."""
        players = [str(e.payload.get("player")) for e in syncs]
        force = {str(e.payload.get("player")) for e in syncs if e.payload.get("force")}
        keep: dict[str, tuple[int, int]] = {}
        for e in syncs:
            k = e.payload.get("keep")
            if isinstance(k, list) and len(k) == 2:
                keep[str(e.payload.get("player"))] = (int(k[0]), int(k[1]))
        lost = any(e.attempts > 1 for e in syncs)
        return await self.notifier.sync(game, players, force=force, keep=keep, lost=lost)

    async def settled(self, timeout: float = 60.0) -> None:
        """Everything ready delivered and the outbound queue empty (tests),
        but for what waits out a game's quiet hours."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            await self.drain(max(0.1, end - loop.time()))
            await self.notifier.outbound.join()
            if await self.only_held() or loop.time() > end:
                return
