"""The one rule for trying again (service/backoff.py): the first wait, then
twice the last, never above the ceiling; a success starts over."""

from __future__ import annotations

from service.backoff import Backoff, doubled


def test_waits_double_up_to_the_ceiling_and_start_over() -> None:
    b = Backoff(1.0, 10.0)
    assert [b.failed() for _ in range(6)] == [1.0, 2.0, 4.0, 8.0, 10.0, 10.0]
    assert b.failures == 6
    b.reset()
    assert (b.wait, b.failures) == (None, 0) and b.failed() == 1.0


def test_doubled_from_a_stored_wait() -> None:
    assert doubled(None, 2.0, 60.0) == 2.0
    assert doubled(2.0, 2.0, 60.0) == 4.0 and doubled(40.0, 2.0, 60.0) == 60.0
