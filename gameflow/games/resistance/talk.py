"""Who may talk privately through the bot in the Resistance (issue #33).

The board game gives the spies no private talk; the option `team_talk` (off
by default) gives them one, relayed by the service (service/talk.py): `team()`
is the spies' private talk as a spy may join it now. [decision] The spies
may confer whenever the game runs (the service refuses a pause, quiet hours
and the end): with the table's talk open their TEAM line (Telegram `/team`)
goes to the spies only, with it closed (a live game without `table_talk`:
the table talks in the room) their plain talk does too. Loyal players have no
team. Talk is not a game action: it changes no state and is not logged.
"""

from __future__ import annotations

from gameflow.core.state import Game
from gameflow.games.resistance.state import Resistance


def team(game: Game, player: str) -> tuple[str, ...]:
    """Every spy, `player` first, when `player` is a spy and `team_talk` is
    on in a running game; else ()."""
    if game.option("team_talk") is not True or not game.running:
        return ()
    st: Resistance = game.rules
    s = game.seat(player)
    if s < 0 or not st.spy[s]:
        return ()
    return (player, *(p for i, p in enumerate(game.players) if st.spy[i] and i != s))
