"""The SMS notifier: after every commit, one text per SMS player who has news.

A player's text for one commit holds, in this order: the public news of the
commit (a player on a dumb phone has no TV: the votes, the results, who sits
out, the end reveal), their private lines (their role, what a card showed
them), and their question when it changed. The question is a view: the
notifier computes every SMS player's sheet (`adapters.sms.sheet`) after each
commit and compares its key with the key of the sheet it last texted them; a
changed or renumbered question is texted again, an unchanged one is not. PROMPT
events are no longer what triggers a menu.

The keys last texted are kept with the game (`store.set_attr`), one JSON
record per game: `{"v": game version, "k": {player: sheet key}}`, replaced by
compare-and-set, so that when several workers notify commits of one game, a
worker with an older commit never overwrites what a newer one recorded, and
each key change is texted by one worker only. The inbound gateway reads the
same record: a number is read against the sheet the player was last sent.

SMS costs per segment (issue #16: five a round for a 7-player Station game),
so nothing is sent twice: a news line that a later line of the same text
repeats or begins with (the vote's announcement and the vote's own question)
is left out. A player's own answer is not echoed back in a live game: the
game's «Choice locked…», «Vote locked…» would cost a text per answer, the
answer can't be changed anyway, and the next text (the result, or the next
question) follows within minutes. An answer that was not taken is always
answered, and a player who texts again is told their answer is in
(`closed`). A campaign, where the next text may be hours away, keeps the echo.
The gateway says who is answering (`ACTING`, like the Telegram adapter's).

Lobby news (who joined) is not texted: the joiner gets a welcome, and the role
card stays one segment. A recipient who said STOP is skipped: their private
information is not sent anywhere else instead. A text longer than three
segments is split at line ends.
"""

from __future__ import annotations

import json
import logging
from contextvars import ContextVar
from typing import Any, NamedTuple

from adapters.deadline_text import until
from adapters.sms import render as R
from adapters.sms import sheet as S
from adapters.sms import short
from adapters.sms.directory import Directory, is_sms
from adapters.sms.outbound import Outbox, OutMessage
from adapters.sms.segments import prepare, segments
from adapters.sms.settings import SmsSettings
from gameflow.core.events import Event, Kind
from gameflow.core.state import Game
from gameflow.i18n import render
from service.ports import GameStore

log = logging.getLogger(__name__)

MAX_SEGMENTS = 3  # one text on every phone; longer ones are split at line ends
ATTR = "sms:sheets"
TRIES = 8
# How a player's last texted question closed (kept until the next one opens).
ANSWERED, CLOSED = "a", "c"


class Acting(NamedTuple):
    """The SMS player whose answer is being submitted, in the phase it answers."""

    game_id: str
    player: str
    seq: int


ACTING: ContextVar[Acting | None] = ContextVar("sms_acting", default=None)


def acting(game: Game) -> Acting | None:
    """Who is answering in `game` in this task (None: a deadline, another channel)."""
    a = ACTING.get()
    return a if a is not None and a.game_id == game.id else None


def live(game: Game) -> bool:
    """A game played in one sitting (not a campaign of a day per round)."""
    return bool(game.option("pacing") != "campaign")


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
    if game.option("pacing") != "campaign":
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


