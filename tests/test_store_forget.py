"""Ended games leave the active set and the deadline index, and after
`CONTACTS_RETENTION_HOURS` their players' channel ids (Telegram chat ids,
SMS numbers' ids) are forgotten: the record stays and replays, without them
(issue #31 item 2; service/forget.py)."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from bots.export import export_game, without_channel_ids
from gameflow.core import actions as A
from gameflow.core.codec import encode_game
from gameflow.core.engine import apply, new_game
from gameflow.core.state import Game
from gameflow.replay import run as replay
from service.forget import forget_texts
from service.games import log_entry
from tests.store_helpers import T0, ok, run, store_fixture

pytestmark = pytest.mark.store

make_store = store_fixture(("sqlite", "redis", "redis-cluster", "cluster"))
HOST = "tg:900"
PEOPLE = ("tg:201", "sms:3f9c0a", "tg:17", "sms:01ab", "tg:3", "tg:88")


def contacts(text: str) -> list[str]:
    return [c for c in (HOST, *PEOPLE) if f'"{c}"' in text]


async def play(store: Any, game_id: str, *, end: bool) -> Game:
    """A game of channel identities, committed step by step; ended if `end`."""
    game = new_game("station", game_id, HOST, "seed7", lang="en")
    assert await store.create(game)
    steps: list[A.Action] = [A.Join(p, None, f"N{i}") for i, p in enumerate(PEOPLE)]
    steps += [A.Leave("tg:3"), A.Start(HOST)]
    if end:
        steps.append(A.End(HOST))
    for i, action in enumerate(steps):
        new = ok(apply(game, action, T0 + i))
        entry = log_entry(game, action, T0 + i, f"tg:{1000 + i}")
        done = await store.commit(game_id, game.version, new, entry, f"tg:{1000 + i}")
        assert done.status.value == "ok"
        game = new
    await store.set_attr(game_id, "tg:group", "-100123")
    return game


def test_an_ended_game_forgets_its_contacts_and_still_replays(make_store: Any) -> None:
    from service.games import GameService

    async def go() -> None:
        async with make_store() as store:
            ended = await play(store, "g1", end=True)
            running = await play(store, "g2", end=False)
            assert ended.over and await store.active_games() == ["g2"]
            assert [d.game_id for d in await store.due(1e12)] == ["g2"]
            script = await export_game(store, "g1")
            assert contacts(json.dumps(script))
            assert await store.forget_contacts(time.time() - 3600) == []  # not yet
            assert await store.forget_contacts(time.time() + 1) == ["g1"]
            game = await store.load("g1")
            assert game is not None and contacts(encode_game(game)) == []
            initial = await store.initial("g1")
            assert initial is not None and contacts(encode_game(initial)) == []
            assert contacts(json.dumps(await store.log("g1"))) == []
            assert await store.get_attr("g1", "tg:group") is None
            assert game.names == ended.names and len(game.players) == len(ended.players)
            assert game.version == ended.version and game.over
            await GameService(store).verify("g1")  # the log replays to the snapshot
            after = await export_game(store, "g1")
            assert contacts(json.dumps(after)) == []
            # the same record as an export without channel ids, played from either
            assert replay(without_channel_ids(script))[1] == replay(after)[1]
            assert (await store.expires_in("g1") or 0) > 0  # kept until it expires
            assert await store.forget_contacts(time.time() + 1) == []  # once
            # a running game keeps its contacts
            assert await store.load("g2") == running
            assert await store.get_attr("g2", "tg:group") == "-100123"

    run(go())


def test_forget_texts_keeps_the_ids_order_and_leaves_neutral_games_alone() -> None:
    deal = json.dumps({"roles": {"tg:10": "mole"}}, sort_keys=True, separators=(",", ":"))
    snap = {
        "@": "G",
        "host": "tg:9",
        "players": ["tg:10", "sms:2"],
        "x": {"tg:10": 1},
        "setup": deal,
    }
    init = {"host": "tg:9", "players": []}
    out = forget_texts(json.dumps(snap), json.dumps(init), [json.dumps({"as": "tg:3"})])
    assert out is not None
    s, i, log = out
    # sorted old ids: sms:2, tg:10, tg:3, tg:9 -> anon:1..4
    assert json.loads(s) == {
        "@": "G",
        "host": "anon:4",
        "players": ["anon:2", "anon:1"],
        "x": {"anon:2": 1},
        "setup": '{"roles":{"anon:2":"mole"}}',
    }
    assert json.loads(log[0]) == {"as": "anon:3"}
    assert forget_texts(s, i, log) is None  # forgotten already
    demo = {"host": "host", "players": ["ana"]}
    assert forget_texts(json.dumps(demo), json.dumps(demo), []) is None


def test_serve_forgets_while_it_leads(monkeypatch: pytest.MonkeyPatch) -> None:
    """bots/serve.forget_loop: asks the service with CONTACTS_RETENTION_HOURS,
    only while this process leads, and lives through a failing store."""
    import asyncio
    from types import SimpleNamespace

    from bots import serve

    asked: list[float] = []

    async def forget_game(game: str, players: list[str]) -> list[str]:
        return []

    async def forget_contacts(after: float, first: Any = None) -> list[str]:
        assert first == forget_game  # the SMS numbers go first
        asked.append(after)
        if len(asked) == 1:
            raise ConnectionError("the store is away")
        return ["g1"]

    rt: Any = SimpleNamespace(
        settings=SimpleNamespace(contacts_retention_hours=2.0),
        service=SimpleNamespace(forget_contacts=forget_contacts),
        sms_directory=SimpleNamespace(forget_game=forget_game),
    )
    leading = [False]
    monkeypatch.setattr(serve, "FORGET_EVERY", 0.01)

    async def main() -> None:
        task = asyncio.create_task(serve.forget_loop(rt, lambda: leading[0]))
        await asyncio.sleep(0.05)
        assert asked == []
        leading[0] = True
        while len(asked) < 3:
            await asyncio.sleep(0.01)
        task.cancel()

    asyncio.run(main())
    assert set(asked) == {7200.0}
