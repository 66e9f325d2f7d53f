"""The one-message choice drafts and the open prompts live in the game store,
not in a worker's memory: a draft half filled in before a restart is finished
after it, two workers on one Redis share drafts (a press may reach either),
two quick taps handled by two workers at once are both taken, a press Telegram
delivers twice is taken once, and a phase change closes the keyboards of
prompts another worker (or the previous run) sent."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from adapters.store.redis_store import RedisStore
from adapters.telegram.choice import Draft, draft_attr
from adapters.telegram.notifier import OPEN_ATTR, parse_open
from adapters.telegram.record import Open
from gameflow.core import actions as A
from gameflow.games.station.state import Choice
from tests.fake_telegram import FakeBotApi, Harness, Users, buttons, serving
from tests.store_helpers import FakeClock, drop_prefix, redis_url_or_fail, run, unique_prefix
from tests.telegram_helpers import clocked_store
from tests.test_telegram import GROUP, HOST, PEOPLE, current, editor_of, lobby

pytestmark = pytest.mark.telegram


async def tap(h: Harness, uid: int, message_id: int, label: str) -> str | None:
    """Press the button labelled `label` in the message as it looks now."""
    message = current(h, uid, message_id)
    data = next((d for t, d in buttons(message) if t == label), None)
    assert data is not None, (label, buttons(message))
    return await h.press(uid, PEOPLE.get(uid, "P"), message, data)


def heading(h: Harness, uid: int, message_id: int) -> str:
    return str(current(h, uid, message_id)["text"]).splitlines()[-1]


async def time_runs_out(h: Harness, clock: FakeClock, game_id: str, *, settle: bool = True) -> None:
    """The phase's deadline, submitted in `h` as its scheduler would."""
    game = await h.service.load(game_id)
    assert game.phase.deadline is not None
    clock.now = game.phase.deadline + 1
    seq = game.phase.seq
    assert (await h.service.submit(game_id, A.Deadline(None, seq), key=f"due:{seq}")).accepted
    if settle:
        await h.tg.settled()


@contextlib.asynccontextmanager
async def redis_stores(n: int) -> AsyncIterator[list[RedisStore]]:
    """`n` clients of one Redis under one fresh key prefix: `n` workers' stores."""
    url, prefix = redis_url_or_fail(), unique_prefix()
    stores = [RedisStore.from_url(url, prefix=prefix) for _ in range(n)]
    try:
        yield stores
    finally:
        for store in stores:
            await store.close()
        await drop_prefix(url, prefix)


@contextlib.asynccontextmanager
async def two_workers() -> AsyncIterator[tuple[Harness, Harness]]:
    """Two workers of the bot on one Redis (their own store clients), one fake
    Bot API, one clock and one set of users (update ids never collide)."""
    clock, users = FakeClock(), Users()
    async with (
        redis_stores(2) as (one, two),
        serving(FakeBotApi()) as api,
        Harness(api, one, clock, users) as a,
        Harness(api, two, clock, users) as b,
    ):
        yield a, b


def test_a_draft_survives_a_restart(tmp_path: Path) -> None:
    async def go() -> None:
        clock, store = clocked_store(tmp_path)
        users = Users()
        async with serving(FakeBotApi()) as api:
            async with Harness(api, store, clock, users) as h:
                _, game_id = await lobby(h)
                await h.command(HOST, "Hana", "/startgame", chat_id=GROUP)
                mid = editor_of(h, 11)["message_id"]
                assert await tap(h, 11, mid, "2") is None  # plan 2
                assert heading(h, 11, mid) == "Choose your job:"
                assert await tap(h, 11, mid, "radio") is None
                assert heading(h, 11, mid) == "Choose your partner:"
            # a new Application, service and outbound queue on the same store
            async with Harness(api, store, clock, users) as h2:
                assert await tap(h2, 11, mid, "Bo") is None
                game = await h2.service.load(game_id)
                if game.rules.infiltrator[0]:
                    assert heading(h2, 11, mid) == "Secret action:"
                    assert await tap(h2, 11, mid, "No secret action") is None
                assert await tap(h2, 11, mid, "Send choice") is None
                assert current(h2, 11, mid)["text"].startswith("Choice locked: plan 2")
                game = await h2.service.load(game_id)
                assert game.rules.choices[0] == Choice(1, "radio", 1, False, False)

                # The mission's time runs out: the new run closes the keyboards
                # the old run sent (it knows them from the store) ...
                before = len(api.sent("editMessageReplyMarkup"))
                await time_runs_out(h2, clock, game_id)
                game = await h2.service.load(game_id)
                assert game.phase.name == "discussion"
                closed = api.sent("editMessageReplyMarkup")[before:]
                assert sorted(c.chat_id for c in closed) == [12, 13, 14, 15]
                for uid in (12, 13, 14, 15):
                    assert all("reply_markup" not in m for m in api.chat(uid)), uid
                # ... but not Ana's answered one, and the record is empty again
                assert "reply_markup" not in current(h2, 11, mid)
                assert parse_open(await store.get_attr(game_id, OPEN_ATTR)) == {}
        await store.close()

    run(go())


