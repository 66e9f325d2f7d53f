"""The record of what each SMS player was last texted (`SentSheets`,
adapters/sms/renderer.py) when two workers write it.

A worker's first guess at the record is what it last wrote itself: one round
trip (the swap) instead of two while it delivers the game alone. Here two
`SentSheets` (two workers) share one store's attribute, and one writes while
the other's guess is stale: neither change is lost, and the stale guess costs
one read more, not a wrong record. The store's attributes are a dict behind
the port's two calls, counting them."""

from __future__ import annotations

import asyncio

from adapters.sms.renderer import ANSWERED, SentSheets


class Attrs:
    """`get_attr` and `swap_attr` of a store holding one game ("g")."""

    def __init__(self) -> None:
        self.value: str | None = None
        self.calls: list[str] = []

    async def get_attr(self, game_id: str, name: str) -> str | None:
        self.calls.append("get")
        return self.value if game_id == "g" else None

    async def swap_attr(self, game_id: str, name: str, old: str | None, new: str) -> bool:
        self.calls.append("swap")
        if game_id != "g" or self.value != old:
            return False
        self.value = new
        return True


def test_two_workers_never_lose_each_others_record() -> None:
    async def go() -> None:
        store = Attrs()
        a, b = SentSheets(store), SentSheets(store)  # type: ignore[arg-type]
        await a.record("g", "sms:1", key="k1")
        # nothing known yet: read first (no record: also the two attributes it
        # replaced, adapters/sent.py)
        assert store.calls == ["get", "get", "get", "swap"]
        store.calls.clear()
        await a.record("g", "sms:2", key="k2")
        assert store.calls == ["swap"]  # its own last write is the guess
        await b.record("g", "sms:3", key="k3")  # a's guess is stale now
        store.calls.clear()
        await a.record("g", "sms:1", closed=ANSWERED)
        assert store.calls == ["swap", "get", "swap"]  # the stale guess failed, read again
        assert await b.last("g", "sms:1") == (None, ANSWERED)
        assert await b.key("g", "sms:2") == "k2" and await b.key("g", "sms:3") == "k3"

    asyncio.run(go())


def test_a_guess_that_says_nothing_changes_is_checked() -> None:
    async def go() -> None:
        store = Attrs()
        a, b = SentSheets(store), SentSheets(store)  # type: ignore[arg-type]
        await a.record("g", "sms:1", key="k1")
        await b.record("g", "sms:1", key="k9")  # another worker texted a newer menu
        await a.record("g", "sms:1", key="k1")  # a's guess says k1 already: not trusted
        assert await b.key("g", "sms:1") == "k1"
        store.calls.clear()
        await a.record("g", "sms:1", key="k1")  # read: really nothing to change
        assert store.calls == ["get"]

    asyncio.run(go())


def test_a_game_that_is_gone_is_not_retried_for_ever() -> None:
    async def go() -> None:
        store = Attrs()
        sheets = SentSheets(store)  # type: ignore[arg-type]
        await sheets.record("gone", "sms:1", key="k1")
        assert store.calls.count("swap") == 8  # TRIES, then a warning
        assert await sheets.key("gone", "sms:1") is None

    asyncio.run(go())
