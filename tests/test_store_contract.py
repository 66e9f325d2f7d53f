"""The store contract (service/ports.py), run against the embedded SQLite
store and a real Redis alike: whatever the service relies on must hold for both."""

from __future__ import annotations

import asyncio
import sqlite3
from typing import Any

import pytest
import redis

from gameflow.core import actions as A
from service.outbox import OutboxMessage
from service.ports import Status
from tests.store_helpers import HOST, T0, lobby, run, step, store_fixture, stored

pytestmark = pytest.mark.store

# "redis-cluster": the Redis store as it runs on a Cluster (scripts on one slot).
make_store = store_fixture(("sqlite", "redis", "redis-cluster", "cluster"))


def test_create_load_and_initial(make_store: Any) -> None:
    async def go() -> None:
        async with make_store() as store:
            game = lobby(5)
            assert await store.load("g1") is None
            assert await store.create(game) is True
            assert await store.create(game._replace(seed="other")) is False
            assert await store.load("g1") == game
            assert await store.initial("g1") == game
            assert await store.log("g1") == []
            assert await store.active_games() == ["g1"]
            assert await store.expires_in("g1") is None

    run(go())


def test_commit_appends_and_saves_only_at_the_expected_version(make_store: Any) -> None:
    async def go() -> None:
        async with make_store() as store:
            game = await stored(store, 5)
            g1, e1 = step(game, A.SetOption(HOST, None, "vote_seconds", 30.0))
            res = await store.commit("g1", game.version, g1, e1)
            assert (res.status, res.version) == (Status.OK, g1.version)
            # A second writer that loaded the old version loses, and changes nothing.
            g_other, e_other = step(game, A.SetOption(HOST, None, "vote_seconds", 99.0))
            res = await store.commit("g1", game.version, g_other, e_other)
            assert (res.status, res.version) == (Status.CONFLICT, g1.version)
            assert await store.load("g1") == g1
            assert await store.log("g1") == [e1]
            assert await store.initial("g1") == game
            g2, e2 = step(g1, A.Start(HOST), T0 + 5)
            assert (await store.commit("g1", g1.version, g2, e2)).status is Status.OK
            assert await store.log("g1") == [e1, e2]
            assert await store.log("g1", 1) == [e2]
            assert await store.load("g1") == g2
            missing = await store.commit("nope", 0, g2, e2)
            assert missing.status is Status.MISSING

    run(go())


def test_an_idempotency_key_is_applied_once(make_store: Any) -> None:
    async def go() -> None:
        async with make_store() as store:
            game = await stored(store, 5)
            await store.create(game._replace(id="g2"))
            g1, e1 = step(game, A.SetLanguage(HOST, None, "sr"))
            assert await store.applied("g1", "tg:1") is None
            assert (await store.commit("g1", game.version, g1, e1, "tg:1")).status is Status.OK
            assert await store.applied("g1", "tg:1") == g1.version
            # The same input again, even at the right version: a duplicate.
            g2, e2 = step(g1, A.SetLanguage(HOST, None, "sr"))
            again = await store.commit("g1", g1.version, g2, e2, "tg:1")
            assert (again.status, again.version) == (Status.DUPLICATE, g1.version)
            # ... and a stale one too: the key is checked before the version.
            stale = await store.commit("g1", game.version, g1, e1, "tg:1")
            assert stale.status is Status.DUPLICATE
            assert await store.log("g1") == [e1]
            # Keys are per game.
            g2b = game._replace(id="g2")
            h1, f1 = step(g2b, A.SetLanguage(HOST, None, "en"))
            assert (await store.commit("g2", game.version, h1, f1, "tg:1")).status is Status.OK

    run(go())


def test_idempotency_keys_expire(make_store: Any) -> None:
    async def go() -> None:
        async with make_store(dedupe_ttl=0.2) as store:
            game = await stored(store, 5)
            g1, e1 = step(game, A.SetLanguage(HOST, None, "sr"))
            await store.commit("g1", game.version, g1, e1, "k")
            assert await store.applied("g1", "k") == g1.version
            await asyncio.sleep(0.35)
            assert await store.applied("g1", "k") is None

    run(go())