class SentSheets:
    """The sheet keys last texted, per game, in the game's store (see above).
    Without a store (a unit test of the notifier alone) they live in memory."""

    def __init__(self, store: GameStore | None) -> None:
        self.store = store
        self._memory: dict[str, str] = {}

    async def _get(self, game_id: str) -> str | None:
        if self.store is None:
            return self._memory.get(game_id)
        return await self.store.get_attr(game_id, ATTR)

    async def _swap(self, game_id: str, old: str | None, new: str) -> bool:
        if self.store is None:
            if self._memory.get(game_id) != old:
                return False
            self._memory[game_id] = new
            return True
        return await self.store.swap_attr(game_id, ATTR, old, new)

    @staticmethod
    def _parse(raw: str | None) -> tuple[int, dict[str, str], dict[str, str]]:
        if not raw:
            return -1, {}, {}
        doc: dict[str, Any] = json.loads(raw)
        return int(doc["v"]), dict(doc["k"]), dict(doc.get("c", {}))

    @staticmethod
    def _dump(version: int, keys: dict[str, str], closed: dict[str, str]) -> str:
        doc: dict[str, Any] = {"v": version, "k": keys}
        if closed:
            doc["c"] = closed
        return json.dumps(doc, sort_keys=True)

    async def key(self, game_id: str, player: str) -> str | None:
        """The key of the sheet `player` was last texted (None: none open)."""
        return self._parse(await self._get(game_id))[1].get(player)

    async def closed(self, game_id: str, player: str) -> str | None:
        """How `player`'s last texted question closed, while no other is open:
        ANSWERED (by their answer), CLOSED (its time ran out, or the host moved
        on), None (no question closed since)."""
        return self._parse(await self._get(game_id))[2].get(player)

    async def claim(self, game: Game, players: list[str]) -> dict[str, S.Sheet]:
        """The sheets to text now (those whose key changed), recorded as texted.
        Empty when a newer commit of the game has recorded its sheets already."""
        actor = acting(game)
        for _ in range(TRIES):
            raw = await self._get(game.id)
            version, keys, closed = self._parse(raw)
            if version > game.version:
                return {}
            before, closed_before = dict(keys), dict(closed)
            out: dict[str, S.Sheet] = {}
            for p in players:
                k = S.key_of(game, p)
                if k is None:
                    if keys.pop(p, None) is not None:
                        closed[p] = ANSWERED if actor and actor.player == p else CLOSED
                elif before.get(p) != k:
                    sh = S.sheet(game, p)
                    if sh is not None:
                        out[p] = sh
                    keys[p] = k
                    closed.pop(p, None)
            if version == game.version and keys == before and closed == closed_before:
                return {}
            if await self._swap(game.id, raw, self._dump(game.version, keys, closed)):
                return out
        log.warning("SMS sheets of %s: lost the race %d times", game.id, TRIES)
        return {}

    async def mark(self, game: Game, player: str, key: str | None) -> None:
        """Record that `player` was just texted the sheet `key` (a resend)."""
        for _ in range(TRIES):
            raw = await self._get(game.id)
            version, keys, closed = self._parse(raw)
            if version > game.version or keys.get(player) == key:
                return
            if key is None:
                keys.pop(player, None)
            else:
                keys[player] = key
                closed.pop(player, None)
            new = self._dump(max(version, game.version), keys, closed)
            if await self._swap(game.id, raw, new):
                return


class SmsNotifier:
    def __init__(
        self,
        directory: Directory,
        outbox: Outbox,
        settings: SmsSettings,
        store: GameStore | None = None,
    ) -> None:
        self.directory = directory
        self.outbox = outbox
        self.settings = settings
        self.sheets = SentSheets(store)
        # Whom the last commit of each game texted (this process's commits):
        # the gateway confirms an answer only to a sender it texted nothing.
        self._texted: dict[str, tuple[int, frozenset[str]]] = {}

    async def notify(self, game: Game, events: tuple[Event, ...]) -> None:
        people = recipients(game)
        if not people:
            return
        changed = await self.sheets.claim(game, people)
        public = self.settings.announce != "private"
        actor = acting(game)
        echo = actor.seq if actor is not None and live(game) else None
        texts: list[tuple[str, list[str], bool]] = []
        hint = short.hint(game, events) if public else None
        for who in people:
            mine = echo if actor is not None and who == actor.player else None
            lines, secret = compose(game, events, who, changed.get(who), public=public, echo=mine)
            if lines and hint is not None:
                lines = self._free(game, lines, render(hint, game.lang))
            if lines:
                texts.append((who, lines, secret))
        self._texted[game.id] = (game.version, frozenset(who for who, _, _ in texts))
        if game.over:
            self._texted.pop(game.id, None)
        if texts:
            # One look-up for the whole table: the records may be a network away.
            phones = await self.directory.reachable([who for who, _, _ in texts])
            for who, lines, secret in texts:
                phone = phones.get(who)
                if phone is not None:
                    await self._queue(game, who, phone, lines, secret)

    def _free(self, game: Game, lines: list[str], extra: str) -> list[str]:
        """`lines` with `extra` at the end, if that costs no more texts or segments."""
        added = [*lines, extra]
        return added if self._cost(game, added) == self._cost(game, lines) else lines

    def _cost(self, game: Game, lines: list[str]) -> tuple[int, int]:
        """(texts, segments) that `lines` are sent as."""
        chunks = split(prepare("\n".join(lines), game.lang, self.settings.transliterate))
        return len(chunks), sum(segments(chunk) for chunk in chunks)

    def texted(self, game: Game, who: str) -> bool:
        """Whether the commit that made `game` texted `who` (here, in this process)."""
        if game.over:
            return is_sms(who)  # the end goes to everyone
        version, people = self._texted.get(game.id, (-1, frozenset()))
        return version == game.version and who in people

    async def text(self, game: Game, who: str, lines: list[str], secret: bool) -> bool:
        """Queue `lines` to `who` (one text, split if it must be); False if not sent."""
        phone = (await self.directory.reachable([who])).get(who) if lines else None
        if phone is None:
            return False
        await self._queue(game, who, phone, lines, secret)
        return True

    async def _queue(
        self, game: Game, who: str, phone: str, lines: list[str], secret: bool
    ) -> None:
        body = prepare("\n".join(lines), game.lang, self.settings.transliterate)
        for chunk in split(body):
            await self.outbox.send(OutMessage(phone, chunk, game.id, who, secret))
