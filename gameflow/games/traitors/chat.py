"""Who may talk to whom through the bot in the Traitors (issue #33).

The service relays what players say (service/talk.py); the game only says
who may: `team()` is the private team a player talks with now (the active
traitors, at night and while a tempted or forced player answers: one who
accepts joins it from then on, one who refuses never sees it),
`silenced()` whether a player is out of all talk (murdered or banished:
seed 002, the dead do not talk to the living), and `table_talk()` whether
the whole table may talk now (not at night: the players are in their rooms).
`relay()` is the older form of the team's talk: the private events that
carry a line to the team, or a refusal. Talk is not a game action: it
changes no state and is not logged, so it can never move the game on.
"""

from __future__ import annotations

from typing import Final

from gameflow.core.events import Event, tell
from gameflow.core.result import Rejected, reject
from gameflow.core.state import Game
from gameflow.core.text import N_, msg
from gameflow.games.traitors.state import MAX_TEXT, NIGHT_PHASES, TRAITOR, Traitors

MAX_CHAT: Final = 4 * MAX_TEXT


def team(game: Game, player: str) -> tuple[str, ...]:
    """The traitors' private talk as `player` may join it now: every active
    traitor, `player` first; () when `player` is none of them or it is day."""
    if not game.running or game.phase.name not in NIGHT_PHASES:
        return ()
    st: Traitors = game.rules  # dealt: the game runs (the compiled core checks the type)
    s = game.seat(player)
    if s < 0 or not st.active(s) or st.role[s] != TRAITOR:
        return ()
    return (player, *(game.players[t] for t in st.traitors() if t != s))


def silenced(game: Game, player: str) -> bool:
    """Whether a seated player is out of the game's talk (murdered, banished)."""
    if not game.running:
        return False
    st: Traitors = game.rules  # dealt: the game runs (the compiled core checks the type)
    s = game.seat(player)
    return s >= 0 and not st.active(s)


def table_talk(game: Game) -> bool:
    """Whether the table may talk now: by day, not at night."""
    return game.phase.name not in NIGHT_PHASES


def peers(game: Game, player: str) -> list[str]:
    """Whom `player` may write to privately right now (empty: nobody)."""
    return list(team(game, player)[1:])


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