def test_a_finished_game_leaves_the_directories_and_expires(make_store: Any) -> None:
    async def go() -> None:
        async with make_store(retention=0.5) as store:
            game = await stored(store, 5)
            await store.create(game._replace(id="g2"))
            assert await store.claim_code("ABCD", "g1")
            await store.bind("p1", "g1", "p1")
            await store.bind("p2", "g2", "p2")
            await store.set_tv("hash1", "g1")
            await store.set_attr("g1", "tg:group", "-100123")
            await store.set_attr("nowhere", "tg:group", "-1")  # no such game: not kept
            assert await store.get_attr("nowhere", "tg:group") is None
            started, e1 = step(game, A.Start(HOST), T0)
            await store.commit("g1", game.version, started, e1)
            ended, e2 = step(started, A.End(HOST), T0 + 1)
            assert ended.over
            assert (await store.commit("g1", started.version, ended, e2)).status is Status.OK
            assert await store.active_games() == ["g2"]
            left = await store.expires_in("g1")
            assert left is not None and 0 < left <= 0.5
            assert await store.expires_in("g2") is None
            assert await store.game_for_code("ABCD") is None
            assert await store.code_for("g1") is None
            assert await store.whereis("p1") is None
            assert await store.whereis("p2") == ("g2", "p2")
            assert await store.game_for_tv("hash1") == "g1"  # the page shows the result ...
            assert await store.get_attr("g1", "tg:group") == "-100123"  # ... and attrs live on
            assert await store.get_attr("g1", "other") is None
            assert await store.load("g1") == ended
            await asyncio.sleep(0.7)
            assert await store.load("g1") is None  # ... until the game expires
            assert await store.log("g1") == []
            assert await store.game_for_tv("hash1") is None
            assert await store.get_attr("g1", "tg:group") is None  # gone with the game
            assert await store.load("g2") is not None

    run(go())


async def two_lobbies(store: Any) -> None:
    """Games g1 and g2 in `store`, each a lobby of five."""
    await store.create(lobby(5))
    await store.create(lobby(5, game_id="g2"))


def test_join_codes(make_store: Any) -> None:
    async def go() -> None:
        async with make_store() as store:
            await two_lobbies(store)
            assert await store.claim_code("WXYZ", "g1") is True
            assert await store.claim_code("WXYZ", "g2") is False
            assert await store.game_for_code("WXYZ") == "g1"
            assert await store.code_for("g1") == "WXYZ"
            assert await store.code_for("g2") is None
            await store.release_code("WXYZ", "g2")  # not g2's: nothing happens
            assert await store.game_for_code("WXYZ") == "g1"
            await store.release_code("WXYZ", "g1")
            assert await store.game_for_code("WXYZ") is None
            assert await store.claim_code("WXYZ", "g2") is True

    run(go())


def test_identities(make_store: Any) -> None:
    async def go() -> None:
        async with make_store() as store:
            await two_lobbies(store)
            assert await store.whereis("+4790000000") is None
            await store.bind("+4790000000", "g1", "+4790000000")
            await store.bind("tg:42", "g1", "tg:42")
            assert await store.whereis("+4790000000") == ("g1", "+4790000000")
            await store.bind("tg:42", "g2", "tg:42")  # moved on to another game
            assert await store.unbind("tg:42", "g1") is False  # stale: keeps g2
            assert await store.whereis("tg:42") == ("g2", "tg:42")
            assert await store.unbind("tg:42", "g2") is True
            assert await store.whereis("tg:42") is None

    run(go())


def test_a_commit_binds_its_joins_only_when_it_is_applied(make_store: Any) -> None:
    async def go() -> None:
        async with make_store(retention=60) as store:
            game = await stored(store, 4)
            await store.bind("p7", "elsewhere", "p7")  # in another game until this join lands
            g1, e1 = step(game, A.Join("p7", None, "P7"))
            # Refused commits bind nobody: a stale version, an unknown game ...
            stale = await store.commit("g1", game.version - 1, g1, e1, "k1", binds=[("p7", "p7")])
            assert stale.status is Status.CONFLICT
            missing = await store.commit("nope", game.version, g1, e1, binds=[("p8", "p8")])
            assert missing.status is Status.MISSING
            assert await store.whereis("p7") == ("elsewhere", "p7")
            assert await store.whereis("p8") is None
            # ... an accepted one binds, in the same step ...
            done = await store.commit("g1", game.version, g1, e1, "k1", binds=[("p7", "p7")])
            assert done.status is Status.OK
            assert await store.whereis("p7") == ("g1", "p7")
            # ... and a duplicate of it binds nothing again.
            await store.bind("p7", "later", "p7")
            again = await store.commit("g1", g1.version, g1, e1, "k1", binds=[("p7", "p7")])
            assert again.status is Status.DUPLICATE
            assert await store.whereis("p7") == ("later", "p7")
            # A binding made by a commit is dropped with the game, like any other.
            await store.bind("p7", "g1", "p7")
            ended, e2 = step(g1, A.End(HOST), T0 + 1)
            assert (await store.commit("g1", g1.version, ended, e2)).status is Status.OK
            assert await store.whereis("p7") is None

    run(go())