def test_two_workers_share_drafts_and_close_each_others_prompts() -> None:
    async def go() -> None:
        async with two_workers() as (a, b):
            api, clock, one, two = a.api, a.clock, a.store, b.store
            _, game_id = await lobby(a)
            await a.command(HOST, "Hana", "/startgame", chat_id=GROUP)  # a sends the prompts
            mid = editor_of(a, 12)["message_id"]
            # Bo's taps alternate between the workers
            assert await tap(b, 12, mid, "3") is None
            assert await tap(a, 12, mid, "outside") is None
            assert heading(b, 12, mid) == "Choose your partner:"
            assert await tap(b, 12, mid, "no partner") is None
            game = await b.service.load(game_id)
            if game.rules.infiltrator[1]:
                assert await tap(a, 12, mid, "No secret action") is None
            stored = Draft.loads(await one.get_attr(game_id, draft_attr(1)))
            assert stored is not None and stored.values["plan"] == 3
            assert await tap(a, 12, mid, "Send choice") is None
            game = await b.service.load(game_id)
            assert game.rules.choices[1] == Choice(2, "outside")
            # every delivered prompt is recorded until answered (Bo's is)
            recorded = parse_open(await two.get_attr(game_id, OPEN_ATTR))
            assert sorted(recorded) == ["tg:11", "tg:13", "tg:14", "tg:15"]

            # the deadline fires in worker b: it closes the keyboards worker a sent
            await time_runs_out(b, clock, game_id)
            await a.tg.settled()
            for uid in (11, 13, 14, 15):
                assert all("reply_markup" not in m for m in api.chat(uid)), uid
            assert current(b, 12, mid)["text"].startswith("Choice locked: plan 3")
            assert parse_open(await one.get_attr(game_id, OPEN_ATTR)) == {}

    run(go())


async def resistance_leader(a: Harness, b: Harness) -> tuple[str, int, int]:
    """A 5-player Resistance game over two workers, up to the leader's team
    editor: (game id, leader's user id, editor message id)."""
    await a.command(HOST, "Hana", "/new resistance")
    code = re.search(r"start=([A-Z]+)", a.api.texts(HOST)[-1])
    assert code is not None
    game_id = await a.store.game_for_code(code.group(1))
    assert game_id is not None
    await a.command(HOST, "Hana", "/set plot_cards false")  # the team is all the leader does
    for i, (uid, name) in enumerate(PEOPLE.items()):
        await (a if i % 2 else b).command(uid, name, f"/join {code.group(1)}")
    await b.command(HOST, "Hana", "/startgame")
    game = await a.service.load(game_id)
    leader = int(game.players[game.rules.leader].removeprefix("tg:"))
    message = editor_of(a, leader)
    if any(t == "Propose a team" for t, _ in buttons(message)):
        await tap(a, leader, message["message_id"], "Propose a team")  # opens the draft
    assert heading(a, leader, message["message_id"]) == "Pick the team, then tap Done:"
    return game_id, leader, message["message_id"]


