"""Station's views: pure functions of (game, viewer).

The public view (TV, group chats) shows the table: plans without their hidden
guard counts until the result, how many are ready (and, in the vote only, who
is still to vote: never who is still to choose in the mission), the result without
saboteur counts, everyone's plan/job/partner after the mission, and teams and
secret actions only once the game is over. A player's view adds exactly their
own secrets; the host's view adds who is still to act and nothing secret.
"""

from __future__ import annotations

from typing import Any

from gameflow.core.state import Game
from gameflow.core.text import Msg, nmsg
from gameflow.core.views import player_id as _id
from gameflow.core.views import with_waiting, with_you
from gameflow.games.station.flow import vote_question
from gameflow.games.station.inputs import awaiting, expected, legal
from gameflow.games.station.state import (
    DISCUSSION,
    MISSION,
    NOBODY,
    REVEAL_ALL,
    REVEAL_PLAYED,
    VOTE,
    Choice,
    Plan,
    RoundRecord,
    Station,
)


def _choice(game: Game, seat: int, c: Choice, secret: bool) -> dict[str, Any]:
    out: dict[str, Any] = {
        "player": game.players[seat],
        "plan": c.plan + 1,
        "job": c.job,
        "partner": _id(game, c.partner),
    }
    if secret:
        out["secret"] = "sabotage" if c.sabotage else "trap" if c.trap else None
    return out


def _round(game: Game, rec: RoundRecord, reveal: bool) -> dict[str, Any]:
    out: dict[str, Any] = {
        "round": rec.round,
        "plan": rec.plan + 1,
        "success": rec.success,
        "parts": rec.parts,
        "damage": rec.damage,
        "out": _id(game, rec.out),
        "checked": _id(game, rec.checked),
        "hit": None
        if rec.hit is None
        else {"player": game.players[rec.hit.seat], "effect": rec.hit.effect},
    }
    if game.option("open_votes", True) or reveal:
        out["votes"] = {
            game.players[s]: _id(game, v) for s, v in enumerate(rec.votes) if v is not None
        }
    if reveal:
        out["choices"] = [
            _choice(game, s, c, True) for s, c in enumerate(rec.choices) if c is not None
        ]
        out["trap"] = (
            None
            if rec.trap is None
            else {
                "by": game.players[rec.trap.by],
                "victim": game.players[rec.trap.victim],
                "job": rec.trap.job,
            }
        )
    return out


def public_view(game: Game) -> dict[str, Any]:
    st: Station = game.rules
    r = game.phase.round
    cfg = st.config
    after_mission = game.phase.name in (DISCUSSION, VOTE)
    # After the mission the seed reveals the guards the played plan needed; all
    # three only with the option (every card claim becomes checkable), or at the end.
    played = st.outcome.plan if after_mission and st.outcome is not None else NOBODY
    every = game.over or game.option("reveal_guards", REVEAL_PLAYED) == REVEAL_ALL
    plans = []
    for i, p in enumerate(st.plans):
        plan: dict[str, Any] = {
            "plan": i + 1,
            "reward": p.reward,
            "outside": p.outside,
            "radio": p.radio,
        }
        if i == played or (every and (after_mission or game.over)):
            plan["guards"] = p.guards
        plans.append(plan)
    players = []
    for s, pid in enumerate(game.players):
        status = "dead" if st.dead[s] else "sitting_out" if not st.active(s, r) else "active"
        players.append(
            {
                "id": pid,
                "name": game.names[s],
                "profession": st.professions[s],
                "status": status,
                "injured": st.injured == s and st.injured_round == r,
            }
        )
    view: dict[str, Any] = {
        "rounds": cfg.rounds,
        "target": cfg.target,
        "limit": cfg.limit,
        "parts": st.parts,
        "damage": st.damage,
        "mission": st.missions[(max(r, 1) - 1) % len(st.missions)],
        "plans": plans,
        "table": players,
        "last_round": r == cfg.rounds,
        "history": [_round(game, rec, game.over) for rec in st.history],
    }
    want = expected(game)
    if want:
        waiting = awaiting(game)
        view["ready"] = len(want) - len(waiting)
        view["active"] = len(want)
        if game.phase.name == VOTE:
            # Who still owes a vote is public (votes are cast in the open); never
            # in the mission, whose choice may carry an infiltrator's secret action.
            view["awaiting"] = [game.players[s] for s in waiting]
    o = st.outcome
    if after_mission and o is not None:
        view["result"] = {
            "plan": o.plan + 1,
            "success": o.success,
            "outside": o.outside,
            "outside_needed": o.outside_needed,
            "radio": o.radio,
            "radio_needed": o.radio_needed,
            "guards_ok": o.guards_ok,
        }
        view["choices"] = [
            _choice(game, s, c, False) for s, c in enumerate(st.choices) if c is not None
        ]
    if game.over:
        view["teams"] = {
            pid: ("infiltrator" if st.infiltrator[s] else "loyal")
            for s, pid in enumerate(game.players)
        }
    return {"station": view}


