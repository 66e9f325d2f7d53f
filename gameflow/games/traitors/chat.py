"""Who may talk to whom through the bot, and the relayed messages.

At night (and while a tempted or forced player answers) the active traitors
talk among themselves through the bot; nobody else has a private channel. The
core only decides and addresses: `relay()` returns the private events for the
adapters to deliver, or a refusal. Chat is not a game action: it changes no
state and is not logged, so it can never move the game on.
"""

from __future__ import annotations

from typing import Final

from gameflow.core.events import Event, tell
from gameflow.core.result import Rejected, reject
from gameflow.core.state import Game
from gameflow.core.text import N_, msg
from gameflow.games.traitors.state import MAX_TEXT, NIGHT_PHASES, TRAITOR, Traitors

MAX_CHAT: Final = 4 * MAX_TEXT


def peers(game: Game, player: str) -> list[str]:
    """Whom `player` may write to privately right now (empty: nobody)."""
    st: Traitors = game.rules
    s = game.seat(player)
    if not game.running or game.phase.name not in NIGHT_PHASES:
        return []
    if s < 0 or not st.active(s) or st.role[s] != TRAITOR:
        return []
    return [game.players[t] for t in st.traitors() if t != s]


def relay(game: Game, sender: str, text: str) -> tuple[Event, ...] | Rejected:
    """The private events that carry `text` from `sender` to their peers."""
    to = peers(game, sender)
    if not to:
        return reject("no_chat", N_("You have nobody to talk to in secret now."))
    clean = text.strip()
    if not clean or len(clean) > MAX_CHAT:
        return reject("bad_chat", N_("Write a message of 1 to {max} characters."), max=MAX_CHAT)
    line = msg(N_("{name} (traitors only): {text}"), name=game.name_of(sender), text=clean)
    return tuple(tell(p, line, game.phase.seq, secret=True) for p in to)
