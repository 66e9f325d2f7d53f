"""A whole Station campaign by SMS over a simulated week: nobody is woken up (#21).

Five SMS players and an SMS host play Station as a campaign (`pacing`
campaign, Europe/Oslo, the default windows 18:00 / 20:00 / 22:00 and quiet
hours 23:00-07:00) from a Wednesday evening to the next Tuesday, across the
night the clocks go forward (28 March 2027). Time is injected: before each
answer the clock moves to a random moment of the phase, at night too, and a
phase nobody finishes runs to its deadline as the scheduler would end it.
Every player acts only on their own newest text (tests/sms_typist.py), through
signed webhooks; the fake Twilio stamps every text it accepts with the game's
clock.

Checked from the outside: no text reaches a phone in the quiet hours, except
the immediate reply to a text that phone sent that very moment (an error, a
refusal: answering someone who is awake wakes nobody); what was held came
when the quiet hours ended; every deadline fell on its clock time in Oslo;
a round a day, until the game ended (one side won, at the latest after six).
Run with `-s` for the figures."""

from __future__ import annotations

import itertools
import random
from datetime import datetime

import pytest

from tests.campaign_helpers import in_quiet, instant, wall
from tests.fake_twilio import FakeTwilio
from tests.sms_helpers import World
from tests.sms_table import HOST_PHONE, Table
from tests.store_helpers import run

pytestmark = [pytest.mark.sms, pytest.mark.campaign]

OSLO = "Europe/Oslo"
WINDOWS = {(18, 0), (20, 0), (22, 0)}


def local(t: float) -> datetime:
    return wall(OSLO, t)


def quiet(t: float) -> bool:
    return in_quiet(OSLO, t)  # the default quiet hours, 23:00-07:00


def moment(rng: random.Random, now: float, deadline: float) -> float:
    """When somebody next picks up their phone in this phase: any time, and
    one time in two in the coming night, when the phase runs through one."""
    if rng.random() < 0.5:
        night = local(now).replace(hour=23, minute=0, second=0, microsecond=0).timestamp()
        if night <= now:
            night = now + 60
        at = night + rng.uniform(0, 7.5 * 3600)
        if at < deadline - 1:
            return at
    return rng.uniform(now, deadline - 1)


def test_a_week_long_station_campaign_by_sms_wakes_nobody(fake: FakeTwilio) -> None:
    async def main() -> None:
        w = World(fake, rate=0)
        fake.clock = w.clock
        rng = random.Random(21)
        try:
            w.clock.now = instant(OSLO, 2027, 3, 24, 19, 0)  # a Wednesday
            table = Table(w, "station", 5, "nb", seed=21)
            await table.open(options={"pacing": "campaign", "timezone": "Europe/Oslo"})
            texted: set[tuple[str, float]] = set()  # (phone, clock) of each text a player sent
            deadlines: dict[int, float] = {}
            night_answers = 0
            for _ in range(3000):
                game = await table.game()
                if game.over:
                    break
                if game.phase.deadline is not None:
                    deadlines[game.phase.seq] = game.phase.deadline
                acted = False
                if game.phase.deadline is not None and rng.random() < 0.8:
                    # somebody picks up their phone at some moment of the phase
                    w.clock.now = moment(rng, w.clock.now, game.phase.deadline)
                    await w.sms.drain()  # what the quiet hours held goes once they end
                    for i in rng.sample(range(table.n), table.n):
                        phone = table.phones[i]
                        text = table.typists[i].turn(w.inbox(phone))
                        if text is None:
                            continue
                        texted.add((phone, w.clock.now))
                        night_answers += quiet(w.clock.now)
                        await w.text(phone, text)
                        acted = True
                        break
                if not acted:
                    await table.expire(game)
            game = await table.game()
            assert game.over, game.phase
            # No text in the quiet hours but a reply in the very moment its phone texted.
            woken = [
                (m["to"], local(m["clock"]).isoformat(), m["body"][:40])
                for m in fake.messages
                if m["to"] != HOST_PHONE
                and quiet(m["clock"])
                and (m["to"], m["clock"]) not in texted
            ]
            assert not woken, woken[:5]
            assert night_answers > 0, "nobody answered at night: the hold went untested"
            # Every deadline on a window's clock time, in Oslo, across the DST switch.
            off = {
                seq: local(t).strftime("%a %H:%M")
                for seq, t in deadlines.items()
                if (local(t).hour, local(t).minute) not in WINDOWS
            }
            assert not off, off
            # a round a day from Thursday, until one side won (at the latest after six)
            days = sorted({local(t).date() for t in deadlines.values()})
            assert days[0].isoformat() == "2027-03-25" and 3 <= len(days) <= 6, days
            assert all((b - a).days == 1 for a, b in itertools.pairwise(days)), days
            assert any(
                local(t).utcoffset() != local(min(deadlines.values())).utcoffset()
                for t in deadlines.values()
            ), "the campaign did not cross the DST switch"
            print(
                f"\n{len(fake.messages)} texts, {night_answers} answers in the night, "
                f"{len(deadlines)} deadlines on {len(days)} days"
            )
        finally:
            await w.close()

    run(main())
