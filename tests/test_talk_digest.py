"""SMS talk digests (issue #33, adapters/sms/digest.py): a campaign's talk
reaches an SMS player as at most one text every `talk_digest_every`
seconds and `talk_texts_per_day` a day, never in quiet hours, and every
line texted exactly once, in order, also across a restart: a digest carries
the oldest lines that fit and the rest wait for the next one.

The day is played through the wire formats (tests/talk_table.py: Telegram
updates to the fake Bot API, signed Twilio webhooks to the fake Twilio) under
a fake clock; the digests' timers are the sweep's (`Digests.sweep`, which a
worker runs at start and every few minutes), called at each step."""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from adapters.sms import digest
from adapters.sms.digest import Digests
from adapters.store.sqlite_store import SqliteStore
from gameflow.core.campaign import quiet_ahead
from service.outbox import OutboxEntry, OutboxMessage
from tests.campaign_helpers import oslo
from tests.fake_telegram import FakeBotApi, serving
from tests.fake_twilio import FakeTwilio
from tests.store_helpers import run, store_fixture
from tests.talk_table import SMS, TG, TalkTable, sms_id

pytestmark = [pytest.mark.telegram, pytest.mark.sms]

EVERY = 1800.0
CAP = 5
STEP = 420.0  # a line every 7 minutes, from 12:00 on day 15 to 12:00 on day 16
NOTE = re.compile(r"^(\w+): note (\d+)$")
MORE = re.compile(r"^\(\+(\d+) more lines? in the next text\)$")


