"""Who may talk privately through the bot in Werewolf (issue #33's relay,
service/talk.py): the living wolves with each other at night, with the option
`team_talk` (on by default); the dead talk no more.
"""

from __future__ import annotations

from gameflow.core.state import Game
from gameflow.games.werewolf.state import NIGHT, WOLF, Werewolf


def team(game: Game, player: str) -> tuple[str, ...]:
    if game.option("team_talk") is not True or not game.running or game.phase.name != NIGHT:
        return ()
    st: Werewolf = game.rules
    s = game.seat(player)
    if s < 0 or st.dead[s] or st.roles[s] != WOLF:
        return ()
    return (player, *(game.players[i] for i in st.wolves() if i != s))


def silenced(game: Game, player: str) -> bool:
    st: Werewolf | None = game.rules
    s = game.seat(player)
    return st is not None and s >= 0 and st.dead[s]
