"""The Redis store's compact layout (issue #31, under 8 KiB a game): a game's
idempotency keys and bound identities in one hash `{g:ID}:in`, the identity
directory in hashes `who#XYZ`; and the data written before it (a key per
idempotency key with its TTL, a set `{g:ID}:who`, a key `who:IDENTITY` per
identity) still read, moved on first touch, and dropped when its game ends.
On one Redis, as on a Cluster (its scripts keep to one slot) and a real one."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest

from gameflow.core import actions as A
from gameflow.core.state import Game
from service.ports import Status
from tests.store_helpers import HOST, run, step, store_fixture, stored

pytestmark = pytest.mark.store

make_redis = store_fixture(("redis", "redis-cluster", "cluster"))


async def keys_of(store: Any, game_id: str) -> set[str]:
    """The game's own keys (its slot's), as names without the prefix."""
    pattern = f"{store.prefix}{{g:{game_id}}}*"
    return {str(k)[len(store.prefix) :] async for k in store.client.scan_iter(match=pattern)}


def test_a_game_keeps_its_keys_and_identities_in_one_hash(make_redis: Any) -> None:
    async def go() -> None:
        async with make_redis() as store:
            game = await stored(store, 0)
            await store.bind(HOST, "g1", HOST)
            g1, e1 = step(game, A.Join("tg:7", None, "Ann"), key="tg:u1")
            done = await store.commit("g1", game.version, g1, e1, "tg:u1", binds=[("tg:7", "tg:7")])
            assert done.status is Status.OK
            await store.bind("+4790000001", "g1", "tg:7")  # a phone, bound to a player
            assert await keys_of(store, "g1") == {"{g:g1}", "{g:g1}:log", "{g:g1}:in"}
            held = await store.client.hgetall(store._inputs("g1"))
            version, expiry = held["k:tg:u1"].split()
            ttl_ms = store.dedupe_ttl * 1000  # the expiry: a day from now on Redis's clock
            assert int(version) == g1.version
            assert abs(int(expiry) - (time.time() * 1000 + ttl_ms)) < 60_000
            assert {f for f in held if f.startswith("w:")} == {
                f"w:{HOST}",
                "w:tg:7",
                "w:+4790000001",
            }
            assert await store.client.hget(store.who_hash("tg:7"), "tg:7") == "g1"
            phone = await store.client.hget(store.who_hash("+4790000001"), "+4790000001")
            assert json.loads(phone) == ["g1", "tg:7"]
            assert await store.whereis("tg:7") == ("g1", "tg:7")
            assert await store.whereis("+4790000001") == ("g1", "tg:7")
            assert await store.client.exists(store.old_who_key("tg:7")) == 0
            assert await store.applied("g1", "tg:u1") == g1.version
            again = await store.commit("g1", g1.version, g1, e1, "tg:u1")
            assert (again.status, again.version) == (Status.DUPLICATE, g1.version)

    run(go())


def test_expired_keys_stop_counting_and_are_dropped(make_redis: Any) -> None:
    async def go() -> None:
        async with make_redis(dedupe_ttl=0.2) as store:
            game = await stored(store, 2)
            g1, e1 = step(game, A.SetLanguage(HOST, None, "sr"), key="k1")
            assert (await store.commit("g1", game.version, g1, e1, "k1")).status is Status.OK
            await asyncio.sleep(0.35)
            assert await store.applied("g1", "k1") is None
            g2, e2 = step(g1, A.SetLanguage(HOST, None, "en"), key="k1")  # the key again: new
            assert (await store.commit("g1", g1.version, g2, e2, "k1")).status is Status.OK
            await asyncio.sleep(0.35)
            g3, e3 = step(g2, A.SetLanguage(HOST, None, "sr"), key="k2")
            assert (await store.commit("g1", g2.version, g3, e3, "k2")).status is Status.OK
            held = await store.client.hgetall(store._inputs("g1"))
            assert [f for f in held if f.startswith("k:")] == ["k:k2"]  # k1 dropped

    run(go())


def test_data_from_before_the_layout_is_read_moved_and_dropped(make_redis: Any) -> None:
    """A game stored by the code before `{g:ID}:in` and `who#XYZ`: its live
    idempotency key still refuses a duplicate, its identities are found, the
    first commit moves its identity set into the hash, a new binding
    replaces an old key, and its end unbinds every identity of both."""

    async def go() -> None:
        async with make_redis() as store:
            game = await stored(store, 0)
            g1, e1 = step(game, A.Join("tg:1", None, "Ann"), key="tg:u1")
            g2, e2 = step(g1, A.Join("tg:2", None, "Bo"), key="tg:u2")
            g3, e3 = step(g2, A.Join("tg:3", None, "Cy"), key="tg:u3")
            # as the code before wrote them (a plain Redis client, no store method)
            raw = store.client
            await raw.hset(store._game("g1"), mapping={"version": g2.version})
            await raw.hset(store._game("g1"), "snapshot", _encode(g2))
            await raw.rpush(store._game("g1") + ":log", json.dumps(e1), json.dumps(e2))
            await raw.set(store._game("g1") + ":k:tg:u2", g2.version, px=60_000)
            await raw.sadd(store._game("g1") + ":who", HOST, "tg:1", "tg:2")
            for who in (HOST, "tg:1", "tg:2"):
                await raw.set(store.old_who_key(who), json.dumps(["g1", who]))
            assert await store.whereis("tg:1") == ("g1", "tg:1")
            assert await store.applied("g1", "tg:u2") == g2.version
            dup = await store.commit("g1", g1.version, g2, e2, "tg:u2", binds=[("tg:2", "tg:2")])
            assert (dup.status, dup.version) == (Status.DUPLICATE, g2.version)
            assert await raw.exists(store._game("g1") + ":who") == 1  # a refusal moves nothing
            done = await store.commit("g1", g2.version, g3, e3, "tg:u3", binds=[("tg:3", "tg:3")])
            assert done.status is Status.OK
            assert await raw.exists(store._game("g1") + ":who") == 0  # moved on first touch
            held = await raw.hgetall(store._inputs("g1"))
            assert {f for f in held if f.startswith("w:")} == {
                f"w:{w}" for w in (HOST, "tg:1", "tg:2", "tg:3")
            }
            await store.bind("tg:2", "g1", "tg:2")  # a new binding replaces the old key
            assert await raw.exists(store.old_who_key("tg:2")) == 0
            assert await store.whereis("tg:2") == ("g1", "tg:2")
            # another game took tg:1 in the old layout: its end must not unbind it
            await raw.set(store.old_who_key("tg:1"), json.dumps(["g9", "tg:1"]))
            ended, e4 = step(g3, A.End(HOST), key="tg:u4")
            assert (await store.commit("g1", g3.version, ended, e4, "tg:u4")).status is Status.OK
            for who in (HOST, "tg:2", "tg:3"):
                assert await store.whereis(who) is None, who
                assert await raw.exists(store.old_who_key(who)) == 0
            assert await store.whereis("tg:1") == ("g9", "tg:1")
            held = await raw.hgetall(store._inputs("g1"))
            assert not [f for f in held if f.startswith("w:")]
            assert await raw.pttl(store._inputs("g1")) > 0  # it expires with the game

    run(go())


def _encode(game: Game) -> str:
    from gameflow.core.codec import encode_game

    return encode_game(game)