def test_a_campaign_day_of_digests(tmp_path: Path, fake: FakeTwilio) -> None:
    async def main() -> None:
        async with serving(FakeBotApi()) as api, TalkTable(api, fake, tmp_path) as t:
            game = await t.open(
                {"tg:100": "traitor", sms_id(SMS_LIST[1]): "traitor"},
                sets=(f"talk_digest_every {EVERY:.0f}", f"talk_texts_per_day {CAP}"),
            )
            assert digest.digesting(game)
            speakers: list[tuple[str, Any]] = [*(("tg", u) for u in TG), *(("sms", p) for p in SMS)]
            said: list[tuple[str, int]] = []  # (speaker's name, note number)
            said_at: list[float] = []
            texts_at: dict[str, list[tuple[float, str]]] = {p: [] for p in SMS}
            seen = {p: len(fake.to(p)) for p in SMS}

            async def sweep() -> None:
                """The digests' sweep, and the notes it texted kept with their time."""
                await t.sms.delivery.digests.sweep()
                await t.settle()
                for p in SMS:
                    new = fake.to(p)[seen[p] :]
                    seen[p] = len(fake.to(p))
                    texts_at[p] += [(t.clock.now, body) for body in new if "note " in body]

            n = 0
            end = oslo(16, 12)
            restarted = False
            while t.clock.now < end:
                quiet = quiet_ahead(game, t.clock.now).inside
                if not quiet:
                    kind, who = speakers[n % len(speakers)]
                    if kind == "tg":
                        await t.tg_say(int(who), f"note {n}")
                        said.append((TG[int(who)], n))
                    else:
                        await t.text(str(who), f"SAY note {n}")
                        said.append((SMS[str(who)], n))
                    said_at.append(t.clock.now)
                    n += 1
                if not restarted and t.clock.now >= oslo(15, 17):
                    # a worker restarts: its timers and memory are gone, the
                    # queued lines are in the store
                    old = t.sms.delivery.digests
                    await old.stop()
                    t.sms.delivery.digests = Digests(
                        t.store, sr_latin=False, clock=t.clock, wake=t.sms.delivery.wake
                    )
                    restarted = True
                await sweep()
                t.clock.now += STEP
            assert restarted and n > 100
            # the lines held over the second day's cap come with the third's first
            for p in SMS:
                rec = digest.load(await t.store.get_attr(t.game_id, digest.ATTR))
                assert rec["q"][sms_id(p)], p  # held: the cap was reached
            # then every digest the backlog takes, a gap apart
            t.clock.now = oslo(17, 7)
            for _ in range(CAP):
                await sweep()
                t.clock.now += EVERY
            rec = digest.load(await t.store.get_attr(t.game_id, digest.ATTR))
            assert not digest.waiting(rec), rec.get("q")

            for p, name in SMS.items():
                times = [at for at, _ in texts_at[p]]
                # never more often than every EVERY seconds, never in quiet hours
                assert all(b - a >= EVERY for a, b in itertools.pairwise(times)), p
                assert not any(quiet_ahead(game, at).inside for at in times), p
                # at most CAP a local day
                days = Counter(int((at - oslo(15, 0)) // 86400) for at in times)
                assert days and max(days.values()) <= CAP, days
                # every line of the others texted exactly once, in order; a
                # digest that leaves lines waiting says how many, rightly
                texted: list[tuple[str, int]] = []
                for at, body in texts_at[p]:
                    lines = body.splitlines()
                    if m := MORE.match(lines[-1]):
                        lines.pop()
                        waiting = int(m[1])
                    else:
                        waiting = 0
                    for line in lines:
                        m = NOTE.match(line)
                        assert m, f"not a talk line: {line!r}"
                        texted.append((m[1], int(m[2])))
                    owed_now = [
                        s for s, t0 in zip(said, said_at, strict=True) if s[0] != name and t0 <= at
                    ]
                    assert waiting == len(owed_now) - len(texted), (p, at, waiting)
                owed = [s for s in said if s[0] != name]
                assert texted == owed, (p, len(texted), len(owed))
                assert any(MORE.match(b.splitlines()[-1]) for _, b in texts_at[p]), p
                assert len(times) < len(owed) / 3  # digests: far fewer texts than lines
            # Telegram players get every line of the others at once, once
            for uid, name in TG.items():
                got = Counter(x for x in api.texts(uid) if NOTE.match(x))
                assert sorted(got) == sorted(f"{s}: note {k}" for s, k in said if s != name)
                assert set(got.values()) == {1}

    run(main())


SMS_LIST = list(SMS)


def entry(player: str, key: str, body: str) -> OutboxEntry:
    payload = {"player": player, "body": body, "secret": False, "talk": True}
    return OutboxEntry("g", "sms", key, payload, 1)


def test_queued_lines_outlive_a_restart_and_a_crash_after_the_swap(
    tmp_path: Path, fake: FakeTwilio
) -> None:
    """Lines queued by one worker are sent by a new one on the same store (a
    new process: a new store object, no timers); a worker that died between
    the digest's swap and its append leaves it to the next flush."""

    async def main() -> None:
        async with serving(FakeBotApi()) as api, TalkTable(api, fake, tmp_path) as t:
            await t.open({"tg:100": "traitor"}, sets=(f"talk_digest_every {EVERY:.0f}",))
            game = await t.game()
            eli = sms_id(SMS_LIST[0])
            first = Digests(t.store, sr_latin=False, clock=t.clock)
            await first.sift(game.id, [entry(eli, "k1:0", "Ana: one")])  # sent at once
            rec = digest.load(await t.store.get_attr(game.id, digest.ATTR))
            assert rec["n"][eli] == 1 and not digest.waiting(rec)
            # queued: the last digest was just now
            batch = [entry(eli, "k2:0", "Ana: two"), entry(eli, "k3:0", "Bo: three")]
            await first.sift(game.id, batch)
            await first.sift(game.id, batch)  # handed out again: queued once
            await first.stop()
            path = str(tmp_path / "talk.sqlite3")
            again = SqliteStore(path, clock=t.clock)
            try:
                t.clock.now += EVERY
                crashing = Digests(again, sr_latin=False, clock=t.clock)
                appended = again.append_outbox

                async def dies(game_id: str, messages: Sequence[OutboxMessage]) -> int:
                    if any(m.key.startswith(f"d:{eli}:2:") for m in messages):
                        raise ConnectionError("killed between the swap and the append")
                    return await appended(game_id, messages)

                again.append_outbox = dies  # type: ignore[method-assign]
                with pytest.raises(ConnectionError):
                    await crashing.sweep()
                again.append_outbox = appended  # type: ignore[method-assign]
                rec = digest.load(await again.get_attr(game.id, digest.ATTR))
                assert not digest.waiting(rec) and rec["out"][0][2] == "Ana: two\nBo: three"
                later = Digests(again, sr_latin=False, clock=t.clock)
                await later.sweep()  # nothing due: only the out digest appended again
                await crashing.stop()
                await later.stop()
            finally:
                await again.close()
            await t.settle()
            bodies = [b for b in fake.to(SMS_LIST[0]) if "Ana:" in b]
            assert bodies == ["Ana: one", "Ana: two\nBo: three"], bodies

    run(main())


def test_a_digest_carries_the_oldest_lines_that_fit_and_counts_the_rest() -> None:
    from adapters.sms.segments import segments

    lines = [f"Player{i}: " + "x" * 60 for i in range(12)]
    body, taken = digest.body_of(lines, "en", False)
    *carried, last = body.splitlines()
    assert carried == lines[:taken] and 0 < taken < len(lines)
    assert last == f"(+{len(lines) - taken} more lines in the next text)"
    assert segments(body) <= 3
    # one line more would not fit
    assert segments("\n".join(lines[: taken + 1])) > 3 or taken + 1 == len(lines)
    assert digest.body_of(["Ana: hi"], "nb", False) == ("Ana: hi", 1)
    assert digest.body_of(["Ana: hi", "Bo: yo"], "en", False) == ("Ana: hi\nBo: yo", 2)
    long = ["Ana: " + "y" * 600, "Bo: yo"]
    body, taken = digest.body_of(long, "nb", False)  # a line too long alone still goes
    assert taken == 1 and body.splitlines()[0] == long[0]
    assert body.splitlines()[-1] != "(+1 more line in the next text)"  # Norwegian


def test_a_digest_takes_its_lines_off_the_queue_and_leaves_the_rest() -> None:
    """A long backlog goes out over several digests, a gap apart, each
    line once and in order; none is dropped from the record."""
    from gameflow.core.campaign import fit

    rec: dict[str, Any] = {}
    players = [f"sms:{i}" for i in range(3)]
    for k in range(120):
        batch = [entry(p, f"t:{k}:{p}:0", f"Kari: {'x' * 80} {k}") for p in players]
        assert digest.queue(rec, batch) == 3
        assert digest.queue(rec, batch) == 0  # handed out again: queued once
    assert all(len(rec["q"][p]) == 120 for p in players)
    game = _campaign_game()
    now = fit(game, oslo(15, 12))
    texted: dict[str, list[str]] = {p: [] for p in players}
    times: list[float] = []
    while digest.waiting(rec):
        at = min(digest.next_time(game, rec, p, now) for p in digest.waiting(rec))
        assert at >= now
        now = at
        made = digest.make(game, rec, now, False)
        assert made
        times.append(now)
        for player, _, body, _ in made:
            lines = body.splitlines()
            if MORE.match(lines[-1]):
                assert int(MORE.match(lines[-1])[1]) == len(rec["q"][player])  # type: ignore[index]
                lines.pop()
            texted[player] += lines
    for p in players:
        assert texted[p] == [f"Kari: {'x' * 80} {k}" for k in range(120)]
    assert all(b - a >= digest.every(game) for a, b in itertools.pairwise(times))
    assert not any(quiet_ahead(game, at).inside for at in times)
    days = Counter(int((at - oslo(15, 0)) // 86400) for at in times)
    assert max(days.values()) <= digest.per_day(game) and len(days) > 1
    # a line split over two texts comes back as one
    digest.queue(
        rec, [entry("sms:9", "t:a:sms:9:0", "Bo: one"), entry("sms:9", "t:a:sms:9:1", "two")]
    )
    assert rec["q"]["sms:9"] == [["Bo: one two", False]]


def _campaign_game() -> Any:
    """A running campaign game in Oslo at the defaults (gap, cap, quiet hours)."""
    from tests.campaign_helpers import started

    game, _ = started("traitors", "Europe/Oslo", oslo(15, 12), players=6)
    assert digest.digesting(game)
    return game


make_store = store_fixture()


NAMES = ("Ana", "Bo", "Cy", "Dag", "Eli", "Fia")


async def sms_campaign(store: Any, clock: Any) -> tuple[Any, str, list[str]]:
    """A Traitors campaign of six SMS players at the digest defaults,
    talking through the real SMS talker, started, with the start's texts
    taken: the service, the game's id and the players' ids."""
    from adapters.sms.directory import player_id
    from adapters.sms.renderer import CHANNEL, SmsRenderer
    from adapters.sms.settings import SmsSettings
    from adapters.sms.talk import SmsTalker
    from gameflow.core import actions as A
    from service import talk
    from service.games import GameService

    ids = [player_id(f"+4791250{i:03d}", "k") for i in range(6)]
    renderer = SmsRenderer(SmsSettings("AC" + "0" * 32, "token", "https://x.test", id_key="k"))
    service = GameService(store, composers=[renderer], clock=clock)
    talk.add_talker(service.talkers, SmsTalker(renderer))
    options = {"pacing": "campaign", "timezone": "Europe/Oslo"}
    made = await service.create_game("traitors", "tg:1", lang="en", options=options)
    game_id = made.game.id
    for pid, name in zip(ids, NAMES, strict=True):
        assert (await service.submit(game_id, A.Join(pid, None, name))).accepted
    assert (await service.submit(game_id, A.Start("tg:1"))).accepted
    while start := await store.take(CHANNEL, game_id, "reader", min_idle=0):
        for e in start:  # the start's texts
            await store.ack(CHANNEL, game_id, e.key)
    return service, game_id, ids


def test_digests_on_each_store_across_a_restart(make_store: Any) -> None:
    """On SQLite and Redis: lines taken from the outbox as a worker takes
    them are queued, the first sent at once; a new store object and a new
    `Digests` (a restarted worker) sends the rest as one digest once the gap
    has passed, and a batch handed out again queues nothing twice."""
    from adapters.sms.renderer import CHANNEL
    from service import talk
    from tests.store_helpers import FakeClock

    clock = FakeClock(oslo(15, 12))

    async def main() -> None:
        async with make_store(clock=clock) as store:
            service, game_id, ids = await sms_campaign(store, clock)
            ana, others = ids[0], ids[1:]
            worker = Digests(store, sr_latin=False, clock=clock)
            got: dict[str, list[str]] = {p: [] for p in others}
            for n in range(5):  # taken and sifted as they come
                said = await service.talk(game_id, ana, f"line {n}", key=f"k{n}")
                assert said.status == talk.SENT
                batch = await store.take(CHANNEL, game_id, "w1", min_idle=0)
                assert sum(bool(e.payload.get("talk")) for e in batch) == 5
                for e in await worker.sift(game_id, batch):  # sent (the digests)
                    assert e.payload.get("digest"), e.key
                    got[e.payload["player"]].append(e.payload["body"])
                    await store.ack(CHANNEL, game_id, e.key)
                clock.now += 60
            await worker.stop()
        async with make_store(clock=clock) as store:  # the worker restarted
            again = Digests(store, sr_latin=False, clock=clock)
            talked = [e for e in batch if e.payload.get("talk")]
            assert await again.sift(game_id, talked) == []  # handed out again: nothing new
            clock.now += EVERY
            assert await again.sweep() == 1
            await again.stop()
            for e in await store.take(CHANNEL, game_id, "reader", min_idle=0):
                assert e.payload.get("digest"), e.key
                got[e.payload["player"]].append(e.payload["body"])
            want = ["Ana: line 0", "Ana: line 1\nAna: line 2\nAna: line 3\nAna: line 4"]
            assert got == dict.fromkeys(others, want), got

    run(main())


def test_talk_queued_before_a_mute_is_not_texted(tmp_path: Path) -> None:
    """Bo sends MUTE while a line waits in his digest queue and another
    waits in the outbox: neither reaches him (the outbox's is acked as
    skipped, the queued one dropped), the others get both."""
    from adapters.sms.renderer import CHANNEL
    from service import talk
    from tests.store_helpers import FakeClock

    clock = FakeClock(oslo(15, 12))

    async def main() -> None:
        store = SqliteStore(str(tmp_path / "mute.sqlite3"), clock=clock)
        try:
            service, game_id, ids = await sms_campaign(store, clock)
            ana, bo, rest = ids[0], ids[1], ids[2:]
            worker = Digests(store, sr_latin=False, clock=clock)
            got: dict[str, list[str]] = {p: [] for p in ids[1:]}

            async def deliver() -> None:
                for e in await worker.sift(game_id, await store.take(CHANNEL, game_id, "w")):
                    got[e.payload["player"]].append(e.payload["body"])
                    await store.ack(CHANNEL, game_id, e.key)

            for n in range(2):  # the first goes at once, the second is queued
                await service.talk(game_id, ana, f"line {n}", key=f"k{n}")
                await deliver()
            await service.talk(game_id, ana, "line 2", key="k2")  # in the outbox
            await talk.texts(store, await service.load(game_id), bo, False)  # MUTE
            await deliver()
            clock.now += EVERY
            await worker.sweep()
            await deliver()
            await worker.stop()
            assert got[bo] == ["Ana: line 0"]
            for p in rest:
                assert got[p] == ["Ana: line 0", "Ana: line 1\nAna: line 2"], got[p]
            assert not digest.waiting(digest.load(await store.get_attr(game_id, digest.ATTR)))
        finally:
            await store.close()

    run(main())
