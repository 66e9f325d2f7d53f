"""What one commit owes its recipients, worked out once for every channel.

Telegram and SMS each walked a commit's events, compared each player's
question before and after it, checked whether the status page's link was
due and who answered (issue #30, item 2). That is decided once now: the
service has one composer (`OwedComposer`, service/compose.py's port) which,
for every commit, works out what the transition owes (`Owed`: the public
news, whose question changed, the status link, the input's origin and the
echo of its answer) and hands it to each channel's renderer, which only
renders it into its outbox messages (Telegram: keyboards, edits, merged
news; SMS: menus, segments, the reply). A renderer that raises costs its own
channel's lines of the commit, and its `recover` gives every player their
open question afresh. Pure, like every composer: no I/O.

Not decided here yet: what each recipient was last delivered is one record
(adapters/sent.py) but each channel still reads its own part at delivery.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Protocol

from adapters import status_link
from gameflow.core.events import Event, Kind
from gameflow.core.state import Game
from service.compose import Composer, Origin, guarded
from service.outbox import OutboxMessage

Key = Callable[[Game, str], str | None]  # a channel's key of a player's question


@dataclass(frozen=True, slots=True)
class Owed:
    """What one commit (`before` -> `after`, its `events`, made by `origin`)
    owes, whatever the channel."""

    before: Game
    after: Game
    events: tuple[Event, ...]
    origin: Origin | None = None
    news: tuple[int, ...] = ()  # the public announcements (event indices)
    link: bool = False  # a campaign starts: the status page's link is owed
    people: tuple[str, ...] = ()  # everyone seated before or after

    @classmethod
    def of(
        cls, before: Game, after: Game, events: tuple[Event, ...], origin: Origin | None = None
    ) -> Owed:
        news = tuple(
            i for i, e in enumerate(events) if e.kind is Kind.ANNOUNCE and e.text is not None
        )
        people = tuple(dict.fromkeys((*before.players, *after.players)))
        link = status_link.due(before, after)
        return cls(before, after, events, origin, news, link, people)

    def by(self, channel: str) -> Origin | None:
        """The input's origin when it came by `channel` (None: another
        channel, a deadline)."""
        o = self.origin
        return o if o is not None and o.channel == channel else None

    def question(self, who: str, key: Key) -> tuple[str | None, str | None] | None:
        """`who`'s question keys before and after, when the commit changed
        it (opened, replaced, closed); None when it did not."""
        old, new = key(self.before, who), key(self.after, who)
        return None if old == new else (old, new)

    def echo(self, channel: str) -> int | None:
        """The TELL that echoes the answer the input by `channel` made."""
        return echo(self.origin, channel, self.events)


def echo(origin: Origin | None, channel: str, events: tuple[Event, ...]) -> int | None:
    """The index of the TELL that echoes the answer an input by `channel`
    made (its player's, in the phase answered): its handler shows it."""
    if origin is None or origin.channel != channel or origin.seq is None:
        return None
    for i, e in enumerate(events):
        if e.kind is Kind.TELL and e.to == origin.player and e.phase == origin.seq:
            return i
    return None


class Rendering:
    """A renderer's side of service/compose.py's port as well: one commit's
    messages on their own (tests, a service given the renderer itself)."""

    def render(self, owed: Owed) -> list[OutboxMessage]:
        raise NotImplementedError

    def compose(
        self,
        before: Game,
        after: Game,
        events: tuple[Event, ...],
        origin: Origin | None = None,
    ) -> list[OutboxMessage]:
        return self.render(Owed.of(before, after, events, origin))


class Renderer(Protocol):
    """A channel's side: what a commit owes, as its outbox messages."""

    def render(self, owed: Owed) -> list[OutboxMessage]: ...

    def recover(self, after: Game) -> list[OutboxMessage]:
        """Every player's open question afresh (`render` failed: a bug)."""
        ...


@dataclass
class OwedComposer(Rendering):
    """The service's one composer: `Owed` worked out once per commit
    (`compose`), each channel's renderer asked in turn."""

    renderers: list[Renderer] = field(default_factory=list)

    def render(self, owed: Owed) -> list[OutboxMessage]:
        out: list[OutboxMessage] = []
        after = owed.after
        for r in self.renderers:
            out.extend(guarded(r, after, partial(r.render, owed), partial(r.recover, after)))
        return out

    def recover(self, after: Game) -> list[OutboxMessage]:
        return [m for r in self.renderers for m in r.recover(after)]


def attach(composers: list[Composer], renderer: Renderer) -> bool:
    """Give the service's one composer (made if there is none yet) a
    channel's renderer; False if it had it already."""
    one = next((c for c in composers if isinstance(c, OwedComposer)), None)
    if one is None:
        one = OwedComposer()
        composers.append(one)
    if any(r is renderer for r in one.renderers):
        return False
    one.renderers.append(renderer)
    return True
