"""News merged per chat (adapters/telegram/news.py): runs of joins become one
line naming everyone, in the game's language; other announcements keep their
order, one line each; a private chat's batch takes no news queued behind a
prompt."""

from __future__ import annotations

from typing import Any

import pytest

from adapters.telegram.news import News, compose, part_of_one
from adapters.telegram.outbound import Outbound
from gameflow.core.text import N_, msg

pytestmark = pytest.mark.telegram


def joined(name: str, count: int) -> Any:
    return part_of_one(name, count)


def test_joins_are_summarised_in_every_language() -> None:
    parts = [joined("Ana", 3), joined("Bo", 4), joined("Cy", 5)]
    assert compose(parts, "en") == "Ana, Bo and Cy joined (5 players)."
    assert compose(parts, "nb") == "Ana, Bo og Cy ble med (5 spillere)."
    assert compose(parts, "sr") == "Ana, Bo i Cy su se pridružili (5 igrača)."
    assert compose([joined("Ana", 1)], "en") == "Ana joined (1 player)."
    start = msg(N_("The Traitors begins: {count} players, {days} days."), count=5, days=12)
    mixed = compose([joined("Ana", 4), joined("Bo", 5), start, "Plain text."], "en")
    assert mixed.splitlines() == [
        "Ana and Bo joined (5 players).",
        "The Traitors begins: 5 players, 12 days.",
        "Plain text.",
    ]


def test_a_batch_takes_news_only_while_nothing_is_queued_behind_it() -> None:
    outbound = Outbound(bot=None, clock=lambda: 0.0)  # type: ignore[arg-type]
    news = News(outbound)
    news.add(-5, ["a"], "en")
    news.add(-5, ["b"], "en")  # a group: merged while waiting
    assert outbound.pending == 1 and news.stats.most_queued == 1
    news.add(7, ["x"], "en")

    async def prompt(bot: Any) -> None:
        return None

    outbound.send(7, prompt)  # a prompt queued behind the private news ...
    news.add(7, ["y"], "en")  # ... so later news does not jump ahead of it
    assert outbound.pending == 4
    merged = News(outbound, merge=False)
    merged.add(-6, ["a"], "en")
    merged.add(-6, ["b"], "en")
    assert merged.stats.most_queued == 2


def test_news_is_never_merged_into_a_withdrawn_call() -> None:
    """A batch whose hold was lost withdraws its calls (telegram/delivery.py).
    The same news claimed again must go in a call of its own, not into the
    withdrawn one (which would settle it as withdrawn: acked, never sent); and
    a call carrying two entries' news stays while one of them still wants it."""
    outbound = Outbound(bot=None, clock=lambda: 0.0)  # type: ignore[arg-type]
    news = News(outbound)
    first = news.add(-5, ["a"], "en")
    assert first is not None
    outbound.withdraw(first)
    assert first.withdrawn
    again = news.add(-5, ["a"], "en")  # the batch, claimed again
    assert again is not None and again is not first and not again.withdrawn
    shared = news.add(-5, ["b"], "en")  # another entry's news joins that call
    assert shared is again and again.holders == 2
    outbound.withdraw(again)  # one of the two gives it up ...
    assert not again.withdrawn  # ... the other's line still goes
    outbound.withdraw(again)
    assert again.withdrawn
    assert outbound.pending == 2  # both calls wait for their turn (settled then)
    assert news.stats.most_queued == 1  # the withdrawn one was not waiting any more
