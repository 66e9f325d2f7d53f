"""The host marks a player gone for good over Telegram's wire format (issue
#32 item 1): `/gone NAME` and `/back NAME` through the real webhook and PTB
Application, the fake Bot API collecting what goes out. The table is told in
the group; anyone else is refused and nothing changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from gameflow.core.away import gone_players
from tests.store_helpers import run
from tests.telegram_helpers import telegram_bot
from tests.test_away_telegram import ANA, BO, GROUP, PEOPLE, T0  # the same table
from tests.test_telegram_table import HOST, Table

pytestmark = pytest.mark.telegram


def test_gone_and_back_on_telegram(tmp_path: Path) -> None:
    async def main() -> None:
        async with telegram_bot(tmp_path, "gone.sqlite3", now=T0) as (api, h):
            table = Table(h, PEOPLE)
            await table.open("station", group=GROUP)
            version = (await table.game()).version

            # a player may not, and an unknown name changes nothing
            await h.command(BO, "Bo", "/gone Ana")
            assert "Only the host can do that." in api.texts(BO)[-1]
            await h.command(HOST, "Hana", "/gone Zed")
            assert "Nobody called zed" in api.texts(HOST)[-1]
            assert (await table.game()).version == version

            await h.command(HOST, "Hana", "/gone ana")
            game = await table.game()
            assert gone_players(game) == (game.players[0],)
            said = "The host marked Ana as gone: the game answers for them."
            assert any(said in t for t in api.texts(GROUP)), api.texts(GROUP)[-3:]
            # Ana cannot bring herself back
            await h.command(ANA, "Ana", "/away off")
            assert "only the host can undo it" in api.texts(ANA)[-1]
            assert gone_players(await table.game()) == (game.players[0],)

            await h.command(HOST, "Hana", "/back Ana")
            assert gone_players(await table.game()) == ()
            back = "The host marked Ana as back: they answer for themselves again."
            assert any(back in t for t in api.texts(GROUP)), api.texts(GROUP)[-3:]

    run(main())
