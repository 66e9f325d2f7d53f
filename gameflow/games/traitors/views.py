"""The Traitors' views: pure functions of (game, viewer), and the replay record.

- public (TV, group chats): the table (active / murdered / banished, roles
  revealed on banishment; at the end the survivors' roles), the pot, the day's mission result and shield-room
  access, the votes as read out, pleas, the published death list, the history,
  how many have answered and, in the round table's votes and the end vote, who
  is still to answer (a count only in a mission);
  Never: who is a traitor, how many traitors there are or were, who holds
  the shield or the dagger, night votes, who was tempted, whom the traitors
  are waiting for, nor the role of a player banished in the final round.
- a player: the public view plus their own secrets (role; fellow traitors and
  their night votes for a traitor; shield/dagger if they hold it; their ballot),
  their legal actions and whom they may talk to privately now (`chat_with`).
- the host: the public view plus who still owes a day-time input. Secrets are
  only in `gm_view`, which the host must open explicitly; the engine's views
  never call it.
"""

from __future__ import annotations

from typing import Any, Final

from gameflow.core.legal import spec_json
from gameflow.core.state import Game
from gameflow.core.text import Msg
from gameflow.games.traitors import chat, flow, inputs, night, questions
from gameflow.games.traitors.state import (
    ACTIVE,
    END_VOTE,
    MISSION,
    NIGHT_PHASES,
    NOBODY,
    REVOTE,
    ROUNDTABLE,
    TRAITOR,
    DayRecord,
    Reading,
    Traitors,
)

SECRET_PHASES: Final = NIGHT_PHASES
# Phases in which the public view names who is still to answer: the votes, cast
# in the open. A mission (where a traitor may cost silver) gets a count only.
OPEN_VOTES: Final = (ROUNDTABLE, REVOTE, END_VOTE)


def _id(game: Game, seat: int) -> str | None:
    return None if seat == NOBODY else game.players[seat]


def _readings(game: Game, votes: tuple[Reading, ...]) -> list[dict[str, Any]]:
    return [
        {
            "voter": game.players[r.voter],
            "for": game.players[r.target],
            "weight": r.weight,
            "reason": r.reason,
        }
        for r in votes
    ]


def day_json(game: Game, rec: DayRecord, *, reveal: bool = True) -> dict[str, Any]:
    day: dict[str, Any] = {
        "day": rec.day,
        "murdered": _id(game, rec.murdered),
        "banished": [game.players[s] for s in rec.banished],
        "revealed": {game.players[s]: role for s, role in rec.revealed},
        "pot": rec.pot,
    }
    if reveal:
        day["converted"] = _id(game, rec.converted)
    return day


def public_view(game: Game) -> dict[str, Any]:
    st: Traitors = game.rules
    name = game.phase.name
    revealed = {s: role for rec in st.history for s, role in rec.revealed}
    revealed.update(dict(st.revealed_today))
    table = []
    for s, pid in enumerate(game.players):
        seat: dict[str, Any] = {"id": pid, "name": game.names[s], "status": st.status[s]}
        if s in revealed:
            seat["role"] = revealed[s]
        if game.over and st.status[s] == ACTIVE:
            # The end reveals the survivors' roles only: whoever was banished in
            # the final round keeps theirs.
            seat["role"] = st.role[s]
        table.append(seat)
    view: dict[str, Any] = {
        "day": game.phase.round,
        "final_day": st.final_day,
        "final": game.phase.round >= st.final_day,
        "pot": st.pot,
        "table": table,
        "access": [game.players[s] for s in st.access],
        "death_list": [game.players[s] for s in st.listed],
        "murder_free": st.murder_free,
        "dagger_in_play": st.dagger_on,
        "votes": [_readings(game, v) for v in st.readings],
        # Who was recruited is a secret until the end (the replay record, which
        # is the whole game's audit, keeps it).
        "history": [
            {
                **day_json(game, rec, reveal=game.over),
                "votes": [_readings(game, v) for v in rec.votes],
            }
            for rec in st.history
        ],
    }
    m = st.mission
    if m is not None:
        view["mission"] = {"kind": m.kind}
        if name != MISSION:
            view["mission"]["silver"] = m.silver
    if name in (ROUNDTABLE, REVOTE):
        t = st.table
        view["vote"] = {
            "kind": t.kind,
            "number": t.number,
            "candidates": [game.players[s] for s in t.candidates],
            "voters": [game.players[s] for s in t.voters],
            "pleas": {game.players[s]: p for s, p in enumerate(t.pleas) if p is not None},
        }
    want = inputs.expected(game)
    if want and name not in SECRET_PHASES:
        waiting = inputs.awaiting(game)
        view["ready"] = len(want) - len(waiting)
        view["expected"] = len(want)
        if name in OPEN_VOTES:
            view["awaiting"] = [game.players[s] for s in waiting]
    if game.over:
        won = flow.winners(st, game.winner)
        view["winners"] = [game.players[s] for s in won]
        view["share"] = flow.share(st, game.winner)
    return {"traitors": view}


