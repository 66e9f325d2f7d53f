"""Away players over Telegram's wire format (#21 item 5): `/away DATE` through
the real webhook and PTB Application, the fake Bot API collecting what goes out.

A player says they are away: they are told so in their language, the host gets
exactly one message about it (not again for a new date), the scheduler's
reminder skips them (the real DeadlineScheduler firing its job into the real
notifier), deadlines take their defaults without reporting them to the host as
missing, and neither the group nor the public view shows anything about it."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from adapters.tv.screens import render_page
from gameflow.core.engine import view
from scheduler.deadlines import DeadlineScheduler
from scheduler.plan import REMINDER, plan
from scheduler.service_ports import ServiceSink, StoreSource
from tests.store_helpers import run
from tests.telegram_helpers import telegram_bot
from tests.test_telegram_table import HOST, Table

pytestmark = pytest.mark.telegram

PEOPLE = {300 + i: name for i, name in enumerate(["Ana", "Bo", "Cy", "Dag", "Eli"])}
ANA, BO = 300, 301
GROUP = -500
T0 = datetime(2027, 1, 15, 12, 0, tzinfo=UTC).timestamp()


def test_away_on_telegram(tmp_path: Path) -> None:
    async def main() -> None:
        async with telegram_bot(tmp_path, "away.sqlite3", now=T0) as (api, h):
            clock, store = h.clock, h.store
            table = Table(h, PEOPLE)
            game_id = await table.open("station", group=GROUP)
            host_before = len(api.texts(HOST))
            group_before = len(api.texts(GROUP))

            # unknown input: a helpful line, nothing submitted
            version = (await table.game()).version
            await h.command(ANA, "Ana", "/away someday")
            assert "/away YYYY-MM-DD" in api.texts(ANA)[-1]
            await h.command(ANA, "Ana", "/away")
            assert "/away off" in api.texts(ANA)[-1]
            await h.command(ANA, "Ana", "/away 2020-01-01")  # past: the core says why
            assert "in the future" in api.texts(ANA)[-1]
            assert (await table.game()).version == version

            await h.command(ANA, "Ana", "/away 2027-01-20")
            assert re.search(r"away through 2027-01-20", api.texts(ANA)[-1])
            game = await table.game()
            assert game.away and game.away[0][0] == game.players[0]
            about = [t for t in api.texts(HOST)[host_before:] if "Ana" in t and "away" in t]
            assert len(about) == 1 and "2027-01-20" in about[0], api.texts(HOST)
            # a new date: Ana is told, the host is not told again
            await h.command(ANA, "Ana", "/away 3")
            assert "away until 2027-01-18 12:00" in api.texts(ANA)[-1]
            about = [t for t in api.texts(HOST)[host_before:] if "Ana" in t and "away" in t]
            assert len(about) == 1

            # the scheduler's reminder goes to everyone awaited but Ana
            game = await table.game()
            job = next(j for j in plan(game, clock.now) if j.kind == REMINDER)
            sink = ServiceSink(h.service, store, [h.tg.notifier])
            sched = DeadlineScheduler(StoreSource(store), sink, clock=lambda: clock.now)
            clock.now = job.at
            await sched._fire_reminder(game_id, job.seq, job.job_id, job.at)
            await h.tg.settled()
            reminded = [uid for uid in PEOPLE if any("Reminder" in t for t in api.texts(uid))]
            assert reminded == [uid for uid in PEOPLE if uid != ANA]

            # nobody answers, deadline after deadline: the defaults apply
            # for Ana as for the rest, and only the others are reported
            for _ in range(4):
                await table.deadline()
            game = await table.game()
            assert game.missed[0] == 0 and all(m >= 2 for m in game.missed[1:])
            host_news = "\n".join(api.texts(HOST)[host_before:])
            assert "Bo has missed two deadlines" in host_news
            assert "Ana has missed" not in host_news

            # nothing public says anything about it
            group = "\n".join(api.texts(GROUP)[group_before:]).casefold()
            assert "away" not in group and "2027-01-20" not in group
            public = json.dumps(view(game, None)).casefold()
            assert "away" not in public and "2027-01-18" not in public
            # the status page (TV) is drawn from that view: the same page
            # as if nobody had said anything
            page = render_page(view(game, None), None, clock.now)
            assert page == render_page(view(game._replace(away=()), None), None, clock.now)
            assert "2027-01-18" not in page and "borte" not in page.casefold()

            # back by hand
            await h.command(ANA, "Ana", "/away off")
            assert "Welcome back" in api.texts(ANA)[-1]
            assert (await table.game()).away == ()
            await h.command(ANA, "Ana", "/away off")
            assert "not marked as away" in api.texts(ANA)[-1]

    run(main())
