"""The Telegram renderer: what a commit owes each chat (adapters/owed.py), as
outbox entries.

`say` a private line; `news` public lines, for the group or, without one, for
each player and the host (merged per chat at delivery, news.py); `reveal` the
end's, one message; `link` the status page; `sync` a question that changed,
drawn with its keyboard from the state at delivery. Whether a game has a group
is I/O, so an entry says where it goes with or without one (`when`). Keys are
`{version}:{n}`: rendering one commit twice writes it once.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from adapters.owed import GROUP as GROUP  # also a news entry's `to`: the group, at delivery
from adapters.owed import Owed, Rendering, echo
from adapters.telegram.acting import chat_of
from adapters.telegram.jobs import Priority
from adapters.telegram.news import JOINED
from gameflow.core.events import Event, Kind
from gameflow.core.question import question
from gameflow.core.state import LOBBY, Game
from gameflow.core.text import Msg
from gameflow.i18n import render
from service.compose import Origin
from service.outbox import OutboxMessage

CHANNEL = "telegram"  # the outbox channel
MAX_TEXT = 4000  # a Telegram message holds 4096 characters
# A news entry's `when`: sent only if the game has a group, only if it has
# none, or always.
IF_GROUP, IF_NO_GROUP, ALWAYS = "group", "nogroup", "always"

Part = str | list[Any]  # a rendered line, or ["join", name, count]


def parts_of(texts: Sequence[Msg | str], lang: str) -> list[Part]:
    """Announcements as JSON: joins kept as joins (merged at delivery)."""
    out: list[Part] = []
    for t in texts:
        if isinstance(t, Msg) and t.msgid == JOINED:
            values = dict(t.params)
            out.append(["join", str(values.get("name", "")), values.get("n", 0)])
        else:
            out.append(render(t, lang) if isinstance(t, Msg) else t)
    return out


def messages(texts: Sequence[Msg], lang: str, limit: int = MAX_TEXT) -> list[str]:
    """`texts` one a line, as one message, or cut at line ends into as few
    as Telegram's length allows."""
    out: list[str] = []
    for line in (render(t, lang) for t in texts):
        if out and len(out[-1]) + 1 + len(line) <= limit:
            out[-1] += "\n" + line
        else:
            out.append(line[:limit])
    return out