def chat_with(game: Game, player: str) -> list[str]:
    """Whom `player` may talk to privately through the bot right now."""
    return chat.peers(game, player)


def player_view(game: Game, player: str) -> dict[str, Any]:
    view = public_view(game)
    st: Traitors = game.rules
    s = game.seat(player)
    me: dict[str, Any] = {"role": st.role[s], "status": st.status[s]}
    if st.role[s] == TRAITOR:
        me["traitors"] = [
            game.players[t] for t in range(len(game.players)) if st.role[t] == TRAITOR
        ]
        if game.phase.name in NIGHT_PHASES:
            me["night_votes"] = {
                game.players[t]: {"kind": v.kind, "target": game.players[v.target]}
                for t, v in enumerate(st.night_votes)
                if v is not None
            }
        if st.death_list:
            me["death_list_draft"] = [game.players[t] for t in st.death_list]
        p = st.pending
        if p is not None and game.phase.name in NIGHT_PHASES:
            me["night_choice"] = {
                "kind": p.kind,
                "target": _id(game, p.target),
                "murder": _id(game, p.murder),
            }
        m = st.mission
        if m is not None and m.kind == "chests" and game.phase.name == MISSION:
            me["cursed_chest"] = m.cursed
    if game.running:
        if st.shield == s:
            me["shield"] = True
        if st.dagger == s:
            me["dagger"] = True
        t = st.table
        b = t.ballots[s] if t.ballots else None
        if b is not None and game.phase.name in (ROUNDTABLE, REVOTE):
            me["ballot"] = {"for": game.players[b.target], "dagger": b.dagger}
        if game.phase.name in NIGHT_PHASES and night.asked(st) == s:
            assert st.pending is not None
            me["question"] = st.pending.kind
    me["legal"] = [spec_json(x) for x in inputs.legal(game, player)] if game.running else []
    me["chat_with"] = chat_with(game, player)
    view["you"] = me
    return view


def host_view(game: Game) -> dict[str, Any]:
    """The host's everyday screen: nothing secret, so it may sit next to the TV."""
    view = public_view(game)
    name = game.phase.name
    waiting = inputs.awaiting(game) if game.running and name not in SECRET_PHASES else ()
    view["waiting"] = [game.players[s] for s in waiting]
    view["legal"] = [spec_json(x) for x in inputs.legal(game, game.host)] if game.running else []
    return view


def gm_view(game: Game) -> dict[str, Any]:
    """The game master's secret view, opened explicitly: roles, shield, dagger,
    night votes, pending tempt/force, the death list being written, replies."""
    view = host_view(game)
    st: Traitors = game.rules
    n = len(game.players)
    secrets: dict[str, Any] = {
        "roles": {game.players[s]: st.role[s] for s in range(n)},
        "shield": _id(game, st.shield),
        "dagger": _id(game, st.dagger),
        "night_votes": {
            game.players[s]: {"kind": v.kind, "target": game.players[v.target]}
            for s, v in enumerate(st.night_votes)
            if v is not None
        },
        "force_votes": {
            game.players[s]: game.players[v] for s, v in enumerate(st.force_votes) if v is not None
        },
        "pending": None
        if st.pending is None
        else {
            "kind": st.pending.kind,
            "target": _id(game, st.pending.target),
            "murder": _id(game, st.pending.murder),
            "declined": [game.players[s] for s in st.pending.declined],
        },
        "death_list_draft": [game.players[s] for s in st.death_list],
        "recruit": st.recruit,
        "may_tempt": night.may_tempt(st, game.phase.round),
        "must_force": night.must_force(st, game.phase.round),
        "forbid_murder": st.forbid_murder,
        "waiting": [game.players[s] for s in inputs.awaiting(game)] if game.running else [],
        "tempted": [rec.day for rec in st.history if rec.tempted],
    }
    m = st.mission
    if m is not None:
        secrets["mission"] = {
            "kind": m.kind,
            "replies": {game.players[s]: list(r) for s, r in enumerate(m.replies) if r is not None},
            "cursed": m.cursed,
            "treasure": m.treasure,
        }
    view["secrets"] = secrets
    return view


def record(game: Game) -> dict[str, Any]:
    st: Traitors | None = game.rules
    if st is None:
        return {"pot": 0, "winners": [], "share": 0, "days": []}
    won = flow.winners(st, game.winner) if game.over else ()
    return {
        "pot": st.pot,
        "winners": [game.players[s] for s in won],
        "share": flow.share(st, game.winner) if game.over else 0,
        "days": [day_json(game, rec) for rec in st.history],
    }


def ask(game: Game, player: str) -> tuple[Msg, ...]:
    """The context lines of `player`'s open question (gameflow.core.question);
    built in `questions`, from the same legal() specs the question holds."""
    return questions.ask(game, player)
