"""Who may talk privately through the bot in Station (issue #33).

The board game gives the infiltrators no private talk; the option `team_talk`
(off by default) gives them one, relayed by the service (service/talk.py):
`team()` is the infiltrators' private talk as one of them may join it now,
the living ones only (a dead infiltrator hears no more of it). [decision]
The infiltrators may confer whenever the game runs (the service refuses a
pause, quiet hours and the end): with the table's talk open their TEAM line
(Telegram `/team`) goes to the infiltrators only, with it closed (a live game
without `table_talk`: the table talks in the room) their plain talk does too.
Talk is not a game action: it changes no state and is not logged.
"""

from __future__ import annotations

from gameflow.core.state import Game
from gameflow.games.station.state import Station


def team(game: Game, player: str) -> tuple[str, ...]:
    """Every living infiltrator, `player` first, when `player` is one and
    `team_talk` is on in a running game; else ()."""
    if game.option("team_talk") is not True or not game.running:
        return ()
    st: Station = game.rules
    s = game.seat(player)

    def living(i: int) -> bool:
        return st.infiltrator[i] and not (st.dead and st.dead[i])

    if s < 0 or not living(s):
        return ()
    return (player, *(p for i, p in enumerate(game.players) if i != s and living(i)))