def test_two_quick_taps_on_two_workers_are_both_taken_and_a_redelivery_once() -> None:
    async def go() -> None:
        async with two_workers() as (a, b):
            api, users, one, two = a.api, a.users, a.store, b.store
            game_id, leader, mid = await resistance_leader(a, b)
            game = await a.service.load(game_id)
            seq = game.phase.seq
            seat = game.seat(f"tg:{leader}")
            message = current(a, leader, mid)
            names = [(t, d) for t, d in buttons(message) if t in PEOPLE.values()][:2]
            # both taps from the same keyboard, at the same time, one per worker
            first = users.press(leader, "L", message, names[0][1])
            second = users.press(leader, "L", message, names[1][1])
            assert await asyncio.gather(a.post(first), b.post(second)) == [200, 200]
            await a.tg.settled()
            await b.tg.settled()
            draft = Draft.loads(await one.get_attr(game_id, draft_attr(seat)))
            picked = [game.players[game.names.index(t)] for t, _ in names]
            assert draft is not None and sorted(draft.values["team"]) == sorted(picked)
            # Telegram delivers the first tap again, to the other worker: no untoggle
            assert await b.post(first) == 200
            await b.tg.settled()
            again = Draft.loads(await two.get_attr(game_id, draft_attr(seat)))
            assert again is not None and sorted(again.values["team"]) == sorted(picked)
            assert await tap(b, leader, mid, "Done") is None
            assert await tap(a, leader, mid, "Propose a team") is None
            game = await b.service.load(game_id)
            assert sorted(game.rules.team) == sorted(game.seat(p) for p in picked)

            # Everyone votes, alternating workers. Worker b's own copy of the
            # game is still in the proposal (it committed nothing since): a
            # vote there is checked again on the stored game, not refused.
            vote, votes = (await a.service.load(game_id)).phase.seq, 0
            assert vote > seq
            while (await a.service.load(game_id)).phase.seq == vote:
                uid, message, data = next(
                    (uid, m, d)
                    for uid in PEOPLE
                    for m in api.chat(uid)
                    for t, d in buttons(m)
                    if t == "Yes" and f"|{vote}|" in d
                )
                h = b if votes % 2 == 0 else a
                assert await h.press(uid, PEOPLE[uid], message, data) is None, uid
                votes += 1
            assert votes == len(PEOPLE)

    run(go())


def test_a_prompt_whose_phase_closed_in_another_worker_gets_no_keyboard() -> None:
    """Worker a queues the mission prompts but is slow to send them; worker b
    fires the deadline meanwhile. Worker a holds the game's outbox batch, so
    b's close waits behind it in the outbox (a game's messages go in commit
    order); a prompt caught in the middle (checked, then sent after b's
    close) takes its own keyboard away, and the close takes the others':
    nobody is left with buttons of a closed question."""

    async def go() -> None:
        async with two_workers() as (a, b):
            api, clock, users, one = a.api, a.clock, a.users, a.store
            _, game_id = await lobby(a)
            await a.tg.outbound.stop()  # a is slow: what it queues waits
            start = users.command(HOST, "Hana", "/startgame", chat_id=GROUP)
            assert await a.post(start) == 200
            started = await a.service.load(game_id)
            assert started.phase.name == "mission"
            notifier = a.tg.notifier
            checks: list[str] = []
            real = notifier.records.read
            closed_in_b = asyncio.Event()

            async def read(game: str) -> tuple[int, Open]:
                checks.append(game)
                if len(checks) == 1:  # the first prompt passes its check, and then
                    found = await real(game)  # the phase closes in worker b
                    # (not settled in b: worker a holds the game's outbox batch)
                    await time_runs_out(b, clock, game_id, settle=False)
                    closed_in_b.set()
                    return found
                await closed_in_b.wait()  # the other prompts are checked after that
                return await real(game)

            notifier.records.read = read  # type: ignore[method-assign]
            await a.tg.outbound.start()
            await a.tg.settled()
            await b.tg.settled()
            assert (await b.service.load(game_id)).phase.name == "discussion"
            prompted = {
                uid
                for uid in PEOPLE
                if any(str(m.get("text", "")).startswith("Round 1:") for m in api.chat(uid))
            }
            for uid in PEOPLE:
                assert all("reply_markup" not in m for m in api.chat(uid)), uid
            # Every prompt that went out lost its keyboard again.
            closed = {c.chat_id for c in api.sent("editMessageReplyMarkup")}
            assert prompted and prompted <= closed, (prompted, closed)
            assert parse_open(await one.get_attr(game_id, OPEN_ATTR)) == {}

    run(go())
