"""The SMS notifier: a committed transition's events as texts to SMS players.

One transition makes at most one text per recipient: their private messages,
their prompt (the menu rendered from `legal()` for the state after the
transition) and, riding along, the public announcements of that transition, in
event order. Public announcements are on the TV and in the room; by SMS they go only
where they cost nothing extra (`compose`): along with a private text when they
fit in the segments it needs anyway, those of announcement-only transitions
kept for the player's next text. At the game's end, or with `SMS_ANNOUNCE=all`,
all of them go. That, and one text per transition, keeps a 7-player Station
round within five segments.

A recipient who said STOP is skipped: their private information is not sent
anywhere else instead. A text longer than two segments is split at line ends.
"""

from __future__ import annotations

from adapters.deadline_text import until
from adapters.sms import render as R
from adapters.sms.directory import Directory, is_sms
from adapters.sms.outbound import Outbox, OutMessage
from adapters.sms.segments import prepare, segments
from adapters.sms.settings import SmsSettings
from gameflow.core.events import Event, Kind
from gameflow.core.state import Game
from gameflow.i18n import render

MAX_SEGMENTS = 2
PENDING = 4  # announcements kept per player for their next text


def recipients(game: Game) -> list[str]:
    return [p for p in dict.fromkeys((*game.players, game.host)) if is_sms(p)]


def compose(
    game: Game,
    events: tuple[Event, ...],
    who: str,
    announce_all: bool = False,
    pending: tuple[str, ...] = (),
) -> tuple[list[str], bool]:
    """The lines `who` is texted for these events, and whether any is private.

    Private lines (their texts, their prompt, host reports) decide whether there
    is a text at all. Public announcements (`pending` ones from earlier
    transitions first) ride along only where they cost nothing: a line is kept
    if the text stays within the segments the private lines need anyway. At the
    end of the game, or with `announce_all`, every announcement goes out.
    """
    lang = game.lang
    public: list[str] = list(pending)
    private: list[str] = []
    secret = False
    over = False
    for ev in events:
        if ev.kind is Kind.ANNOUNCE and ev.text is not None:
            public.append(render(ev.text, lang))
        elif ev.kind in (Kind.TELL, Kind.HOST) and ev.to == who and ev.text is not None:
            private.append(render(ev.text, lang))
            secret = secret or ev.secret or ev.kind is Kind.TELL
        elif ev.kind is Kind.PROMPT and ev.to == who and ev.phase == game.phase.seq:
            question = R.prompt(game, R.menus(game, who), lang)
            if ev.text is not None:
                private.append(render(ev.text, lang))
            if question:
                private.extend((question, *_closes(game, lang)))
            secret = True
        elif ev.kind is Kind.REMINDER and ev.to == who and ev.phase == game.phase.seq:
            question = R.prompt(game, R.menus(game, who), lang)
            if question:  # answered meanwhile: no reminder
                private.extend((R.t(R.REMINDER, lang), question, *_closes(game, lang)))
                secret = True
        elif ev.kind is Kind.OVER:
            over = True
    if over or announce_all:
        return public + private, secret
    if not private:
        return [], False
    budget = max(1, segments("\n".join(private)))
    riders: list[str] = []
    for line in public:
        if segments("\n".join([*riders, line, *private])) <= budget:
            riders.append(line)
    return riders + private, secret


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


class SmsNotifier:
    def __init__(self, directory: Directory, outbox: Outbox, settings: SmsSettings) -> None:
        self.directory = directory
        self.outbox = outbox
        self.settings = settings
        # Announcements a player was not texted yet (memory only: they are on the TV too).
        self._pending: dict[tuple[str, str], tuple[str, ...]] = {}

    async def notify(self, game: Game, events: tuple[Event, ...]) -> None:
        announce_all = self.settings.announce == "all"
        public = tuple(
            render(e.text, game.lang)
            for e in events
            if e.kind is Kind.ANNOUNCE and e.text is not None
        )
        texts: list[tuple[str, list[str], bool]] = []
        for who in recipients(game):
            key = (game.id, who)
            lines, secret = compose(game, events, who, announce_all, self._pending.get(key, ()))
            if lines:
                self._pending.pop(key, None)
                texts.append((who, lines, secret))
            elif public and not game.over:
                # Kept for the player's next text, where it may ride along for free.
                self._pending[key] = (*self._pending.get(key, ()), *public)[-PENDING:]
        if texts:
            # One look-up for the whole table: the records may be a network away.
            phones = await self.directory.reachable([who for who, _, _ in texts])
            for who, lines, secret in texts:
                phone = phones.get(who)
                if phone is not None:
                    await self._queue(game, who, phone, lines, secret)
        if game.over:
            for who in recipients(game):
                self._pending.pop((game.id, who), None)

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