def test_an_attribute_swap_is_compare_and_set(make_store: Any) -> None:
    async def go() -> None:
        async with make_store() as store:
            await store.create(lobby(5))
            assert await store.swap_attr("g1", "n", "0", "1") is False  # not set yet
            assert await store.get_attr("g1", "n") is None
            assert await store.swap_attr("g1", "n", None, "0") is True
            assert await store.swap_attr("g1", "n", None, "9") is False  # set by now
            assert await store.swap_attr("g1", "n", "5", "9") is False  # holds another
            assert await store.get_attr("g1", "n") == "0"
            assert await store.swap_attr("nowhere", "n", None, "1") is False
            assert await store.get_attr("nowhere", "n") is None

            # Forty writers at once, each read-change-swap until its swap holds:
            # no increment is lost to another's.
            async def increment() -> int:
                tries = 0
                while True:
                    tries += 1
                    old = await store.get_attr("g1", "n")
                    assert old is not None
                    if await store.swap_attr("g1", "n", old, str(int(old) + 1)):
                        return tries

            tries = await asyncio.gather(*(increment() for _ in range(40)))
            assert await store.get_attr("g1", "n") == "40"
            assert max(tries) > 1  # they did collide, and retried

    run(go())


def test_a_load_with_an_attribute_reads_both(make_store: Any) -> None:
    async def go() -> None:
        async with make_store() as store:
            assert await store.load_with("g1", "n") == (None, None)
            game = await stored(store, 5)
            assert await store.load_with("g1", "n") == (game, None)
            await store.set_attr("g1", "n", "7")
            assert await store.load_with("g1", "n") == (game, "7")
            assert await store.load_with("g1", "other") == (game, None)
            moved, entry = step(game, A.Join("p7", None, "P7"))
            await store.commit("g1", game.version, moved, entry)
            assert await store.load_with("g1", "n") == (moved, "7")

    run(go())


def test_an_ack_and_a_swap_in_one_step(make_store: Any) -> None:
    """What the SMS delivery does between two texts: the first one's ack and
    the record the second carries (GameStore.ack_and_swap); each part holds
    or fails as `ack` and `swap_attr` alone would."""

    async def go() -> None:
        async with make_store() as store:
            await store.create(lobby(5))
            messages = [OutboxMessage("sms", k, {"body": k}) for k in ("a", "b")]
            await store.append_outbox("g1", messages)
            batch = await store.take("sms", "g1", "w1", min_idle=60)
            assert [e.key for e in batch] == ["a", "b"]
            got = await store.ack_and_swap("sms", "g1", "a", {"sid": "S1"}, "n", None, "1")
            assert got == (True, True)
            assert await store.delivered("sms", "g1", "a") == {"sid": "S1"}
            assert await store.get_attr("g1", "n") == "1"
            # again: the ack is a repeat, the swap's old value is gone
            got = await store.ack_and_swap("sms", "g1", "a", {"sid": "S2"}, "n", None, "2")
            assert got == (False, False)
            assert await store.delivered("sms", "g1", "a") == {"sid": "S1"}
            assert await store.get_attr("g1", "n") == "1"
            # an ack that holds beside a swap that does not (and the reverse)
            assert await store.ack_and_swap("sms", "g1", "b", {}, "n", "9", "3") == (True, False)
            assert await store.ack_and_swap("sms", "g1", "zz", {}, "n", "1", "3") == (False, True)
            assert await store.get_attr("g1", "n") == "3"
            assert await store.take("sms", "g1", "w1", min_idle=0) == []  # all acked
            assert await store.outbox_ready("sms") == []
            assert await store.ack_and_swap("sms", "nowhere", "a", {}, "n", None, "1") == (
                False,
                False,
            )

    run(go())


