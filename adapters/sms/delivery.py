"""SMS delivery from the durable outbox: any worker texts what any commit decided.

A text is acked with Twilio's SID once Twilio took it, one by one and in
order, so a worker's death loses none. Nor does it double the text in
flight: its outbox key and time are recorded before Twilio gets it, and the
worker that takes the batch over looks that text up at Twilio (issue #33:
Twilio's API has no idempotency key) and acks it instead of sending it again. What needs I/O is read here, not in the commit: the number and STOP
(a number changed or a STOP texted meanwhile is honoured), and the status
page's link. The record of the menu last texted is written just before the
text that carries it, so an answer never meets an older record. A campaign's
texts held over its quiet hours are merged per player, and its talk lines
into digests (adapters/sms/digest.py).
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Callable, Iterable
from typing import Any

from adapters import status_link
from adapters.outbox_loop import OutboxLoop
from adapters.sms.digest import Digests
from adapters.sms.directory import Directory
from adapters.sms.outbound import OutMessage, TwilioSender
from adapters.sms.renderer import CHANNEL, SmsRenderer, fit, split
from adapters.sms.segments import prepare
from adapters.sms.sent_sheets import ATTR as SHEETS
from adapters.sms.sent_sheets import SentSheets, Swap, record_of
from adapters.status_link import TvLink
from gameflow.core.events import Event, Kind
from gameflow.core.state import Game
from gameflow.i18n import render
from service.outbox import OutboxEntry
from service.ports import GameStore

log = logging.getLogger(__name__)

# An entry's ack not made yet: (its key, the result to keep), or None.
Unacked = tuple[str, dict[str, Any]] | None
ATTEMPT = "sms_attempt"  # the game's text in flight: [outbox key, time begun], JSON
FRESH = 0.25  # seconds a batch's read of numbers and STOPs holds for its next text


class Numbers:
    """The numbers of one batch's players, without those who opted out: read
    in one round trip for all of them, and read again for one player when
    the read is older than `FRESH` seconds (a wait for the sender's pace, a
    slow Twilio) when a text to them is next."""

    def __init__(self, directory: Directory, clock: Callable[[], float]) -> None:
        self.directory = directory
        self.clock = clock
        self._phones: dict[str, str] = {}
        self._read: set[str] = set()
        self._at = 0.0

    async def read(self, players: Iterable[str]) -> None:
        wanted = list(dict.fromkeys(players))
        if wanted:
            self._phones = await self.directory.reachable(wanted)
            self._read, self._at = set(wanted), self.clock()

    async def phone(self, player: str) -> str | None:
        if player not in self._read or self.clock() - self._at > FRESH:
            return (await self.directory.reachable([player])).get(player)
        return self._phones.get(player)


class Delivery(OutboxLoop):
    """The SMS side of the outbox loop (adapters/outbox_loop.py: finding ready
    games, taking, renewing and reclaiming batches): a batch is sent text by
    text, in order."""

    channel = CHANNEL

    def __init__(
        self,
        store: GameStore,
        directory: Directory,
        sender: TwilioSender,
        sheets: SentSheets,
        *,
        composer: SmsRenderer | None = None,
        tv_link: TvLink | None = None,
        **options: Any,
    ) -> None:
        super().__init__(store, **options)
        self.tv_link = tv_link
        self.directory = directory
        self.sender = sender
        self.sheets = sheets
        self.composer = composer
        self.delivered = 0  # texts Twilio accepted (this process)
        sr_latin = composer is not None and composer.settings.transliterate
        self.digests = Digests(store, sr_latin=sr_latin, clock=self.wall, wake=self.wake)
        self.skipped = 0  # texts to nobody reachable (STOP, no number)

    def start(self) -> None:
        super().start()
        self.digests.start()

    async def stop(self, grace: float = 5.0) -> None:
        await self.digests.stop()
        await super().stop(grace)

    # -- the Notifier port: a commit of this worker wakes the loop at once ---------

    async def notify(self, game: Game, events: tuple[Event, ...]) -> None:
        """After a commit: wake up (its texts are in the outbox already). The
        scheduler's reminders come this way too, with no commit: they are
        composed and appended to the game's outbox here."""
        reminders = tuple(e for e in events if e.kind is Kind.REMINDER)
        if reminders and self.composer is not None:
            tag = f"{game.version}:{game.phase.seq}:{secrets.token_hex(3)}"
            messages = self.composer.remind(game, reminders, tag)
            if messages:
                await self.store.append_outbox(game.id, messages)
        self.wake(game.id)

    async def drain(self, timeout: float = 60.0) -> None:
        """Deliver until nothing is ready (tests, and a graceful stop), also what
        another consumer holds (waited for); then wait for the in-memory queue
        of texts that belong to no game."""
        await super().drain(timeout)
        await self.sender.drain()

    # -- one game ------------------------------------------------------------------

    async def deliver(self, game_id: str, batch: list[OutboxEntry]) -> None:
        released = game_id in self.released
        self.released.discard(game_id)
        batch = await self.digests.sift(game_id, batch)  # a campaign's talk: digests
        if released:  # the quiet hours' texts: merged per player
            await self._merged(game_id, batch)
            return
        link: str | None = None
        numbers = await self._numbers(batch)
        unacked: Unacked = None
        for e in batch:
            if _linked(e) and link is None:
                link = await self._link(game_id)  # one fresh status link a batch
            unacked = await self._one(e, numbers, link, unacked)
        await self._settle(game_id, unacked)

    async def _merged(self, game_id: str, batch: list[OutboxEntry]) -> None:
        """What a campaign's quiet hours held, sent as few texts as it fits in:
        each player's texts joined in their order and cut again at line ends
        (`split`, as the composer does), instead of one text per commit; the
        records written as each entry says, so the last one (the question now
        open) is the one on the phone. Each entry is acked with the SID of the
        text that carried its end."""
        mine: dict[str, list[OutboxEntry]] = {}
        numbers = await self._numbers(batch)
        for e in batch:
            if _linked(e):
                await self._settle(game_id, await self._one(e, numbers, await self._link(game_id)))
                continue
            mine.setdefault(str(e.payload.get("player")), []).append(e)
        for player, entries in mine.items():
            for e in entries:
                sheet, closed = record_of(e.payload)
                if sheet is not None or closed is not None:
                    await self.sheets.record(game_id, player, sheet, closed)
            bodies = [str(e.payload["body"]) for e in entries if e.payload.get("body")]
            result: dict[str, Any] = {}
            if bodies:
                secret = any(bool(e.payload.get("secret")) for e in entries)
                texts = split("\n".join(bodies))
                result = await self._text(game_id, player, texts, secret, numbers, entries[0])
            for e in entries:
                await self.store.ack(CHANNEL, game_id, e.key, result)

    async def _numbers(self, batch: list[OutboxEntry]) -> Numbers:
        """The numbers of the batch's players who get a text, read at once."""
        numbers = Numbers(self.directory, self.sender.clock)
        await numbers.read(str(e.payload.get("player")) for e in batch if _texts(e))
        return numbers

    async def _text(
        self,
        game_id: str,
        player: str,
        chunks: list[str],
        secret: bool,
        numbers: Numbers,
        entry: OutboxEntry | None = None,
    ) -> dict[str, Any]:
        """`chunks` to `player`, in order; the ack's result (the last SID).
        The number and STOP as `numbers` has them (read again if that read
        is stale: a STOP or a new number since counts); opted out (or no
        number): skipped, the lines not sent anywhere else. For `entry`, the
        attempt is recorded first, and a text a dead worker left in doubt is
        looked for at Twilio (`_attempt`): found, it is not sent again."""
        phone = await numbers.phone(player)
        if phone is None:
            self.skipped += 1
            return {"skipped": True}
        since = await self._attempt(game_id, entry) if entry is not None else None
        result: dict[str, Any] = {}
        for chunk in chunks:
            m = OutMessage(phone, chunk, game_id, player, secret)
            found = await self.sender.taken_since(m, since) if since is not None else None
            if found is not None:  # a dead worker's text Twilio has: not sent again
                result = {"sid": found}
                continue
            sent = await self.sender.deliver(m)
            if sent.sid is None:
                result = {"failed": sent.error}
            else:
                self.delivered += 1
                result = {"sid": sent.sid}
        return result

    async def _attempt(self, game_id: str, e: OutboxEntry) -> float | None:
        """Record durably, before Twilio has it, that `e`'s text goes now (its
        key and time: the game's attribute `ATTEMPT`); or, when `e` was taken
        from a dead worker that had recorded it (in doubt: Twilio may have
        it), that attempt's time, the record kept as it is."""
        if e.attempts > 1:
            raw = await self.store.get_attr(game_id, ATTEMPT)
            held = json.loads(raw) if raw else None
            if isinstance(held, list) and len(held) == 2 and held[0] == e.key:
                return float(held[1])
        await self.store.set_attr(game_id, ATTEMPT, json.dumps([e.key, self.sender.wall()]))
        return None

    async def _link(self, game_id: str) -> str:
        """A status-page link for the game ('' without a TV or a game)."""
        game = await self.store.load(game_id) if self.tv_link is not None else None
        if game is None or self.tv_link is None:
            return ""
        return await self.tv_link(game) or ""

    def _link_text(self, link: str, lang: str) -> str | None:
        if not link:
            return None
        # the status page's link, and under it the campaign's calendar (one
        # text: a segment more, once per player and campaign)
        text = render(status_link.line(link), lang)
        text += "\n" + render(status_link.calendar_line(link), lang)
        sr_latin = self.composer is not None and self.composer.settings.transliterate
        return prepare(text, lang, sr_latin)

    def _end_text(self, link: str, lang: str) -> str | None:
        if not link:
            return None
        sr_latin = self.composer is not None and self.composer.settings.transliterate
        # the status page shows the end screen once the game is over
        return prepare(render(status_link.line(link), lang), lang, sr_latin)

    async def _one(
        self, e: OutboxEntry, numbers: Numbers, link: str | None = None, unacked: Unacked = None
    ) -> Unacked:
        """Record and send one entry; its ack is returned, not made yet, for the
        next entry's record to carry (or `_settle`). `unacked`, the ack of the entry
        before, is made here before this entry's text goes: a kill still
        leaves at most that one text to be sent again."""
        p = e.payload
        player = str(p.get("player"))
        result: dict[str, Any] = {}
        body = p.get("body")
        if p.get("link"):
            body = self._link_text(link or "", str(p.get("lang", "en")))
        elif "reveal" in p:  # the end's brief reveal, the end screen's link under it
            body = fit(str(p["reveal"]), self._end_text(link or "", str(p.get("lang", "en"))))
        sheet, closed = record_of(p)
        if sheet is not None or closed is not None:  # first: see the module doc
            first = self._acking(e.game_id, unacked) if unacked is not None else None
            if await self.sheets.record(e.game_id, player, sheet, closed, first=first):
                unacked = None
        await self._settle(e.game_id, unacked)
        if body:
            secret = bool(p.get("secret"))
            result = await self._text(e.game_id, player, [str(body)], secret, numbers, e)
        return e.key, result

    def _acking(self, game_id: str, unacked: tuple[str, dict[str, Any]]) -> Swap | None:
        """A compare-and-set of the game's sheet record that also makes the ack
        `unacked` (one round trip), when the record is in the outbox's store."""
        if self.sheets.store is not self.store:
            return None
        key, result = unacked

        async def swap(old: str | None, new: str) -> bool:
            _, swapped = await self.store.ack_and_swap(
                CHANNEL, game_id, key, result, SHEETS, old, new
            )
            return swapped

        return swap

    async def _settle(self, game_id: str, unacked: Unacked) -> None:
        if unacked is not None:
            await self.store.ack(CHANNEL, game_id, *unacked)


def _texts(e: OutboxEntry) -> bool:
    """Whether the entry is a text to send (not only a record)."""
    return bool(e.payload.get("body") or _linked(e))


def _linked(e: OutboxEntry) -> bool:
    """Whether the entry's text carries the status page's link (made now)."""
    return bool(e.payload.get("link")) or "reveal" in e.payload
