"""NEW and JOIN by SMS: a phone into a game, and the host's TV link with
NEW. A rematch's `YES CODE` (adapters/sms/rematch.py) ends like a JOIN,
through `joined`.

Apart from adapters/sms/inbound.py, which reads and applies what the
players of a game text, so that each stays short enough to read.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from adapters.sms import render as words
from adapters.sms.renderer import CHANNEL
from gameflow.core import actions
from gameflow.core.state import Game
from gameflow.i18n import render
from service.compose import Origin
from service.games import Outcome

if TYPE_CHECKING:
    from adapters.sms.inbound import Gateway, Text

log = logging.getLogger(__name__)


async def new(gw: Gateway, text: Text, kind: str) -> None:
    """NEW game (NY, NOVA): a game of `kind` hosted by the sender, its code
    (and TV link) in the reply; a phone already in a game is told so."""
    say, lang, player = text.say, text.lang, text.player
    if text.game is not None:
        say.append(words.t(words.IN_ANOTHER, lang))
        return
    created = await gw.service.create_game(kind, player, lang=lang, key=f"sms:{text.sid}")
    await gw.directory.set_phone(player, text.phone, created.game.id)
    await gw.store.bind(text.phone, created.game.id, player)
    code = created.code or "?"
    tv = await _tv(gw, created.game)
    if tv:
        say.append(words.t(words.CREATED_TV, lang, code=code, tv=tv))
    else:
        say.append(words.t(words.CREATED, lang, code=code))


async def _tv(gw: Gateway, game: Game) -> str | None:
    """The game's TV link for its host, when the app gives one (a failing
    link service costs the host the link, not the game)."""
    if gw.tv_link is None:
        return None
    try:
        return await gw.tv_link(game)
    except Exception:
        log.exception("no TV link for %s", game.id)
        return None


async def join(gw: Gateway, text: Text, code: str, name: str) -> None:
    """JOIN code name (BLI MED, PRIDRUŽI): the core's Join into the game
    of `code`; a phone in another game is told so."""
    game_id = await gw.store.game_for_code(code)
    if game_id is None:
        text.say.append(words.t(words.NO_SUCH_CODE, text.lang, code=code))
        return
    if text.game is not None and text.game.id != game_id:
        text.say.append(words.t(words.IN_ANOTHER, text.lang))
        return
    await gw.directory.set_phone(text.player, text.phone, game_id)
    origin = Origin(text.player, CHANNEL, reply=text.sid, code=code)
    join = actions.Join(text.player, None, name)
    outcome = await gw.service.submit(game_id, join, key=text.sid, origin=origin)
    await joined(gw, text, outcome, origin)


async def joined(gw: Gateway, text: Text, outcome: Outcome, origin: Origin) -> None:
    """A join's outcome: refused, the core's reason; else the phone is the
    player's in that game from now on, and the welcome is said unless its
    commit carries it."""
    if outcome.rejected is not None:
        text.say.append(render(outcome.rejected.message, outcome.game.lang))
        return
    await gw.store.bind(text.phone, outcome.game.id, text.player)
    gw.unless_carried(outcome, origin, text.say)
