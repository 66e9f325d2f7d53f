"""Resistance's views: pure functions of (game, viewer).

The public view (TV, group chats) shows the table: the missions so far with only
their number of fails, the vote track, the leader and the proposed team, how
many have voted or played (never who played what), every team vote once all
votes are in, the opinion makers' votes once they have voted, and the plot
cards in play (they are public). It never shows roles before the end, mission
cards (except those played in the spotlight), or the target of an
information-revealing plot card. A player's view adds exactly their own
secrets; the host's view adds who is still to act and nothing secret.
"""

from __future__ import annotations

from typing import Any

from gameflow.core.legal import ActionSpec
from gameflow.core.state import Game
from gameflow.core.text import Msg
from gameflow.games.resistance.inputs import awaiting, expected, legal, opinion_makers
from gameflow.games.resistance.state import (
    NOBODY,
    RESISTANCE,
    SPY,
    TEAM_VOTE,
    MissionRecord,
    PlotUse,
    Resistance,
    TeamVote,
)


def _id(game: Game, seat: int) -> str | None:
    return None if seat == NOBODY else game.players[seat]


def _mission(game: Game, rec: MissionRecord) -> dict[str, Any]:
    out: dict[str, Any] = {
        "mission": rec.mission,
        "team": [game.players[s] for s in rec.team],
        "fails": rec.fails,
        "success": rec.success,
        "rejected_teams": rec.rejected_teams,
    }
    if rec.shown:
        out["shown"] = {game.players[s]: card for s, card in rec.shown}
    return out


def _proposal(game: Game, rec: TeamVote) -> dict[str, Any]:
    out: dict[str, Any] = {
        "mission": rec.mission,
        "attempt": rec.attempt,
        "leader": game.players[rec.leader],
        "team": [game.players[s] for s in rec.team],
        "votes": {game.players[s]: v for s, v in enumerate(rec.votes)},
        "approved": rec.approved,
        "vetoed_by": _id(game, rec.vetoed_by),
    }
    if rec.hero:
        out["hero"] = rec.hero
    return out


def _plot(game: Game, use: PlotUse) -> dict[str, Any]:
    out: dict[str, Any] = {"mission": use.mission, "card": use.card, "by": game.players[use.by]}
    if use.dealt:
        out["to"] = game.players[use.to]
    elif use.target != NOBODY:
        out["target"] = game.players[use.target]
    return out


def public_view(game: Game) -> dict[str, Any]:
    st: Resistance = game.rules
    cfg = st.config
    view: dict[str, Any] = {
        "mission": st.mission,
        "team_size": st.team_size,
        "teams": list(cfg.teams),
        "double_fail": cfg.double_fail,
        "successes": st.successes(),
        "failures": st.failures(),
        "rejections": st.rejections,
        "max_rejections": cfg.max_rejections,
        "leader": game.players[st.leader],
        "team": [game.players[s] for s in st.team],
        "missions": [_mission(game, r) for r in st.results],
        "proposals": [_proposal(game, r) for r in st.proposals],
    }
    want = expected(game)
    if want and game.running:
        waiting = set(awaiting(game))
        view["ready"] = sum(1 for s in want if s not in waiting)
        view["active"] = len(want)
    if game.phase.name == TEAM_VOTE:
        makers = opinion_makers(st)
        if makers and all(st.votes[s] is not None for s in makers):
            view["opinion_votes"] = {game.players[s]: st.votes[s] for s in makers}
    if cfg.draw:
        view["plot"] = {
            "deck": len(st.deck),
            "hand": list(st.hand),
            "held": [{"player": game.players[h.seat], "card": h.card} for h in st.held],
            "pending": [{"player": game.players[h.seat], "card": h.card} for h in st.pending],
            "log": [_plot(game, u) for u in st.plot_log],
            "spotlight": [game.players[s] for s in st.spotlight],
            "veto": _id(game, st.veto),
        }
    if cfg.heroes:
        view["hero"] = st.hero
    if game.over:
        view["roles"] = {p: (SPY if st.spy[s] else RESISTANCE) for s, p in enumerate(game.players)}
    return {"resistance": view}


def player_view(game: Game, player: str) -> dict[str, Any]:
    view = public_view(game)
    st: Resistance = game.rules
    s = game.seat(player)
    me: dict[str, Any] = {"role": SPY if st.spy[s] else RESISTANCE}
    if st.spy[s]:
        me["spies"] = [p for i, p in enumerate(game.players) if st.spy[i]]
    if st.votes and st.votes[s] is not None:
        me["vote"] = st.votes[s]
    if st.cards and st.cards[s] is not None:
        me["card"] = st.cards[s]
    me["learned"] = [
        {"mission": f.mission, "card": f.card, "player": game.players[f.about], "value": f.value}
        for f in st.knowledge[s]
    ]
    me["watching"] = [game.players[w] for by, w in st.watch if by == s]
    me["legal"] = [spec_json(spec) for spec in legal(game, player)] if game.running else []
    view["you"] = me
    return view


def host_view(game: Game) -> dict[str, Any]:
    view = public_view(game)
    view["waiting"] = [game.players[s] for s in awaiting(game)] if game.running else []
    return view


def spec_json(spec: ActionSpec) -> dict[str, Any]:
    return {
        "kind": spec.kind,
        "phase": spec.phase,
        "fields": {f.name: list(f.options) for f in spec.fields},
    }


def record(game: Game) -> dict[str, Any]:
    """The replay record: every finished mission, plus the public plot log."""
    st: Resistance | None = game.rules
    if st is None:
        return {"missions": []}
    out: dict[str, Any] = {
        "missions": [_mission(game, r) for r in st.results],
        "leader": game.players[st.leader],
        "rejections": st.rejections,
    }
    if st.config.draw:
        out["plot_cards"] = [_plot(game, u) for u in st.plot_log]
        out["held"] = [{"player": game.players[h.seat], "card": h.card} for h in st.held]
    return out


def ask(game: Game, player: str) -> tuple[Msg, ...]:
    """The context lines of `player`'s open question (gameflow.core.question)."""
    return ()
