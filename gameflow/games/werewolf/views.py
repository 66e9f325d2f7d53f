"""Werewolf's views: public (the TV), per player (own role, the pack to a
wolf, the seer's findings to the seer only), the host's, the game master's
(everything secret) and the replay record. No I/O.
"""

from __future__ import annotations

from typing import Any

from gameflow.core.state import Game
from gameflow.core.text import N_, Msg, msg
from gameflow.core.views import player_id, with_you
from gameflow.games.werewolf.inputs import awaiting, legal
from gameflow.games.werewolf.state import NIGHT, NOBODY, REVOTE, WOLF, Morning, Werewolf

SECRET_PHASES = (NIGHT,)


def _shown_role(game: Game, st: Werewolf, seat: int) -> str | None:
    """A dead player's role when it is shown (a lynch always, a kill by option)."""
    if game.over:
        return st.roles[seat]
    if not st.dead[seat]:
        return None
    lynched = any(m.lynched == seat for m in st.history)
    return st.roles[seat] if lynched or game.option("reveal_dead", True) else None


def _morning(game: Game, m: Morning) -> dict[str, Any]:
    died = m.victim if m.victim != NOBODY and not m.saved else NOBODY
    # The lynch vote is cast in the open: who voted for whom is public.
    votes = {game.players[s]: game.players[t] for s, t in enumerate(m.votes) if t != NOBODY}
    return {
        "night": m.night,
        "died": player_id(game, died),
        "lynched": player_id(game, m.lynched),
        "votes": votes,
    }


def public_view(game: Game) -> dict[str, Any]:
    st: Werewolf | None = game.rules
    if st is None:
        return {"werewolf": {}}
    view: dict[str, Any] = {
        "table": [
            {
                "id": p,
                "name": game.names[s],
                "alive": not st.dead[s],
                "role": _shown_role(game, st, s),
            }
            for s, p in enumerate(game.players)
        ],
        "history": [_morning(game, m) for m in st.history],
        "wolves_alive": len(st.wolves()) if game.over else None,
    }
    if game.phase.name == REVOTE:
        view["tied"] = [game.players[s] for s in st.tied]
    if game.running and game.phase.name not in SECRET_PHASES:
        view["awaiting"] = [game.players[s] for s in awaiting(game)]
    return {"werewolf": view}


def player_view(game: Game, player: str) -> dict[str, Any]:
    view = public_view(game)
    st: Werewolf | None = game.rules
    s = game.seat(player)
    if st is None or s < 0:
        return view
    me: dict[str, Any] = {"role": st.roles[s], "alive": not st.dead[s]}
    if st.roles[s] == WOLF:
        me["pack"] = [p for i, p in enumerate(game.players) if st.roles[i] == WOLF]
    if st.roles[s] == "seer":
        me["findings"] = [
            {"night": n, "player": game.players[t], "wolf": w} for n, t, w in st.findings
        ]
    return with_you(view, me, game, player, legal)


def host_view(game: Game) -> dict[str, Any]:
    return public_view(game)


def gm_view(game: Game) -> dict[str, Any]:
    """Everything secret: every role, the night's picks, the seer's findings."""
    view = public_view(game)
    st: Werewolf | None = game.rules
    if st is None:
        return view
    view["roles"] = {p: st.roles[s] for s, p in enumerate(game.players)}
    view["night"] = {
        "kills": {game.players[s]: player_id(game, st.kills[s]) for s in st.wolves()}
        if st.kills
        else {},
        "inspect": player_id(game, st.inspect),
        "protect": player_id(game, st.protect),
    }
    view["findings"] = [
        {"night": n, "player": game.players[t], "wolf": w} for n, t, w in st.findings
    ]
    return view


def record(game: Game) -> dict[str, Any]:
    st: Werewolf | None = game.rules
    if st is None:
        return {"nights": []}
    return {
        "roles": {p: st.roles[s] for s, p in enumerate(game.players)},
        "nights": [
            {
                "night": m.night,
                "victim": player_id(game, m.victim),
                "saved": m.saved,
                "inspected": player_id(game, m.inspected),
                "protected": player_id(game, m.protected),
                "lynched": player_id(game, m.lynched),
            }
            for m in st.history
        ],
    }


def ask(game: Game, player: str) -> tuple[Msg, ...]:
    """The open question's line: what the night's role or the vote decides."""
    specs = legal(game, player)
    if not specs:
        return ()
    lines = {
        "kill": N_("Night {night}: whom do the werewolves kill?"),
        "inspect": N_("Night {night}: whose side do you look at?"),
        "protect": N_("Night {night}: whom do you protect?"),
        "lynch": N_("Day {night}: whom does the village lynch?"),
    }
    return (msg(lines[specs[0].kind], night=game.phase.round),)
