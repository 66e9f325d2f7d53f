"""The SMS renderer: what a commit owes each SMS player (adapters/owed.py), as texts.

A text costs per segment (issue #16), so a player's text for one commit says
each thing once: the public news in its short forms, their private lines, and
their menu when what they can answer changed. Lobby news stays in the lobby, a
live game does not echo a player's own answer (the next text is minutes away),
and a text longer than three segments is split at line ends. Texts name the
player, not the phone: the delivery reads the number and STOP when it sends.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from adapters.deadline_text import until
from adapters.owed import Owed, Rendering
from adapters.sms import render as R
from adapters.sms import sheet as S
from adapters.sms import short
from adapters.sms.directory import is_sms
from adapters.sms.segments import prepare, segments
from adapters.sms.sent_sheets import ATTR as ATTR
from adapters.sms.sent_sheets import SentSheets as SentSheets
from adapters.sms.sent_sheets import Swap as Swap
from adapters.sms.sent_sheets import record_of as record_of
from adapters.sms.settings import SmsSettings
from gameflow.core.campaign import is_campaign
from gameflow.core.events import Event, Kind
from gameflow.core.state import Game
from gameflow.core.text import Msg
from gameflow.i18n import render
from service.compose import Origin
from service.outbox import OutboxMessage

log = logging.getLogger(__name__)

MAX_SEGMENTS = 3  # one text on every phone; longer ones are split at line ends
CHANNEL = "sms"  # the outbox channel
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
    """The lines `who` is texted for `events` (a reminder, a test), and
    whether any is private: `lines_for` on the events' own public and private
    lines; `echo`, the phase of `who`'s own answer, whose TELLs are left out."""
    news = tuple(i for i, e in enumerate(events) if e.kind is Kind.ANNOUNCE and e.text is not None)
    mine = tuple(
        i
        for i, e in enumerate(events)
        if e.kind in (Kind.TELL, Kind.HOST)
        and e.to == who
        and not (e.kind is Kind.TELL and e.phase == echo)
    )
    return lines_for(game, events, who, sheet, news if public else (), mine)


def lines_for(
    game: Game,
    events: tuple[Event, ...],
    who: str,
    sheet: S.Sheet | None,
    news: Sequence[int],
    private: Sequence[int],
) -> tuple[list[str], bool]:
    """The text `who` is owed: the public lines `news` and the private ones
    `private` (indices into `events`), in their short forms, then their
    question when it changed (`sheet`; None: unchanged or none); and whether
    any line is private. Lobby news stays in the lobby; a scheduler's
    reminder re-sends the question still open."""
    lang = game.lang
    said: list[str] = []
    secret = False
    if game.running or game.over:
        covered = short.superseded(events, who)
        for i in news:
            text = events[i].text
            if text is not None and text.msgid not in covered:
                said.append(render(short.form(game, text), lang))
    told: list[str] = []
    for i in private:
        ev = events[i]
        if ev.text is not None:
            told.append(render(short.form(game, ev.text), lang))
            secret = secret or ev.secret or ev.kind is Kind.TELL
    remind = False
    for ev in events:
        if ev.kind is Kind.PROMPT and ev.to == who and ev.text is not None:
            told.append(render(ev.text, lang))
            secret = True
        elif ev.kind is Kind.REMINDER and ev.to == who and ev.phase == game.phase.seq:
            remind = True
    if remind:
        current = sheet or S.sheet(game, who)
        if current is not None:  # answered meanwhile: no reminder
            told.append(R.t(R.REMINDER, lang))
            sheet = current
    if sheet is not None:
        told.extend((S.text(game, sheet, lang), *_closes(game, lang)))
        secret = True
    return once(said + told), secret


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


def fit(body: str, tail: str | None, limit: int = MAX_SEGMENTS) -> str:
    """One text of at most `limit` segments: `body`'s first lines, as many as
    fit with `tail` (a link) under them; without room for even one line, the
    beginning of `body` alone."""
    kept = body.split("\n")
    under = [tail] if tail else []
    while kept and segments("\n".join([*kept, *under])) > limit:
        kept.pop()
    if not kept:
        return next(iter(split(body, limit)), "")
    return "\n".join([*kept, *under])


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


class SmsRenderer(Rendering):
    """The SMS side of the outbox (service/compose.py): pure, settings only."""

    def __init__(self, settings: SmsSettings) -> None:
        self.settings = settings

    def render(self, owed: Owed) -> list[OutboxMessage]:
        """What the commit owes (adapters/owed.py), as texts."""
        after, events, origin = owed.after, owed.events, owed.by(CHANNEL)
        people = recipients(after)
        if not people and replied(origin) is None:
            return []
        public = self.settings.announce != "private"
        actor = answering(origin)
        hint = short.hint(after, events) if public else None
        out: list[OutboxMessage] = []
        for who in people:
            due = owed.due(who)
            changed = owed.changed(who)
            sheet = S.sheet(after, who) if changed else None
            closed = None
            if changed and sheet is None:  # a question was open, none is now
                closed = ANSWERED if actor is not None and actor.player == who else CLOSED
            # A live game does not echo a player's own answer (see the module doc).
            keep = actor is None or actor.player != who or not live(after)
            private = sorted((*due.private, *due.echo)) if keep else due.private
            news = due.news if public else ()
            said, secret = lines_for(after, events, who, sheet, news, private)
            if said and hint is not None:
                said = self._free(after, said, render(hint, after.lang))
            # A text carrying the question records it; a reminder re-sends it.
            carried = None
            if said and sheet is not None:
                carried = sheet.key
            elif said and _reminds(after, events, who):
                carried = S.key_of(after, who)
            prefix = f"{after.version}:{who}"
            if said:
                out += self.messages(after, who, said, secret, prefix, sheet=carried, closed=closed)
            elif closed is not None:  # nothing to text: only the record changes
                out.append(OutboxMessage(CHANNEL, f"{prefix}:c", {"player": who, "closed": closed}))
        for who in people:
            brief = owed.due(who).brief
            if brief:
                # the end's reveal, brief, in one text of its own: cut to fit
                # with the end screen's link under it (made at delivery)
                ended = {"player": who, "reveal": self.reveal(after, brief), "lang": after.lang}
                out.append(OutboxMessage(CHANNEL, f"{after.version}:{who}:reveal", ended))
        if owed.link:
            # a campaign starts: each SMS player gets the status page's link
            # (made at delivery, adapters/status_link.py), after their texts
            for who in people:
                if not owed.due(who).link:
                    continue
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

    def reveal(self, game: Game, brief: Sequence[Msg]) -> str:
        """The end's brief reveal as one text's lines (cut to fit at delivery,
        `fit`, when the end screen's link is known)."""
        text = "\n".join(render(line, game.lang) for line in brief)
        return prepare(text, game.lang, self.settings.transliterate)

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
