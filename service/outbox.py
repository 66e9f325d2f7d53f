"""The outbox port: what the bot says is state (issue #19).

A message the game decided to send is written in the same atomic commit as the
input that caused it (`GameStore.commit(..., outbox=[...])`): a worker that
dies after acknowledging an input can no longer lose the role cards it caused.
Any worker then delivers it from the store:

1. `outbox_ready(channel)` names the games with something to send;
2. `take(channel, game, consumer)` hands out that game's next batch, in commit
   order, to one consumer;
3. the consumer sends each entry and calls `ack(channel, game, key, result)`
   once the platform accepted it, recording e.g. the Telegram message id;
4. a batch whose consumer died (not acked nor renewed for `min_idle` seconds)
   is handed out again to whoever takes next.

Ordering: one game's channel has at most one batch out at a time, and batches
follow commit order, so no two consumers ever send one recipient's messages at
once. Within its batch a consumer must keep the order per recipient (it may
send to different recipients in parallel).

Delivery is at least once: a consumer killed after the platform accepted a
message and before its `ack` leaves it to be sent again (its `attempts` > 1
says so). Keys make everything else harmless: a key written again is ignored,
and `delivered(key)` tells a later message (an edit) which platform message to
change. The service computes the messages before the commit; this module is
only the port, pure like the rest of the service.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

DEFAULT_CLAIM_IDLE = 30.0  # an outbox batch held this long unacknowledged: its worker is dead
MAX_BATCH = 1000  # the most entries one `take` hands out

_CHANNEL = re.compile(r"^[a-z0-9_-]{1,32}$")


def check_channel(channel: str) -> str:
    """Channel names go into key and table names: short and plain."""
    if not _CHANNEL.match(channel):
        raise ValueError(f"bad outbox channel {channel!r}")
    return channel


@dataclass(frozen=True, slots=True)
class OutboxMessage:
    """A message to write with a commit: for `channel` (e.g. "telegram", "sms"),
    under a `key` unique per game and channel (written again, it is ignored: a
    message computed twice is sent once), with a JSON-able `payload` that the
    channel's sender understands (recipient, text, keyboard, ...)."""

    channel: str
    key: str
    payload: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class OutboxEntry:
    """An outbox message handed out for delivery. `attempts` counts its
    hand-outs: more than 1 means an earlier consumer took it and died, maybe
    after the platform accepted it and before its `ack`."""

    game_id: str
    channel: str
    key: str
    payload: dict[str, Any]
    attempts: int


def group_messages(messages: Sequence[OutboxMessage]) -> dict[str, list[OutboxMessage]]:
    """The messages per channel, each channel's in the order given (checked)."""
    by: dict[str, list[OutboxMessage]] = {}
    for m in messages:
        by.setdefault(check_channel(m.channel), []).append(m)
    return by


class OutboxStore(Protocol):
    """The store's outbox side (both stores; tests/test_outbox_store.py).
    The stores subclass it: `take`'s defaults and checks are kept here, once,
    and each store writes only its own step (`_take_batch`)."""

    async def append_outbox(self, game_id: str, messages: Sequence[OutboxMessage]) -> int:
        """Write messages that no input caused (a scheduler's reminder): in one
        atomic step, after every earlier message, skipping keys already written.
        Returns how many were new; 0, writing nothing, for a game not stored."""
        ...

    async def outbox_ready(self, channel: str, *, scan: bool = False) -> list[str]:
        """Games (sorted) that may hold undelivered `channel` messages. Exact on
        SQLite and on one Redis; on a Redis Cluster a hint that a crash right
        after a commit can miss, which `scan=True` repairs by looking at every
        active game (run it now and then as a backstop). A game listed may have
        nothing to take (another consumer holds its batch)."""
        ...

    async def take(
        self,
        channel: str,
        game_id: str,
        consumer: str,
        *,
        count: int = 100,
        min_idle: float = DEFAULT_CLAIM_IDLE,
    ) -> list[OutboxEntry]:
        """Hand `consumer` the game's next batch of undelivered `channel`
        messages (at most `count`), in commit order. [] when there is none, or
        while a batch of this game's channel is out with entries unacked (also
        to its own consumer) and not idle for `min_idle` seconds; a batch idle
        that long is presumed dead, and its unacked rest comes first in the
        next batch (with `attempts` + 1)."""
        count = max(1, min(count, MAX_BATCH))
        return await self._take_batch(check_channel(channel), game_id, consumer, count, min_idle)

    async def _take_batch(
        self, channel: str, game_id: str, consumer: str, count: int, min_idle: float
    ) -> list[OutboxEntry]:
        """The store's own `take`, the channel checked and `count` within
        1..MAX_BATCH."""
        ...

    async def renew(self, channel: str, game_id: str, consumer: str) -> int:
        """Reset the idle time of the entries `consumer` holds of this game's
        channel (a long wait on a platform's rate limit is not death); returns
        how many it holds."""
        ...

    async def ack(
        self, channel: str, game_id: str, key: str, result: Mapping[str, Any] | None = None
    ) -> bool:
        """The platform accepted message `key`: never hand it out again, and keep
        `result` (JSON-able, e.g. {"message_id": 42}) for `delivered`. Whoever
        holds the entry now. True for the first ack (its result is the one
        kept); False for a repeated ack or an unknown key."""
        ...

    async def delivered(self, channel: str, game_id: str, key: str) -> dict[str, Any] | None:
        """The result message `key` was acknowledged with ({} if none was given);
        None while it is undelivered or unknown. Kept as long as the game."""
        ...
