"""`/console` over Telegram's wire format (issue #32 item 1): the host gets
the console's link in their private chat only, a player or a group gets
none, a second `/console` makes another working link, `/console new` rotates
(every earlier link stops working); each is answered once, never also as an
unknown command."""

from __future__ import annotations

import re
from pathlib import Path

from adapters.console.tokens import ConsoleTokens
from adapters.telegram.console import add_console
from gameflow.core.state import Game
from tests.store_helpers import run
from tests.telegram_helpers import telegram_bot

HOST = 1
GROUP = -777
LINK = re.compile(r"https://tv\.test/console/(\S+)")


def test_the_host_alone_gets_the_console_link_in_a_private_chat(tmp_path: Path) -> None:
    async def go() -> None:
        async with telegram_bot(tmp_path) as (api, h):
            tokens = ConsoleTokens(h.service.store)

            async def link(game: Game, rotate: bool) -> str:
                return f"https://tv.test/console/{await tokens.issue(game, rotate)}"

            add_console(h.application, h.tg, link)
            code, game_id = await h.new(HOST, "traitors", chat_id=GROUP)
            await h.command(12, "Bo", f"/join {code}")

            said = len(api.texts(GROUP))
            await h.command(HOST, "Hana", "/console", chat_id=GROUP)
            group = api.texts(GROUP)[said:]
            assert len(group) == 1 and not LINK.search(group[0]), group
            assert "private chat" in group[0]

            await h.command(12, "Bo", "/console")
            assert api.texts(12)[-1] == "Only the host can open the console."

            said = len(api.texts(HOST))
            await h.command(HOST, "Hana", "/console")
            mine = api.texts(HOST)[said:]
            assert len(mine) == 1, mine  # answered once: not also "I didn't understand"
            first = LINK.search(mine[0])
            assert first is not None, mine
            assert await tokens.game_id(first.group(1)) == game_id
            await h.command(HOST, "Hana", "/console")
            second = LINK.search(api.texts(HOST)[-1])
            assert second is not None and second.group(1) != first.group(1)
            assert await tokens.game_id(first.group(1)) == game_id  # both work

            await h.command(HOST, "Hana", "/console new")
            text = api.texts(HOST)[-1]
            fresh = LINK.search(text)
            assert fresh is not None and "no longer works" in text, text
            assert await tokens.game_id(first.group(1)) is None
            assert await tokens.game_id(second.group(1)) is None
            assert await tokens.game_id(fresh.group(1)) == game_id
            # the link was never in the group, nor in the player's chat
            assert not any(LINK.search(t) for t in api.texts(GROUP) + api.texts(12))

    run(go())
