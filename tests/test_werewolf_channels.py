"""Whole Werewolf games through the real wire formats (issue #34): by text,
each player a typist acting only on its newest question text through signed
Twilio webhooks (tests/sms_table.py: no offered answer refused, nobody waited
for whose newest text lacks the question); and on Telegram, people tapping the
buttons their newest messages hold at the fake Bot API, none of which the
game refuses."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from gameflow.core import actions as A
from tests.fake_twilio import FakeTwilio
from tests.sms_table import Table
from tests.store_helpers import run
from tests.telegram_helpers import telegram_bot
from tests.test_sms_play import play
from tests.test_telegram_games import Recorder, live_buttons, press_any, run_out, started

pytestmark = pytest.mark.werewolf


@pytest.mark.sms
@pytest.mark.parametrize(("lang", "n", "seed"), [("nb", 7, 1), ("sr", 9, 2), ("en", 6, 3)])
def test_werewolf_by_text(fake: FakeTwilio, lang: str, n: int, seed: int) -> None:
    async def body(w: Any) -> None:
        t = Table(w, "werewolf", n, lang, seed)
        await t.open(options={"pacing": "fast"})
        game = await t.play()
        assert game.over and game.winner in ("village", "wolves")
        assert t.answers > n and t.checks > 0
        assert {"kill", "lynch"} <= set(t.kinds), t.kinds

    play(fake, body)


@pytest.mark.telegram
@pytest.mark.parametrize(("players", "seed"), [(6, 1), (10, 2)])
def test_werewolf_over_telegram(players: int, seed: int, tmp_path: Path) -> None:
    async def go() -> None:
        async with telegram_bot(tmp_path) as (api, h):
            recorder = Recorder()
            h.service.notifiers.append(recorder)
            refused: list[Any] = []
            answered: list[A.Action] = []
            submit = h.service.submit

            async def watched(game_id: str, action: A.Action, **kw: Any) -> Any:
                outcome = await submit(game_id, action, **kw)
                if not isinstance(action, A.Deadline):
                    answered.append(action)
                    if outcome.rejected is not None:
                        refused.append((action, outcome.rejected))
                return outcome

            h.service.submit = watched  # type: ignore[method-assign]
            game_id, people = await started(h, "werewolf", players)
            rng = random.Random(seed)
            kinds: set[str] = set()
            presses = 0
            for _ in range(1500):
                game = await h.service.load(game_id)
                if game.over:
                    break
                options = live_buttons(api, people, game.phase.seq)
                if not options:
                    await run_out(h, game_id, game)
                    continue
                await press_any(h, game, people, options, rng)
                presses += 1
                after = await h.service.load(game_id)
                if after.version != game.version:
                    kinds.add(game.phase.name)
            assert game.over, (game.phase, presses)
            assert refused == []  # 0 refused offered answers
            assert len(answered) > players, answered  # the presses went through the service
            assert {"night", "vote"} <= kinds, kinds
            recorder.check(api)  # private texts to their addressees only, never the group
            await h.service.verify(game_id)

    run(go())
