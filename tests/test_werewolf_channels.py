"""Whole Werewolf games through the real wire formats (issue #34): by text,
each player a typist acting only on its newest question text through signed
Twilio webhooks (tests/sms_table.py: no offered answer refused, nobody waited
for whose newest text lacks the question); and on Telegram, people tapping the
buttons the fake Bot API holds for them, none of which is refused."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from adapters.telegram.keyboards import decode
from gameflow.core import actions as A
from tests.fake_telegram import buttons
from tests.fake_twilio import FakeTwilio
from tests.sms_table import Table
from tests.store_helpers import run
from tests.telegram_helpers import telegram_bot
from tests.test_sms_play import play
from tests.test_telegram_games import GROUP, HOST, NAMES, Recorder, live_buttons

pytestmark = pytest.mark.werewolf


@pytest.mark.sms
@pytest.mark.parametrize(("lang", "n", "seed"), [("nb", 7, 1), ("sr", 9, 2), ("en", 6, 3)])
def test_werewolf_by_text(fake: FakeTwilio, lang: str, n: int, seed: int) -> None:
    async def body(w: object) -> None:
        t = Table(w, "werewolf", n, lang, seed)  # type: ignore[arg-type]
        await t.open(options={"pacing": "fast"})
        game = await t.play()
        assert game.over and game.winner in ("village", "wolves")
        assert t.answers > n and t.checks > 0
        assert {"kill", "lynch"} <= set(t.kinds), t.kinds

    play(fake, body)

