"""What one commit owes each recipient, decided once for every channel.

After every commit the service's one composer (`OwedComposer`) works out,
for each recipient (every player seated before or after, the host, the
game's group), what the commit owes them (`Due`): the public news, their
private lines, whether what they can answer changed, the status link, and
at the end the reveal. The channels' renderers only turn that into their
outbox messages and deliver them (issue #30, item 2). Pure: no I/O.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Protocol

from adapters import status_link
from gameflow.core import registry
from gameflow.core.engine import legal
from gameflow.core.events import Event, Kind
from gameflow.core.question import key_of
from gameflow.core.rules import rules_for
from gameflow.core.state import Game
from gameflow.core.text import Msg
from service.compose import Composer, Origin, Transition, guarded
from service.outbox import OutboxMessage

GROUP = "group"  # the game's group (its chat, resolved by a channel at delivery)

Change = tuple[str | None, str | None]  # a key before and after a commit


@dataclass(frozen=True, slots=True)
class Due:
    """What one commit owes one recipient (`who`: a player's id, the
    host's, or GROUP). Indices are into the commit's events."""

    who: str
    seated: bool = False  # a player after the commit
    host: bool = False  # the game's host
    news: tuple[int, ...] = ()  # the public lines
    private: tuple[int, ...] = ()  # TELL and HOST lines to them, but the echo
    # The TELLs that echo their own answer (the input's player only): the
    # answer's channel shows them with the answer, or not at all.
    echo: tuple[int, ...] = ()
    question: Change | None = None  # their question's keys, when it changed
    controls: Change | None = None  # the host's controls' keys, when they changed
    link: bool = False  # the status page's link (a campaign starts)
    reveal: tuple[Msg, ...] = ()  # the end's reveal in full
    brief: tuple[Msg, ...] = ()  # the same, as short as a text can carry


@dataclass(frozen=True, slots=True)
class Owed:
    """What one commit (`before` -> `after`, its `events`, made by `origin`)
    owes, whatever the channel: a `Due` for every recipient."""

    before: Game
    after: Game
    events: tuple[Event, ...]
    origin: Origin | None = None
    news: tuple[int, ...] = ()  # the public announcements (event indices)
    link: bool = False  # a campaign starts: the status page's link is owed
    people: tuple[str, ...] = ()  # everyone seated before or after
    dues: dict[str, Due] = field(default_factory=dict)  # by recipient, GROUP last

    @classmethod
    def of(
        cls, before: Game, after: Game, events: tuple[Event, ...], origin: Origin | None = None
    ) -> Owed:
        news = tuple(
            i for i, e in enumerate(events) if e.kind is Kind.ANNOUNCE and e.text is not None
        )
        people = tuple(dict.fromkeys((*before.players, *after.players)))
        link = status_link.due(before, after)
        private: dict[str, list[int]] = {}
        echo: dict[str, list[int]] = {}
        answered = origin.seq if origin is not None else None
        for i, e in enumerate(events):
            if e.kind not in (Kind.TELL, Kind.HOST):
                continue
            to = e.to if e.kind is Kind.TELL else (e.to or after.host)
            if to is None:
                continue
            mine = e.kind is Kind.TELL and origin is not None and to == origin.player
            lines = echo if mine and answered is not None and e.phase == answered else private
            lines.setdefault(to, []).append(i)
        full, brief = reveal(before, after)
        seated = set(after.players)
        dues: dict[str, Due] = {}
        for who in dict.fromkeys((*people, after.host, *private, *echo)):  # all told anything
            ours = who in seated
            dues[who] = Due(
                who,
                seated=ours,
                host=who == after.host,
                news=news,
                private=tuple(private.get(who, ())),
                echo=tuple(echo.get(who, ())),
                question=_changed(key_of(before, who), key_of(after, who)),
                controls=_changed(controls(before, who), controls(after, who)),
                link=link and (ours or who == after.host),
                reveal=full if ours else (),
                brief=brief if ours else (),
            )
        dues[GROUP] = Due(GROUP, news=news, link=link, reveal=full, brief=brief)
        return cls(before, after, events, origin, news, link, people, dues)

    def by(self, channel: str) -> Origin | None:
        """The input's origin when it came by `channel` (None: another
        channel, a deadline)."""
        o = self.origin
        return o if o is not None and o.channel == channel else None

    def due(self, who: str) -> Due:
        """What `who` is owed (nothing, when the commit does not concern them)."""
        return self.dues.get(who) or Due(who)

    def recipients(self) -> Iterator[Due]:
        """Every recipient but the group: the people seated before or after,
        then the host, then anyone else a line is for."""
        return (d for who, d in self.dues.items() if who != GROUP)

    def changed(self, who: str) -> bool:
        """Whether what `who` can answer changed: their question, or, for
        the host, their controls."""
        d = self.due(who)
        return d.question is not None or d.controls is not None


def _changed(old: str | None, new: str | None) -> Change | None:
    return None if old == new else (old, new)


def controls(game: Game, who: str) -> str | None:
    """A key of the host's own controls of the current phase (the Traitors'
    game master's), None for anyone else or when there are none."""
    if who != game.host or not game.running:
        return None
    kinds = rules_for(game.kind).host_kinds
    if not kinds:
        return None
    seq = game.phase.seq
    specs = tuple(s for s in legal(game, who) if s.kind in kinds and s.phase == seq)
    return hashlib.sha256(repr(specs).encode("utf-8")).hexdigest()[:20] if specs else None


def reveal(before: Game, after: Game) -> tuple[tuple[Msg, ...], tuple[Msg, ...]]:
    """The end's reveal (in full, and brief), owed in the commit that ends
    the game, when the game has one (`GameDefinition.reveal`)."""
    if before.over or not after.over:
        return (), ()
    definition = registry.find(after.kind)
    show = definition.reveal if definition is not None else None
    if show is None:
        return (), ()
    return tuple(show(after, False)), tuple(show(after, True))


def echo(origin: Origin | None, channel: str, events: tuple[Event, ...]) -> int | None:
    """The index of the TELL that echoes the answer an input by `channel`
    made (its player's, in the phase answered): its handler shows it."""
    if origin is None or origin.channel != channel or origin.seq is None:
        return None
    for i, e in enumerate(events):
        if e.kind is Kind.TELL and e.to == origin.player and e.phase == origin.seq:
            return i
    return None


class Rendering(Composer):
    """A renderer's side of service/compose.py's port as well: one commit's
    messages on their own (tests, a service given the renderer itself)."""

    def render(self, owed: Owed) -> list[OutboxMessage]:
        raise NotImplementedError

    def _compose(self, transition: Transition) -> list[OutboxMessage]:
        return self.render(Owed.of(*transition))


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
