"""The SMS adapter's records (`Directory`): one contract, two implementations.

Every contract test runs on SQLite and on Redis (`records`). Two directories on
the same records stand for two workers: on Redis two clients with one key
prefix, on SQLite two connections to one file. The Redis-only tests check what
the shared deployment relies on: keys under the store's prefix, the retention
TTLs (and none on an opt-out), and `muldvarp serve`'s wiring choosing Redis
whenever the games are in Redis.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from adapters.sms.directory import Directory, Received, Sent, SqliteDirectory, is_sms, player_id
from adapters.sms.redis_directory import RedisDirectory
from tests.sms_helpers import Records, on_records, records_fixture
from tests.store_helpers import drop_prefix, redis_url_or_fail, run, unique_prefix

pytestmark = pytest.mark.sms

records = records_fixture()

PHONE = "+4791234567"


def test_an_inbound_message_sid_is_stored_once(records: Records) -> None:
    async def go(d: Directory) -> None:
        assert await d.inbound("SM1") is None
        assert await d.store_inbound("SM1", PHONE, "JOIN ABCD Åse", 10.5)
        assert not await d.store_inbound("SM1", PHONE, "something else", 11.0)
        assert await d.inbound("SM1") == Received("SM1", PHONE, "JOIN ABCD Åse", 10.5)
        assert await d.store_inbound("SM2", PHONE, "", 12.0)  # an empty body is a text too
        assert await d.inbound("SM2") == Received("SM2", PHONE, "", 12.0)

    on_records(records, go)


def test_numbers_are_remembered_and_replaced(records: Records) -> None:
    async def go(d: Directory) -> None:
        pid = player_id(PHONE, "key")
        assert is_sms(pid) and PHONE[1:] not in pid
        assert pid == player_id(PHONE, "key") != player_id(PHONE, "other key")
        assert await d.phone_of(pid) is None
        await d.set_phone(pid, PHONE, "g1")
        assert await d.phone_of(pid) == PHONE
        await d.set_phone(pid, "+4790000000", None)  # a new number, out of any game
        assert await d.phone_of(pid) == "+4790000000"

    on_records(records, go)


def test_an_ended_game_forgets_its_numbers_and_their_texts_but_no_stop(
    records: Records,
) -> None:
    """forget_game (CONTACTS_RETENTION_HOURS): the numbers still in that game
    go with every text to and from them; a number now in a later game stays,
    and so does a STOP."""
    other = "+4790000001"

    async def go(d: Directory) -> None:
        gone, moved = player_id(PHONE, "key"), player_id(other, "key")
        for n, (pid, phone) in enumerate(((gone, PHONE), (moved, other))):
            await d.set_phone(pid, phone, "g1")
            await d.store_inbound(f"SMi{n}", phone, "JOIN", 1.0)
            await d.record_sent(f"SMo{n}", phone, pid, "g1", True, "sent", 1.0)
        await d.set_phone(moved, other, "g2")  # joined a later game
        await d.opt_out(PHONE, 2.0)
        assert await d.forget_game("g1", [gone, moved]) == [PHONE]
        assert await d.phone_of(gone) is None and await d.phone_of(moved) == other
        assert await d.inbound("SMi0") is None and await d.sent("SMo0") is None
        assert await d.inbound("SMi1") is not None and await d.sent("SMo1") is not None
        assert await d.opted_out(PHONE)  # the carrier's: never forgotten
        assert await d.forget_game("g1", [gone, moved]) == []  # once

    on_records(records, go)


def test_stop_and_start_toggle_reachability_once_each(records: Records) -> None:
    async def go(d: Directory) -> None:
        assert not await d.opted_out(PHONE)
        assert not await d.opt_in(PHONE)  # was not opted out
        assert await d.opt_out(PHONE, 1.0)
        assert not await d.opt_out(PHONE, 2.0)  # already: the host is told once
        assert await d.opted_out(PHONE) and not await d.opted_out("+4790000000")
        assert await d.opt_in(PHONE)
        assert not await d.opted_out(PHONE) and not await d.opt_in(PHONE)

    on_records(records, go)


def test_a_text_can_go_to_known_numbers_that_did_not_stop(records: Records) -> None:
    async def go(d: Directory) -> None:
        other = "+4790000000"
        assert await d.reachable([]) == {}
        await d.set_phone("sms:a", PHONE, "g")
        await d.set_phone("sms:b", other, "g")
        await d.opt_out(other, 1.0)
        # Unknown players and opted-out numbers are left out; order is kept.
        assert await d.reachable(["sms:b", "sms:zz", "sms:a"]) == {"sms:a": PHONE}
        await d.opt_in(other)
        got = await d.reachable(["sms:b", "sms:a"])
        assert got == {"sms:b": other, "sms:a": PHONE} and list(got) == ["sms:b", "sms:a"]

    on_records(records, go)


def test_a_remembered_number_is_checked_never_trusted(records: Records, tmp_path: Path) -> None:
    """A Redis directory reads a player's number and the STOP of the phone it
    last saw for them in one round trip. Whatever it remembers, the answer is
    the records': here another worker (a second directory on the same records)
    changes numbers and texts STOP behind this one's back, and a number changed
    since is used with its own STOP, a STOP since is honoured."""

    async def go() -> None:
        d, w2 = _two(records, tmp_path)
        other, third = "+4790000000", "+4790000001"
        try:
            await d.set_phone("sms:a", PHONE, "g")
            await d.set_phone("sms:b", other, "g")
            players = ["sms:a", "sms:b", "sms:zz"]
            assert await d.reachable(players) == {"sms:a": PHONE, "sms:b": other}
            await w2.opt_out(other, 1.0)
            assert await d.reachable(players) == {"sms:a": PHONE}
            await w2.set_phone("sms:b", third, "g")  # a new number, not opted out
            assert await d.reachable(players) == {"sms:a": PHONE, "sms:b": third}
            await w2.set_phone("sms:a", other, "g")  # remembered: PHONE, not stopped
            assert await d.reachable(players) == {"sms:b": third}
            await w2.opt_out(third, 3.0)
            assert await d.reachable(players) == {}
        finally:
            await w2.close()
            await d.close()

    run(go())


def test_outbound_status_callbacks_return_the_message_as_it_was(records: Records) -> None:
    async def go(d: Directory) -> None:
        await d.record_sent("SMa", PHONE, "sms:p", "g1", True, "queued", 1.0)
        await d.record_sent("SMb", PHONE, None, None, False, "failed", 1.0, "21610")
        assert await d.sent("SMa") == Sent("SMa", PHONE, "sms:p", "g1", True, "queued")
        assert await d.sent("SMb") == Sent("SMb", PHONE, None, None, False, "failed")
        before = await d.update_status("SMa", "sent", None, 2.0)
        assert before == Sent("SMa", PHONE, "sms:p", "g1", True, "queued")
        before = await d.update_status("SMa", "undelivered", "30005", 3.0)
        assert before is not None and before.status == "sent"
        assert (await d.sent("SMa")) == Sent("SMa", PHONE, "sms:p", "g1", True, "undelivered")
        # A callback for a text recorded nowhere is no record either.
        assert await d.update_status("SMzz", "delivered", None, 4.0) is None
        assert await d.sent("SMzz") is None

    on_records(records, go)


def _two(records: Records, tmp_path: Path) -> tuple[Directory, Directory]:
    """Two directories on the same records: what two workers hold."""
    if records is SqliteDirectory:
        path = str(tmp_path / "sms.sqlite3")
        return SqliteDirectory(path), SqliteDirectory(path)
    first = records()
    assert isinstance(first, RedisDirectory)
    second = RedisDirectory.from_url(records.url, prefix=first.prefix)  # type: ignore[attr-defined]
    return first, second


def test_two_workers_share_the_records_and_a_message_sid_is_new_to_one(
    records: Records, tmp_path: Path
) -> None:
    async def go() -> None:
        a, b = _two(records, tmp_path)
        try:
            # Both workers get every MessageSid at once (a redelivery racing the
            # first delivery): each is new to exactly one of them.
            # (On SQLite, each insert is a synced write to the file: fewer.)
            sids = [f"SM{i:04d}" for i in range(20 if records is SqliteDirectory else 200)]
            got = await asyncio.gather(
                *(d.store_inbound(sid, PHONE, "1 g", 1.0) for sid in sids for d in (a, b))
            )
            assert sum(got) == len(sids)
            assert all(got[2 * i] != got[2 * i + 1] for i in range(len(sids)))
            await a.set_phone("sms:p", PHONE, "g")
            assert await b.phone_of("sms:p") == PHONE
            assert await a.opt_out(PHONE, 1.0) and not await b.opt_out(PHONE, 2.0)
            assert await b.opted_out(PHONE)
            await a.record_sent("SMo", PHONE, "sms:p", "g", True, "queued", 1.0)
            # Status callbacks for one text reach both workers at once: one of
            # them sees each earlier status, none sees its own.
            seen = await asyncio.gather(
                a.update_status("SMo", "sent", None, 2.0),
                b.update_status("SMo", "undelivered", "30005", 2.0),
            )
            assert sorted(s.status for s in seen if s is not None) in (
                ["queued", "sent"],
                ["queued", "undelivered"],
            )
        finally:
            await a.close()
            await b.close()

    run(go())


# -- Redis only -----------------------------------------------------------------------


@pytest.fixture
def redis_prefix() -> Iterator[tuple[str, str]]:
    url = redis_url_or_fail()
    prefix = unique_prefix()
    yield url, prefix
    run(drop_prefix(url, prefix))


def test_redis_keys_live_under_the_store_prefix_with_the_retention(
    redis_prefix: tuple[str, str],
) -> None:
    from adapters.sms.redis_directory import RedisDirectory

    url, prefix = redis_prefix

    async def go() -> None:
        d = RedisDirectory.from_url(url, prefix=prefix, retention=60.0)
        r = d.client
        try:
            await d.store_inbound("SM1", PHONE, "hi", 1.0)
            await d.set_phone("sms:p", PHONE, "g")
            await d.opt_out(PHONE, 1.0)
            await d.record_sent("SMo", PHONE, "sms:p", "g", True, "queued", 1.0)
            keys = sorted([k async for k in r.scan_iter(match=prefix + "*")])
            assert keys == sorted(
                prefix + k
                for k in (
                    "sms:in:SM1",
                    "sms:num:sms:p",
                    f"sms:stop:{PHONE}",
                    "sms:out:SMo",
                    f"sms:texts:{PHONE}",  # the texts' index, for forget_game
                )
            )
            for kind in ("in:SM1", "num:sms:p", "out:SMo", f"texts:{PHONE}"):
                assert 55_000 < await r.pttl(f"{prefix}sms:{kind}") <= 60_000, kind
            assert await r.pttl(f"{prefix}sms:stop:{PHONE}") == -1  # STOP holds until START
            # A number in use lives on: looking it up renews its time.
            await r.pexpire(f"{prefix}sms:num:sms:p", 1_000)
            assert await d.phone_of("sms:p") == PHONE
            assert await r.pttl(f"{prefix}sms:num:sms:p") > 55_000
        finally:
            await d.close()

    run(go())


def test_serve_keeps_sms_records_where_it_keeps_the_games(
    tmp_path: Path, redis_prefix: tuple[str, str]
) -> None:
    from adapters.sms.redis_directory import RedisDirectory
    from bots.app import open_sms_directory
    from bots.settings import load_settings

    url, prefix = redis_prefix
    embedded = load_settings(None, DATA_DIR=str(tmp_path / "data"))
    shared = load_settings(None, REDIS_URL=url, MULDVARP_PREFIX=prefix, RETENTION_DAYS=2)

    async def go() -> None:
        local = open_sms_directory(embedded)
        assert isinstance(local, SqliteDirectory)
        assert (tmp_path / "data" / "sms.sqlite3").exists()
        await local.close()
        remote = open_sms_directory(shared)
        assert isinstance(remote, RedisDirectory)
        assert remote.prefix == prefix and remote.retention == 2 * 24 * 3600.0
        await remote.store_inbound("SMw", PHONE, "hi", 1.0)
        await remote.close()
        check = RedisDirectory.from_url(url, prefix=prefix)
        assert await check.inbound("SMw") is not None
        await check.close()

    run(go())