class TelegramRenderer(Rendering):
    """The outbox side of the Telegram adapter (service/compose.py's port)."""

    def render(self, owed: Owed) -> list[OutboxMessage]:
        """What the commit owes (adapters/owed.py), as Telegram messages."""
        after, events = owed.after, owed.events
        version = after.version
        counter = itertools.count()
        out: list[OutboxMessage] = []

        def add(kind: str, **payload: Any) -> None:
            key = f"{version}:{next(counter)}"
            out.append(OutboxMessage(CHANNEL, key, {"kind": kind, **payload}))

        acting = owed.by(CHANNEL)
        lang = after.lang
        # What each chat is told privately (TELL, HOST), by event index: a
        # chat's news is cut there, so it reads in the order of the events
        # ("You sit out the next round" before the next round's title). The
        # first line echoing a player's own answer is their handler's.
        says: list[tuple[int, int, Event]] = sorted(
            (
                (i, chat, events[i])
                for due in owed.recipients()
                if (chat := chat_of(due.who)) is not None
                for i in (*due.private, *due.echo[1:])
            ),
            key=lambda said: said[0],
        )
        group = owed.due(GROUP)
        public = [(i, e.text) for i in group.news if (e := events[i]).text is not None]
        rest: dict[int, Later] = {}
        if public:
            asked = _asked(owed, lang)
            cuts: dict[int, list[int]] = {}
            for i, chat, _ in says:
                cuts.setdefault(chat, []).append(i)
            rest = self._news(after, public, add, cuts, asked, acting)
        for i, chat, e in says:
            text = render(e.text, lang) if e.text is not None else ""
            if e.kind is Kind.TELL:
                current = e.phase == after.phase.seq
                priority = Priority.PROMPT if current else Priority.NORMAL
                add("say", chat=chat, text=text, protect=e.secret, priority=int(priority))
            else:
                add("say", chat=chat, text=text, protect=False, label="host")
            later = rest.get(chat)
            if later is not None:
                parts = [part for at, part in later.parts if i < at < later.next_cut(i)]
                if parts:
                    add("news", to=chat, parts=parts, when=later.when, label=later.label)
        # The end's reveal, in full, one message (more only past Telegram's
        # length): the group's, and every player's whatever the group.
        for text in messages(group.reveal, lang):
            add("reveal", to=GROUP, when=IF_GROUP, text=text)
        for player in after.players:
            chat = chat_of(player)
            for text in messages(owed.due(player).reveal if chat is not None else (), lang):
                add("reveal", to=chat, when=ALWAYS, text=text)
        if group.link:
            # a campaign starts: the status page's link, for the group or else
            # for each player (made at delivery: adapters/status_link.py)
            add("link", to=GROUP, when=IF_GROUP)
            for player in after.players:
                chat = chat_of(player)
                if chat is not None and owed.due(player).link:
                    add("link", to=chat, when=IF_NO_GROUP)
        for due in owed.recipients():
            if chat_of(due.who) is None or due.question is None:
                continue
            keep = None
            if acting is not None and acting.player == due.who and acting.message is not None:
                keep = list(acting.message)
            add("sync", player=due.who, keep=keep)
        return out

    def recover(self, after: Game) -> list[OutboxMessage]:
        """After a failed `compose` (service/compose.py): every player's
        question afresh (a forced sync draws it from the state at delivery)."""
        return [
            OutboxMessage(
                CHANNEL, f"{after.version}:r{i}", {"kind": "sync", "player": p, "force": True}
            )
            for i, p in enumerate(after.players)
            if chat_of(p) is not None
        ]

    def _news(
        self,
        game: Game,
        public: Sequence[tuple[int, Msg]],
        add: Any,
        cuts: dict[int, list[int]],
        asked: dict[int, set[str]],
        acting: Origin | None,
    ) -> dict[int, Later]:
        """The news of one moment, for the group or, without one, for every
        player and the host (they may have no TV); see the module doc. A
        chat's news stops at its first private line (`cuts`); what follows is
        returned, for the caller to add after each of them. A line that the
        chat's new question says anyway (`asked`: "Vote: who sits out the next
        round?") is left to the question."""
        lang = game.lang
        indexed = [
            (i, part)
            for (i, _), part in zip(public, parts_of([t for _, t in public], lang), strict=True)
        ]
        add("news", to=GROUP, parts=[part for _, part in indexed], when=IF_GROUP, label="announce")
        confirm = acting.confirm if acting is not None else None
        confirm_chat = chat_of(acting.player) if acting is not None else None
        lobby = game.phase.name == LOBBY
        seen: set[int] = set()
        rest: dict[int, Later] = {}
        for who in (game.host, *(() if lobby else game.players)):
            chat = chat_of(who)
            if chat is None or chat in seen:
                continue
            seen.add(chat)
            extra: list[Part] = []
            if confirm is not None and confirm_chat == chat:
                extra = [confirm]
            player = who in game.players
            when = ALWAYS if game.over and player else IF_NO_GROUP
            label = "lobby" if lobby else ("over" if when == ALWAYS else "news")
            mine = [
                (i, p) for i, p in indexed if not (isinstance(p, str) and p in asked.get(chat, ()))
            ]
            later = Later(mine, cuts.get(chat, []), when, label)
            first = [p for i, p in mine if i < later.next_cut(-1)]
            if first or extra:
                add("news", to=chat, parts=first, when=when, label=label, extra=extra)
            rest[chat] = later
        return rest


@dataclass
class Later:
    """A chat's news of one commit, cut at its private lines (`cuts`: their
    event indices)."""

    parts: list[tuple[int, Part]]
    cuts: list[int]
    when: str
    label: str

    def next_cut(self, after: int) -> int:
        """The index of the chat's first private line after event `after`."""
        return next((c for c in self.cuts if c > after), sys.maxsize)


def echo_of(origin: Origin, events: tuple[Event, ...]) -> Event | None:
    """The TELL of a committed input's events that echoes its player's own
    answer: not rendered (Due.echo), the handler shows it in the message
    tapped, or as its reply."""
    i = echo(origin, CHANNEL, events)
    return None if i is None else events[i]


def confirmed(messages: Sequence[OutboxMessage]) -> bool:
    """Whether a commit's messages carry its origin's confirmation (the
    host's chat got it with the news): only that news has `extra` lines."""
    return any(
        m.channel == CHANNEL and m.payload.get("kind") == "news" and m.payload.get("extra")
        for m in messages
    )


def _asked(owed: Owed, lang: str) -> dict[int, set[str]]:
    """Per player chat, the context lines of the question the commit opens
    for them (they are sent with it, as its head)."""
    out: dict[int, set[str]] = {}
    for player in owed.after.players:
        chat = chat_of(player)
        q = question(owed.after, player)
        if chat is None or q is None or owed.due(player).question is None:
            continue
        out[chat] = {render(c, lang) for c in q.context}
    return out


def reminder(game: Game, player: str, seq: int, tag: str) -> OutboxMessage:
    """A scheduler's reminder to one player, appended with no commit; `tag`
    tells two reminders of one phase apart (written twice, it is sent once)."""
    payload = {"kind": "remind", "player": player, "seq": seq}
    return OutboxMessage(CHANNEL, f"r:{seq}:{player}:{tag}", payload)


def resync(player: str, tag: str) -> OutboxMessage:
    """`player`'s question again, as a fresh prompt (/status), with no commit."""
    payload = {"kind": "sync", "player": player, "force": True}
    return OutboxMessage(CHANNEL, f"s:{player}:{tag}", payload)
