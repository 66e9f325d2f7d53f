"""Away players by SMS (#21 item 5), through signed Twilio webhooks and the fake
Twilio, in the three languages: AWAY / BORTE / ODSUTAN date, BACK / TILBAKE /
NAZAD.

The player is told in the game's language; the host's phone gets exactly one
text about it (not again for a new date); the scheduler's reminder (the real
DeadlineScheduler job into the SMS delivery) texts everyone awaited but them;
deadlines take their defaults and the host hears of the others' missed
deadlines, never of theirs; the public view has nothing about it."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import pytest

from gameflow.core import actions as A
from gameflow.core.engine import view
from scheduler.deadlines import DeadlineScheduler
from scheduler.plan import REMINDER, plan
from scheduler.service_ports import ServiceSink, StoreSource
from tests.fake_twilio import FakeTwilio
from tests.sms_helpers import World
from tests.store_helpers import run

pytestmark = pytest.mark.sms

HOST = "+4791259999"
PHONES = [f"+4791250{i:03d}" for i in range(5)]
NAMES = ["Ana", "Bo", "Cy", "Dag", "Eli"]
T0 = datetime(2027, 1, 15, 12, 0, tzinfo=UTC).timestamp()

# (NEW words, AWAY word, BACK word, what the confirmation says, the host's text)
LANGS = {
    "en": ("NEW STATION", "AWAY", "BACK", "away through 2027-01-20", "Ana is away through"),
    "nb": ("NY STASJON", "BORTE", "TILBAKE", "borte til og med 2027-01-20", "Ana er borte"),
    "sr": ("NOVA STANICA", "ODSUTAN", "NAZAD", "odsutan zaključno sa 2027-01-20", "Ana je odsutan"),
}
REMINDERS = {"en": "Reminder", "nb": "Påminnelse", "sr": "Podsetnik"}


@pytest.mark.parametrize("lang", ["en", "nb", "sr"])
def test_away_by_sms(fake: FakeTwilio, lang: str) -> None:
    new, away, back, confirmed, host_line = LANGS[lang]
    ana = PHONES[0]

    async def main() -> None:
        w = World(fake, rate=0)
        try:
            w.clock.now = T0
            await w.text(HOST, new)
            found = re.search(r"\b([A-Z]{4})\b", w.inbox(HOST)[0].split("\n")[0])
            assert found is not None, w.inbox(HOST)
            game_id = await w.store.game_for_code(found.group(1))
            assert game_id is not None
            for phone, name in zip(PHONES, NAMES, strict=True):
                await w.text(phone, f"JOIN {found.group(1)} {name}")
            await w.text(HOST, "START GAME")
            game = await w.service.load(game_id)
            assert game.running and game.lang == lang

            # an unreadable date: the usage line, nothing submitted
            await w.text(ana, f"{away} someday")
            assert "2027-01-20" in w.last(ana)
            assert (await w.service.load(game_id)).away == ()

            host_before = len(w.inbox(HOST))
            await w.text(ana, f"{away.lower()} 2027-01-20")
            assert confirmed.casefold() in w.last(ana).casefold(), w.last(ana)
            game = await w.service.load(game_id)
            assert [p for p, _ in game.away] == [w.pid(ana)]
            about = [t for t in w.inbox(HOST)[host_before:] if "Ana" in t]
            assert len(about) == 1 and host_line in about[0], w.inbox(HOST)[host_before:]
            await w.text(ana, f"{away} 3")  # a new date: the host is not told again
            assert "2027-01-18 12:00" in w.last(ana)
            assert [t for t in w.inbox(HOST)[host_before:] if "Ana" in t] == about

            # the scheduler's reminder: everyone awaited but Ana
            game = await w.service.load(game_id)
            job = next(j for j in plan(game, w.clock.now) if j.kind == REMINDER)
            sink = ServiceSink(w.service, w.store, [w.sms.delivery])
            sched = DeadlineScheduler(StoreSource(w.store), sink, clock=w.clock)
            w.clock.now = job.at
            await sched._fire_reminder(game_id, job.seq, job.job_id, job.at)
            await w.sms.drain()
            word = REMINDERS[lang]
            reminded = [p for p in PHONES if any(word in t for t in w.inbox(p))]
            assert reminded == PHONES[1:], {p: w.inbox(p)[-1:] for p in PHONES}

            # nobody answers for four deadlines: only the others are reported
            for _ in range(4):
                game = await w.service.load(game_id)
                w.clock.now = max(w.clock.now, game.phase.deadline or w.clock.now)
                out = await w.service.submit(game_id, A.Deadline(None, game.phase.seq))
                assert out.accepted
                await w.sms.drain()
            game = await w.service.load(game_id)
            assert game.missed[0] == 0 and all(m >= 2 for m in game.missed[1:])
            later = [t for t in w.inbox(HOST)[host_before:] if "Ana" in t]
            assert later == about, later  # the one text, nothing about missed deadlines
            assert any("Bo" in t for t in w.inbox(HOST)[host_before:])
            public = json.dumps(view(game, None), ensure_ascii=False).casefold()
            for trace in ("away", "borte", "odsut", "2027-01-18", "2027-01-20"):
                assert trace not in public

            await w.text(ana, back)
            assert (await w.service.load(game_id)).away == ()
            await w.text(ana, back)  # not away any more: the core says so
            assert w.last(ana) != ""
        finally:
            await w.close()

    run(main())