def player_view(game: Game, player: str) -> dict[str, Any]:
    view = public_view(game)
    st: Station = game.rules
    s = game.seat(player)
    r = game.phase.round
    me: dict[str, Any] = {
        "role": "infiltrator" if st.infiltrator[s] else "loyal",
        "profession": st.professions[s],
        "active": st.active(s, r),
    }
    if st.infiltrator[s]:
        me["infiltrators"] = [p for i, p in enumerate(game.players) if st.infiltrator[i]]
    if game.running and st.active(s, r) and st.cards and st.cards[s] != NOBODY:
        card = st.cards[s]
        me["card"] = {"plan": card + 1, "guards": st.plans[card].guards}
    if game.running and st.trap is not None and st.trap.by == s and st.active(s, r):
        me["trap"] = {"victim": game.players[st.trap.victim], "job": st.trap.job}
    mine = st.choices[s] if st.choices else None
    if mine is not None:
        me["choice"] = _choice(game, s, mine, True)
    my_vote = st.votes[s] if st.votes else None
    if my_vote is not None:
        me["vote"] = _id(game, my_vote)
    return with_you(view, me, game, player, legal)


def host_view(game: Game) -> dict[str, Any]:
    return with_waiting(public_view(game), game, awaiting)


def record(game: Game) -> dict[str, Any]:
    st: Station = game.rules
    if st is None:
        return {"parts": 0, "damage": 0, "rounds": []}
    return {
        "parts": st.parts,
        "damage": st.damage,
        "rounds": [
            {k: v for k, v in _round(game, rec, False).items() if k != "votes"}
            for rec in st.history
        ],
    }


def _plan_line(i: int, p: Plan) -> Msg:
    """One plan in a few words; a radio need of 0 is left out (outside is never 0)."""
    if not p.radio:
        return nmsg(
            "Plan {plan}: {n} part, {outside} outside.",
            "Plan {plan}: {n} parts, {outside} outside.",
            p.reward,
            plan=i + 1,
            outside=p.outside,
        )
    return nmsg(
        "Plan {plan}: {n} part, {outside} outside, {radio} radio.",
        "Plan {plan}: {n} parts, {outside} outside, {radio} radio.",
        p.reward,
        plan=i + 1,
        outside=p.outside,
        radio=p.radio,
    )


def ask(game: Game, player: str) -> tuple[Msg, ...]:
    """The context lines of `player`'s open question (gameflow.core.question):
    the mission's three plans as the TV shows them (reward and staffing, one
    short line each: an SMS costs per segment), or what the vote decides. They
    change only with the phase, never with other players' inputs."""
    st: Station = game.rules
    seat = game.seat(player)
    if not game.running or seat < 0 or not legal(game, player):
        return ()
    name = game.phase.name
    if name == MISSION:
        return tuple(_plan_line(i, p) for i, p in enumerate(st.plans))
    if name == VOTE:
        return (vote_question(game, game.phase.round),)
    return ()
