"""What every game's end reveal opens with, written once (issue #30).

A game's reveal and story (`GameDefinition.reveal`, `.story`) name the side
that won, or say the host ended the game, and list players by name, «nobody»
for none; the SMS brief opens with the winner and the hidden side by name.
Each game keeps its own words (`Winners`); the choosing is here. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final, NamedTuple

from gameflow.core.state import Game
from gameflow.core.text import N_, Item, Msg, msg

NOBODY: Final = msg(N_("nobody"))


def names(game: Game, seats: Sequence[int]) -> tuple[Item, ...]:
    """The players at `seats` by name; «nobody» for none, so a list never reads empty."""
    return tuple(game.names[s] for s in seats) if seats else (NOBODY,)


def sides(hidden: Sequence[bool]) -> tuple[list[int], list[int]]:
    """The seats of the open side and of the hidden side (`hidden[seat]`)."""
    return [s for s, h in enumerate(hidden) if not h], [s for s, h in enumerate(hidden) if h]


class Winners(NamedTuple):
    """A game's end head lines: `won[side]` names the side that won, `none`
    says the host ended the game; `brief[side]` and `brief_none` are the SMS
    form's, with the hidden side's `{names}`."""

    won: Mapping[str, str]
    none: str
    brief: Mapping[str, str]
    brief_none: str

    def head(self, game: Game) -> Msg:
        """The full reveal's first line."""
        return msg(self.won.get(game.winner or "", self.none))

    def brief_head(self, game: Game, hidden: Sequence[int]) -> Msg:
        """The brief's first line: the winner, and the hidden side at `hidden`."""
        text = self.brief.get(game.winner or "", self.brief_none)
        return msg(text, names=names(game, hidden))