def test_tv_tokens_and_global_claims(make_store: Any) -> None:
    async def go() -> None:
        async with make_store() as store:
            await store.create(lobby(5))
            assert await store.game_for_tv("h") is None
            await store.set_tv("h", "g1")
            assert await store.game_for_tv("h") == "g1"
            assert await store.claim("update:7", "g1") == "g1"
            assert await store.claim("update:7", "g9") == "g1"
            assert await store.claim("update:8", "g9") == "g9"

    run(go())


def test_data_survives_reopening_the_store(make_store: Any) -> None:
    async def go() -> None:
        game = lobby(6)
        async with make_store() as store:
            await store.create(game)
            g1, e1 = step(game, A.Start(HOST))
            await store.commit("g1", game.version, g1, e1, "k1")
            await store.claim_code("QRST", "g1")
        async with make_store() as store:
            assert await store.load("g1") == g1
            assert await store.log("g1") == [e1]
            assert await store.applied("g1", "k1") == g1.version
            assert await store.game_for_code("QRST") == "g1"
            assert await store.active_games() == ["g1"]

    run(go())


def test_log_entries_keep_their_json(make_store: Any) -> None:
    async def go() -> None:
        async with make_store() as store:
            game = await stored(store, 5)
            entry = {"as": "p1", "do": "join", "name": "Đorđe Æøå ✓", "at": 1.5, "x": [1, None]}
            g1 = game._replace(version=game.version + 1)
            await store.commit("g1", game.version, g1, entry)
            assert await store.log("g1") == [entry]

    run(go())


def test_bad_game_ids_are_refused(make_store: Any) -> None:
    async def go() -> None:
        async with make_store() as store:
            for bad in ("", "a}b", "a{b", "x" * 65, "a b"):
                with pytest.raises(ValueError):
                    await store.create(lobby(5, game_id=bad))

    run(go())


def test_a_swap_and_an_append_in_one_step(make_store: Any) -> None:
    """What a talk line commits (GameStore.swap_attr_and_append, issue #33):
    the attribute and the messages both, or neither: when the swap's old
    value is gone, when the game is, and when writing the messages fails
    inside the step."""

    async def go() -> None:
        async with make_store() as store:
            await store.create(lobby(5))
            first = [OutboxMessage("sms", k, {"body": k}) for k in ("a", "b")]
            assert await store.swap_attr_and_append("g1", "n", None, "1", first) is True
            assert await store.get_attr("g1", "n") == "1"
            batch = await store.take("sms", "g1", "w1", min_idle=60)
            assert [e.key for e in batch] == ["a", "b"]
            assert await store.outbox_ready("sms") == ["g1"]
            # the swap fails: no message either
            late = [OutboxMessage("sms", "c", {"body": "c"})]
            assert await store.swap_attr_and_append("g1", "n", None, "2", late) is False
            assert await store.swap_attr_and_append("g1", "n", "9", "2", late) is False
            assert await store.get_attr("g1", "n") == "1"
            again = await store.take("sms", "g1", "w1", min_idle=0)
            assert [e.key for e in again] == ["a", "b"]
            # keys written once: a repeat swaps and skips them; no messages: a plain swap
            assert await store.swap_attr_and_append("g1", "n", "1", "2", first) is True
            assert await store.swap_attr_and_append("g1", "n", "2", "3", []) is True
            assert await store.get_attr("g1", "n") == "3"
            assert len(await store.take("sms", "g1", "w1", min_idle=0)) == 2
            assert await store.swap_attr_and_append("nowhere", "n", None, "1", late) is False
            assert await store.get_attr("nowhere", "n") is None
            assert await store.outbox_ready("sms") == ["g1"]

            # writing the messages fails inside the step: the attribute stays
            await store.create(lobby(5, game_id="g2"))
            if make_store.kind == "sqlite":
                from adapters.store import sqlite_outbox

                def broken(*args: Any) -> int:
                    raise sqlite3.OperationalError("disk I/O error")

                with pytest.MonkeyPatch.context() as mp:
                    mp.setattr(sqlite_outbox, "write", broken)
                    with pytest.raises(sqlite3.OperationalError):
                        await store.swap_attr_and_append("g2", "n", None, "1", late)
            else:  # the stream's key of another type: the script fails at its XADD
                await store.client.set(store._stream("g2", "sms"), "not a stream")
                with pytest.raises(redis.ResponseError):
                    await store.swap_attr_and_append("g2", "n", None, "1", late)
            assert await store.get_attr("g2", "n") is None
            assert await store.swap_attr("g2", "n", None, "1") is True  # as it was

    run(go())
