"""The composer port: the messages a commit causes, decided before it is made.

What the bot says is state (issue #19): a channel that has moved to the
durable outbox is asked, for every input the service is about to commit,
which messages the transition from `before` to `after` causes. The service
writes them with the commit (`GameStore.commit(..., outbox=...)`), so they
exist exactly when the input does: a worker killed after acknowledging the
input can no longer lose them, and any worker delivers them from the store.

A composer is pure: no I/O, no clock, no randomness. It may be called more
than once for one input (a lost version race is applied again to the newer
state) and only the messages of the attempt that committed are kept. What
needs I/O (a recipient's phone number, whether they opted out) is the
delivery's business, at delivery time. Keys must be unique per game and
channel and derived from the commit (its `after.version`), so that computing
the same messages twice writes them once.

Who made the input is an explicit argument (`Origin`, given to
`GameService.submit` and passed to every composer), not a task-local
variable: what a composer decides depends on its arguments alone, and what a
handler needs back (the echo of its own answer, whether its confirmation went
with the news) it reads from the `Outcome` (its events and messages).

Channels not yet moved keep the post-commit `Notifier` path (service/ports.py).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import NamedTuple, Protocol

from gameflow.core.events import Event
from gameflow.core.state import Game
from service.outbox import OutboxMessage

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Origin:
    """Who an input came from, and what its channel needs to answer it.

    `player` made it, by `channel` (a composer heeds an origin of its own
    channel only). `seq`: the phase a player's answer is for (None: not an
    answer); the TELL that echoes it is left to the sender's handler, and
    the question it closes closed by an answer. `message`: the platform
    message the answer came from (Telegram: chat, message id), which the
    handler rewrites instead of it being closed. `confirm`: a host
    command's confirmation, to go with the news to the sender's chat.
    `reply`: the input's own id on its channel (an SMS's MessageSid): the
    reply to the input is written with its commit, keyed by it; `code`, a
    join's code, for that reply's welcome."""

    player: str
    channel: str = ""
    seq: int | None = None
    message: tuple[int, int] | None = None
    confirm: str | None = None
    reply: str | None = None
    code: str | None = None


class Transition(NamedTuple):
    """One commit's transition, as `Composer.compose` is given it."""

    before: Game
    after: Game
    events: tuple[Event, ...]
    origin: Origin | None


class Composer(Protocol):
    """A channel's side of the outbox: the messages one commit causes. The
    composers subclass it, and compose each `Transition` (`_compose`)."""

    def compose(
        self,
        before: Game,
        after: Game,
        events: tuple[Event, ...],
        origin: Origin | None = None,
    ) -> list[OutboxMessage]:
        return self._compose(Transition(before, after, events, origin))

    def _compose(self, transition: Transition) -> list[OutboxMessage]: ...

    def recover(self, after: Game) -> list[OutboxMessage]:
        """What the commit must carry at least when `compose` failed (a bug):
        every player's open question, sent afresh, so that nobody is left
        waiting on a question they were never sent. Keys as `compose`'s."""
        ...


def guarded(
    composer: object,
    after: Game,
    make: Callable[[], Iterable[OutboxMessage]],
    recover: Callable[[], Iterable[OutboxMessage]],
) -> list[OutboxMessage]:
    """`make()`, the messages of one composer (or channel); when it raises (a
    bug: logged) its `recover()`, every player's open question afresh, so
    that nobody waits on a question never sent; when that raises too,
    nothing (logged). Never the input, nor another composer's messages."""
    try:
        return list(make())
    except Exception:
        log.exception("composer %r failed for %s v%d", composer, after.id, after.version)
        try:
            return list(recover())
        except Exception:
            log.exception("composer %r could not recover %s", composer, after.id)
            return []
