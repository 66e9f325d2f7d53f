"""The SMS composer: for every commit, one text per SMS player who has news.

A player's text for one commit holds, in this order: the public news of the
commit (a player on a dumb phone has no TV: the votes, the results, who sits
out, the end reveal), their private lines (their role, what a card showed
them), and their question when it changed. The question is a view: the
composer computes every SMS player's sheet (`adapters.sms.sheet`) before and
after the commit and compares their keys; a changed or renumbered question is
texted again, an unchanged one is not. PROMPT events are no longer what
triggers a menu.

The texts are decided before the commit and written with it (the durable
outbox, service/compose.py): `SmsComposer.compose` is pure, and its messages
name the player, not the phone; the delivery (adapters/sms/delivery.py)
resolves the number and checks STOP when it sends, so a number changed or a
STOP texted meanwhile is honoured. Keys are `{version}:{player}:{chunk}`.

What the player was last texted is recorded by the delivery (`SentSheets`,
a store attr); the gateway reads answers against the current state, and
refuses a number typed while that state's question is not yet texted.

SMS costs per segment (issue #16: five a round for a 7-player Station game),
so nothing is sent twice: a news line that a later line of the same text
repeats or begins with (the vote's announcement and the vote's own question)
is left out. A player's own answer is not echoed back in a live game: the
game's «Choice locked…», «Vote locked…» would cost a text per answer, the
answer can't be changed anyway, and the next text (the result, or the next
question) follows within minutes. An answer that was not taken is always
answered, and a player who texts again is told their answer is in
(`closed`). A campaign, where the next text may be hours away, keeps the echo.
The gateway says who is answering: the service's explicit `Origin`
(service/compose.py), an answer's with its phase (`seq`).

Lobby news (who joined) is not texted: the joiner gets a welcome, and the role
card stays one segment. A recipient who said STOP is skipped: their private
information is not sent anywhere else instead. A text longer than three
segments is split at line ends.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from functools import partial
from typing import Any

from cachetools import LRUCache

from adapters import sent, status_link
from adapters.deadline_text import until
from adapters.sms import render as R
from adapters.sms import sheet as S
from adapters.sms import short
from adapters.sms.directory import is_sms
from adapters.sms.segments import prepare, segments
from adapters.sms.settings import SmsSettings
from gameflow.core.campaign import is_campaign
from gameflow.core.events import Event, Kind
from gameflow.core.state import Game
from gameflow.i18n import render
from service.compose import Origin
from service.outbox import OutboxMessage
from service.ports import GameStore

log = logging.getLogger(__name__)

MAX_SEGMENTS = 3  # one text on every phone; longer ones are split at line ends
CHANNEL = "sms"  # the outbox channel
ATTR = sent.ATTR  # the record; `SentSheets` is its SMS part
TRIES = 8
SEEN_CACHE = 10_000  # games whose SMS sheet record is remembered (SentSheets)
# How a player's last texted question closed (kept until the next one opens).
ANSWERED, CLOSED = "a", "c"


def answering(origin: Origin | None) -> Origin | None:
    """The SMS player whose answer made the input (None: a deadline, another
    channel, a host's command)."""
    if origin is None or origin.channel != CHANNEL or origin.seq is None:
        return None
    return origin


def replied(origin: Origin | None) -> Origin | None:
    """The SMS input whose reply its commit carries (keyed by its MessageSid)."""
    if origin is None or origin.channel != CHANNEL or origin.reply is None:
        return None
    return origin


def reply_lines(game: Game, origin: Origin, messages: Sequence[OutboxMessage]) -> list[str]:
    """What an accepted SMS input is answered, given the messages its commit
    texts (`game`: the state after it): a join is welcomed; a command that
    texted its sender nothing is confirmed, an answer only in a campaign (a
    live game's next text is minutes away); else nothing."""
    if origin.code is not None:
        seat = game.seat(origin.player)
        name = game.names[seat] if seat >= 0 else ""
        return [R.t(R.WELCOME, game.lang, name=name, code=origin.code)]
    if texted(tuple(messages), origin.player) or (origin.seq is not None and live(game)):
        return []
    return [R.t(R.OK, game.lang)]


def reply_key(origin: Origin) -> str:
    """The key prefix of the reply to an SMS input: its MessageSid's."""
    return f"r:{origin.reply}"


def live(game: Game) -> bool:
    """A game played in one sitting (not a campaign of a day per round)."""
    return not is_campaign(game)


def recipients(game: Game) -> list[str]:
    return [p for p in dict.fromkeys((*game.players, game.host)) if is_sms(p)]


def compose(
    game: Game,
    events: tuple[Event, ...],
    who: str,
    sheet: S.Sheet | None,
    *,
    public: bool = True,
    echo: int | None = None,
) -> tuple[list[str], bool]:
    """The lines `who` is texted for one commit, and whether any is private.
    `sheet` is their question when it changed (None: unchanged or none);
    `echo` the phase of `who`'s own answer in this commit, whose echo (the
    TELLs to them in that phase) is left out."""
    lang = game.lang
    news: list[str] = []
    private: list[str] = []
    secret = False
    remind = False
    shown = game.running or game.over  # lobby news stays in the lobby
    covered = short.superseded(events, who)
    for ev in events:
        if ev.kind is Kind.ANNOUNCE and ev.text is not None:
            if public and shown and ev.text.msgid not in covered:
                news.append(render(short.form(game, ev.text), lang))
        elif ev.kind is Kind.TELL and ev.to == who and ev.phase == echo:
            continue  # the echo of their own answer (see above)
        elif ev.kind in (Kind.TELL, Kind.HOST) and ev.to == who and ev.text is not None:
            private.append(render(short.form(game, ev.text), lang))
            secret = secret or ev.secret or ev.kind is Kind.TELL
        elif ev.kind is Kind.PROMPT and ev.to == who and ev.text is not None:
            private.append(render(ev.text, lang))
            secret = True
        elif ev.kind is Kind.REMINDER and ev.to == who and ev.phase == game.phase.seq:
            remind = True
    if remind:
        current = sheet or S.sheet(game, who)
        if current is not None:  # answered meanwhile: no reminder
            private.append(R.t(R.REMINDER, lang))
            sheet = current
    if sheet is not None:
        private.extend((S.text(game, sheet, lang), *_closes(game, lang)))
        secret = True
    return once(news + private), secret


def once(lines: list[str]) -> list[str]:
    """`lines` without a line that a later one repeats or begins with as a
    whole sentence (the vote announced, then asked with its rule: «Vote: who
    sits out…?» and «Vote: who sits out…? Most votes, at least 2.»), nor an
    empty one."""
    flat = [line for text in lines for line in text.split("\n")]
    out: list[str] = []
    seen = 0
    for text in lines:
        parts = text.split("\n")
        kept = []
        for j, line in enumerate(parts):
            rest = flat[seen + j + 1 :]
            if line and not any(_repeats(r, line) for r in rest):
                kept.append(line)
        seen += len(parts)
        if kept:
            out.append("\n".join(kept))
    return out


def _repeats(later: str, line: str) -> bool:
    return later == line or (line[-1:] in ".?!" and later.startswith(line + " "))


def _closes(game: Game, lang: str) -> tuple[str, ...]:
    """In a campaign, when the question closes ("Answer by 17:00"): hours away,
    it is worth its segment. A live game's table has the TV's countdown, so its
    texts stay as short as they were."""
    if not is_campaign(game):
        return ()
    line = until(game, lang, game.phase.started)
    return (line,) if line else ()


def split(text: str, limit: int = MAX_SEGMENTS) -> list[str]:
    """`text` as texts of at most `limit` segments each, cut at line ends."""
    if segments(text) <= limit:
        return [text] if text else []
    chunks: list[str] = []
    current = ""
    for line in text.split("\n"):
        candidate = f"{current}\n{line}" if current else line
        if segments(candidate) <= limit:
            current = candidate
            continue
        if current:
            chunks.append(current)
        current = line
        while segments(current) > limit:
            room = _room(current, limit)
            space = current.rfind(" ", 0, room + 1)
            cut = space if space > room // 2 else room
            chunks.append(current[:cut].rstrip())
            current = current[cut:].lstrip()
    if current:
        chunks.append(current)
    return chunks


def _room(text: str, limit: int) -> int:
    """How many leading characters of `text` fit `limit` segments (binary search)."""
    lo, hi = 1, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if segments(text[:mid]) <= limit:
            lo = mid
        else:
            hi = mid - 1
    return lo


# A compare-and-set of a game's record: (old, new) -> whether it held.
Swap = Callable[[str | None, str], Awaitable[bool]]


class SentSheets:
    """What each SMS player of a game was last texted, recorded by the delivery
    once Twilio accepted it: the sheet key (a number is read against that
    sheet), or how their question closed (ANSWERED, CLOSED) while none is open.
    The SMS part of the game's record of what each recipient was last
    delivered (adapters/sent.py; `{"k": {player: key}, "c": {player: how}}`),
    replaced by compare-and-set: one game's messages are
    delivered in commit order by one consumer at a time, but the records of
    several deliveries of one game must never lose each other's change.

    The gateway reads `closed` (the reply to an answer when nothing is
    asked: "your answer is in" or "too late") and `last`: a number typed
    while the record names another sheet than the question open now (its
    text still on the way) was typed for the older menu and is refused. The
    delivery writes the record just before it hands the text to Twilio, so a
    player never holds a menu newer than the record. Without a store (a unit
    test) the record lives in memory."""

    def __init__(self, store: GameStore | None) -> None:
        self.store = store
        self._memory: dict[str, str] = {}
        # One game's players are texted in parallel: their records take turns
        # here instead of losing compare-and-sets to each other.
        self._locks: dict[str, asyncio.Lock] = {}
        self._users: dict[str, int] = {}
        # game -> its record as last written here (the oldest forgotten)
        self._seen: LRUCache[str, str | None] = LRUCache(maxsize=SEEN_CACHE)

    async def _get(self, game_id: str) -> str | None:
        if self.store is None:
            return self._memory.get(game_id)
        return await sent.read(self.store, game_id)

    async def _swap(self, game_id: str, old: str | None, new: str) -> bool:
        if self.store is None:
            if self._memory.get(game_id) != old:
                return False
            self._memory[game_id] = new
            return True
        return await self.store.swap_attr(game_id, ATTR, old, new)

    @staticmethod
    def _parse(raw: str | None) -> tuple[dict[str, str], dict[str, str]]:
        text = sent.part(raw, sent.SMS)
        if not text:
            return {}, {}
        doc: dict[str, Any] = json.loads(text)
        return dict(doc.get("k", {})), dict(doc.get("c", {}))

    async def key(self, game_id: str, player: str) -> str | None:
        """The key of the sheet `player` was last texted (None: none open)."""
        return self._parse(await self._get(game_id))[0].get(player)

    async def last(self, game_id: str, player: str) -> tuple[str | None, str | None]:
        """What `player` was last texted, in one read: (the sheet's key, how
        it closed). (None, None): nothing recorded (no question texted yet)."""
        return self.last_in(await self._get(game_id), player)

    @classmethod
    def last_in(cls, raw: str | None, player: str) -> tuple[str | None, str | None]:
        """`last` from a record already read (GameStore.load_with, with the game)."""
        keys, how = cls._parse(raw)
        return keys.get(player), how.get(player)

    async def closed(self, game_id: str, player: str) -> str | None:
        """How `player`'s last texted question closed, while no other is open:
        ANSWERED (by their answer), CLOSED (its time ran out, or the host moved
        on), None (no question closed since)."""
        return self._parse(await self._get(game_id))[1].get(player)

    async def record(
        self,
        game_id: str,
        player: str,
        key: str | None = None,
        closed: str | None = None,
        *,
        first: Swap | None = None,
    ) -> bool:
        """`player` was just texted the sheet `key`, or their question closed
        (`closed`); a no-op when the record says so already. `first`, when
        given, makes the first compare-and-set instead of the store's own
        swap (the delivery's: it acks the text before in the same round
        trip). True if `first` was called."""
        lock = self._locks.setdefault(game_id, asyncio.Lock())
        self._users[game_id] = self._users.get(game_id, 0) + 1
        try:
            async with lock:
                return await self._record(game_id, player, key, closed, first)
        finally:
            self._users[game_id] -= 1
            if not self._users[game_id]:
                del self._users[game_id], self._locks[game_id]

    async def _record(
        self, game_id: str, player: str, key: str | None, closed: str | None, first: Swap | None
    ) -> bool:
        # The record this process last wrote or read is the first guess: one
        # game's texts are delivered by one consumer at a time, so it is
        # nearly always current and the swap alone is one round trip. A guess
        # that fails the swap, or that says nothing needs changing, is read
        # afresh (another worker may have written since).
        fresh = game_id not in self._seen
        used = False
        for _ in range(TRIES):
            raw = await self._get(game_id) if fresh else self._seen[game_id]
            keys, how = self._parse(raw)
            before = (dict(keys), dict(how))
            if key is not None:
                keys[player] = key
                how.pop(player, None)
            elif closed is not None:
                keys.pop(player, None)
                how[player] = closed
            if (keys, how) == before:
                if fresh:
                    self._seen[game_id] = raw
                    return used
                fresh = True
                continue
            doc: dict[str, Any] = {"k": keys}
            if how:
                doc["c"] = how
            new = sent.put(raw, sent.SMS, json.dumps(doc, sort_keys=True))
            if first is not None:
                swap, first, used = first, None, True
            else:
                swap = partial(self._swap, game_id)
            if await swap(raw, new):
                self._seen[game_id] = new
                return used
            fresh = True
        self._seen.pop(game_id, None)
        log.warning("SMS sheets of %s: lost the race %d times", game_id, TRIES)
        return used


def record_of(payload: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """What delivering an outbox payload records: (sheet key, closed)."""
    return payload.get("sheet"), payload.get("closed")


class SmsComposer:
    """The SMS side of the outbox (service/compose.py): pure, settings only."""

    def __init__(self, settings: SmsSettings) -> None:
        self.settings = settings

    def compose(
        self,
        before: Game,
        after: Game,
        events: tuple[Event, ...],
        origin: Origin | None = None,
    ) -> list[OutboxMessage]:
        people = recipients(after)
        if not people and replied(origin) is None:
            return []
        public = self.settings.announce != "private"
        actor = answering(origin)
        echo = actor.seq if actor is not None and live(after) else None
        hint = short.hint(after, events) if public else None
        out: list[OutboxMessage] = []
        for who in people:
            old, new = S.key_of(before, who), S.key_of(after, who)
            sheet = S.sheet(after, who) if new is not None and new != old else None
            closed = None
            if new is None and old is not None:
                closed = ANSWERED if actor is not None and actor.player == who else CLOSED
            mine = echo if actor is not None and who == actor.player else None
            lines, secret = compose(after, events, who, sheet, public=public, echo=mine)
            if lines and hint is not None:
                lines = self._free(after, lines, render(hint, after.lang))
            # A text carrying the question records it; a reminder re-sends it.
            carried = new if lines and (sheet is not None or _reminds(after, events, who)) else None
            prefix = f"{after.version}:{who}"
            if lines:
                out += self.messages(
                    after, who, lines, secret, prefix, sheet=carried, closed=closed
                )
            elif closed is not None:  # nothing to text: only the record changes
                out.append(OutboxMessage(CHANNEL, f"{prefix}:c", {"player": who, "closed": closed}))
        if status_link.due(before, after):
            # a campaign starts: each SMS player gets the status page's link
            # (made at delivery, adapters/status_link.py), after their texts
            for who in people:
                payload = {"player": who, "link": True, "lang": after.lang}
                out.append(OutboxMessage(CHANNEL, f"{after.version}:{who}:link", payload))
        sms = replied(origin)
        if sms is not None:
            # the reply to the input, in its commit: a worker killed before
            # answering Twilio can't lose it, and it leaves with the commit
            lines = reply_lines(after, sms, out)
            if lines:
                out += self.messages(after, sms.player, ["\n".join(lines)], True, reply_key(sms))
        return out

    def recover(self, after: Game) -> list[OutboxMessage]:
        """After a failed `compose` (service/compose.py): every SMS player
        asked something gets their menu afresh, recorded as the one on their
        phone."""
        out: list[OutboxMessage] = []
        for who in recipients(after):
            sheet = S.sheet(after, who)
            if sheet is None:
                continue
            lines = [S.text(after, sheet, after.lang), *_closes(after, after.lang)]
            key = S.key_of(after, who)
            out += self.messages(after, who, lines, True, f"{after.version}:{who}:r", sheet=key)
        return out

    def remind(self, game: Game, events: tuple[Event, ...], tag: str) -> list[OutboxMessage]:
        """The scheduler's reminders (no commit: written with `append_outbox`),
        to the SMS players still asked something, under keys `rem:{tag}:...`."""
        out: list[OutboxMessage] = []
        for who in recipients(game):
            lines, secret = compose(game, events, who, None, public=False)
            if lines:
                key = S.key_of(game, who)
                out += self.messages(game, who, lines, secret, f"rem:{tag}:{who}", sheet=key)
        return out

    def messages(
        self,
        game: Game,
        who: str,
        lines: list[str],
        secret: bool,
        prefix: str,
        *,
        sheet: str | None = None,
        closed: str | None = None,
    ) -> list[OutboxMessage]:
        """`lines` to `who` as outbox messages, one per text (split if it must
        be), keyed `{prefix}:{chunk}`; the last one records `sheet`/`closed`."""
        body = prepare("\n".join(lines), game.lang, self.settings.transliterate)
        chunks = split(body)
        out = []
        for i, chunk in enumerate(chunks):
            payload: dict[str, Any] = {"player": who, "body": chunk, "secret": secret}
            if i == len(chunks) - 1:
                if sheet is not None:
                    payload["sheet"] = sheet
                elif closed is not None:
                    payload["closed"] = closed
            out.append(OutboxMessage(CHANNEL, f"{prefix}:{i}", payload))
        return out

    def _free(self, game: Game, lines: list[str], extra: str) -> list[str]:
        """`lines` with `extra` at the end, if that costs no more texts or segments."""
        added = [*lines, extra]
        return added if self._cost(game, added) == self._cost(game, lines) else lines

    def _cost(self, game: Game, lines: list[str]) -> tuple[int, int]:
        """(texts, segments) that `lines` are sent as."""
        chunks = split(prepare("\n".join(lines), game.lang, self.settings.transliterate))
        return len(chunks), sum(segments(chunk) for chunk in chunks)


def _reminds(game: Game, events: tuple[Event, ...], who: str) -> bool:
    return any(
        ev.kind is Kind.REMINDER and ev.to == who and ev.phase == game.phase.seq for ev in events
    )


def texted(messages: tuple[OutboxMessage, ...], who: str) -> bool:
    """Whether a commit's outbox messages text `who` (a record alone is no text)."""
    return any(
        m.channel == CHANNEL and m.payload.get("player") == who and "body" in m.payload
        for m in messages
    )
