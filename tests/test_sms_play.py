"""Whole games played by text, as people play them: every player is a typist
that acts only on its newest question text (tests/sms_typist.py), answers go
in as signed Twilio webhooks, texts come out at the fake Twilio on loopback,
and deadlines expire on the injected clock. No answer that a menu offered is
refused, and nobody is waited for whose newest text does not hold the
question (tests/sms_table.py checks both after every step)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator

import pytest

from tests.fake_twilio import FakeTwilio
from tests.sms_helpers import World
from tests.sms_table import Table
from tests.store_helpers import run

pytestmark = pytest.mark.sms


@pytest.fixture
def fake() -> Iterator[FakeTwilio]:
    with FakeTwilio() as server:
        yield server


def play(fake: FakeTwilio, body: Callable[[World], Awaitable[None]], **settings: object) -> None:
    async def main() -> None:
        world = World(fake, rate=0, **settings)
        try:
            await body(world)
        finally:
            await world.close()

    run(main())


@pytest.mark.parametrize(("lang", "seed"), [("nb", 1), ("sr", 2), ("en", 3)])
def test_station_by_text(fake: FakeTwilio, lang: str, seed: int) -> None:
    async def body(w: World) -> None:
        t = Table(w, "station", 7, lang, seed)
        await t.open()
        game = await t.play()
        assert game.over and t.answers > 20 and t.deadlines > 0 and t.checks > 0
        assert {"choose", "vote"} <= set(t.kinds)

    play(fake, body)
