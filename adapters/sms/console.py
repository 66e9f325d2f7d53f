"""`CONSOLE` by SMS (`KONSOLL`, `KONZOLA`): the game master's console link,
texted to the host alone (issue #32). Only its hash is kept, so each CONSOLE
makes a new link (the last few keep working); `CONSOLE NEW` (`NY`, `NOVI`)
rotates: every earlier link stops working. The reply goes to the sender's
own phone like every SMS reply: never to a group or a TV.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from adapters.console.texts import TEXTS
from gameflow.core.state import Game
from gameflow.core.text import msg
from gameflow.i18n import render

ConsoleLink = Callable[[Game, bool], Awaitable[str]]
ROTATE = frozenset({"new", "ny", "nytt", "nova", "novi"})


async def console_text(
    link: ConsoleLink | None, args: tuple[str, ...], game: Game, player: str
) -> list[str]:
    """The reply's lines to CONSOLE from `player` in `game`."""
    if player != game.host:
        return [render(TEXTS["only_host"], game.lang)]
    if link is None:
        return [render(TEXTS["no_console"], game.lang)]
    rotate = bool(args) and args[0] in ROTATE
    url = await link(game, rotate)
    lines = [render(TEXTS["rotated"], game.lang)] if rotate else []
    lines.append(render(msg(TEXTS["link"], link=url), game.lang))
    return lines
