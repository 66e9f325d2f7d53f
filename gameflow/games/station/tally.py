"""Station's vote tallies: who voted for whom, as announced and as asked again.

Split from `flow` (which re-exports them) to keep the phase module short.
"""

from __future__ import annotations

from typing import Final

from gameflow.core.state import Game
from gameflow.core.text import N_, Msg, msg
from gameflow.games.station.state import NOBODY, Station


def votes_text(game: Game, st: Station, r: int) -> Msg:
    """Who voted for whom in round `r`'s vote, which is now ending."""
    voters = [s for s in range(len(game.players)) if st.active(s, r)]
    return tally_text(game, st.votes, voters)


def tally_text(game: Game, votes: tuple[int | None, ...], voters: list[int]) -> Msg:
    """Who of `voters` voted for whom, grouped by the choice, most votes first
    ("Votes: Bo (Ana, Cy, Dag), Nobody (Eli, Fred), no vote: Gro.")."""
    groups: dict[int, list[str]] = {}
    missing: list[str] = []
    for s in voters:
        v = votes[s]
        if v is None:
            missing.append(game.names[s])
        else:
            groups.setdefault(v, []).append(game.names[s])
    ranked = sorted(groups.items(), key=lambda g: (-len(g[1]), g[0] == NOBODY, g[0]))
    if not groups:
        return msg(N_("Nobody voted."))
    parts: list[Msg] = [
        msg(
            N_("{choice} ({names})"),
            choice=_NOBODY if v == NOBODY else game.names[v],
            names=tuple(names),
        )
        for v, names in ranked
    ]
    if missing:
        parts.append(msg(N_("no vote: {names}"), names=tuple(missing)))
    return msg(N_("Votes: {votes}."), votes=tuple(parts))


_NOBODY: Final = Msg(N_("Nobody"))


def last_tally(game: Game) -> Msg | None:
    """The newest finished vote's tally, as it was announced (None before the
    first vote, or when votes are secret): what a player who was told only the
    counts (by SMS) asks for. Who could vote then is worked out from the
    record: not the player sitting out that round, and not a player dead
    before it (a hit of that round comes after its vote)."""
    st: Station = game.rules
    if not st.history or not game.option("open_votes", True):
        return None
    rec = st.history[-1]
    before = st.history[-2] if len(st.history) > 1 else None
    sitting = before.out if before is not None and before.round == rec.round - 1 else NOBODY
    killed = rec.hit.seat if rec.hit is not None and rec.hit.effect == "killed" else NOBODY
    voters = [
        s for s in range(len(game.players)) if s != sitting and (not st.dead[s] or s == killed)
    ]
    return tally_text(game, rec.votes, voters)
