"""Werewolf's reveal at the end (issue #32): every role, each night's
victim and what saved or did not save them, and the winners."""

from __future__ import annotations

from gameflow.core.state import Game
from gameflow.core.text import N_, Msg, msg
from gameflow.games.werewolf import texts
from gameflow.games.werewolf.state import NOBODY, VILLAGE, Werewolf


def reveal(game: Game, brief: bool) -> tuple[Msg, ...]:
    st: Werewolf | None = game.rules
    if st is None or not game.over:
        return ()
    side = Msg(texts.SIDE_NAMES[VILLAGE if game.winner == VILLAGE else "wolves"])
    lines = [msg(N_("Winners: {side}."), side=side)]
    roles = tuple(
        msg(N_("{name}: {role}"), name=game.names[s], role=Msg(texts.ROLE_NAMES[r]))
        for s, r in enumerate(st.roles)
        if r != "villager" or not brief
    )
    lines.extend(roles)
    if not brief:
        for m in st.history:
            if m.victim != NOBODY and m.saved:
                lines.append(
                    msg(
                        N_("Night {night}: the doctor saved {name}."),
                        night=m.night,
                        name=game.names[m.victim],
                    )
                )
    return tuple(lines)
