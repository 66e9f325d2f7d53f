"""Away players get no reminders (#21 item 5), and are reminded again once
their date has passed. The real DeadlineScheduler on a frozen clock, as in
tests/test_scheduler.py."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import time_machine
from test_scheduler import Rig, run, station

from gameflow.core import actions as A
from gameflow.replay import EPOCH

pytestmark = pytest.mark.scheduler


@pytest.fixture
def clock() -> Iterator[time_machine.Coordinates]:
    with time_machine.travel(EPOCH, tick=False) as traveller:
        yield traveller


def test_no_reminder_goes_to_a_player_away(clock: time_machine.Coordinates) -> None:
    async def body(rig: Rig) -> None:
        rig.act(A.Away("bo", None, EPOCH + 86_400.0))
        await rig.at(EPOCH + 540)
        seq = rig.game().phase.seq
        assert rig.service.reminders == [("g1", seq, (0, 2, 3, 4), EPOCH + 540)]  # not bo (1)

    run(clock, body)


def test_everyone_awaited_away_means_no_reminder_at_all(clock: time_machine.Coordinates) -> None:
    async def body(rig: Rig) -> None:
        for p in ("ana", "bo", "cy", "dag", "eli"):
            rig.act(A.Away(p, None, EPOCH + 86_400.0))
        await rig.at(EPOCH + 540)
        assert rig.service.reminders == []

    run(clock, body)


def test_back_after_the_date_they_are_reminded_again(clock: time_machine.Coordinates) -> None:
    async def body(rig: Rig) -> None:
        rig.act(A.Away("bo", None, EPOCH + 500.0))  # back before the reminder at 540
        await rig.at(EPOCH + 540)
        assert [r[2] for r in rig.service.reminders] == [(0, 1, 2, 3, 4)]

    run(clock, body, station())
