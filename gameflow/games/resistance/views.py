"""Resistance's views: pure functions of (game, viewer).

The public view (TV, group chats) shows the table: the missions so far with only
their number of fails, the vote track, the leader and the proposed team, how
many have voted or played (never who played what), who is still awaited in
a proposal or a team vote (a count only in the mission), every team vote once all
votes are in, the opinion makers' votes once they have voted, and the plot
cards in play (they are public). It never shows roles before the end, mission
cards (except those played in the spotlight), or the target of an
information-revealing plot card. A player's view adds exactly their own
secrets; the host's view adds who is still to act and nothing secret.
"""

from __future__ import annotations

from typing import Any, Final

from gameflow.core.state import Game
from gameflow.core.text import N_, Msg, msg, nmsg
from gameflow.core.views import player_id as _id
from gameflow.core.views import with_waiting, with_you
from gameflow.games.resistance.cards import CARDS, OPINION_MAKER
from gameflow.games.resistance.inputs import awaiting, expected, legal, opinion_makers
from gameflow.games.resistance.plots import playable
from gameflow.games.resistance.state import (
    MISSION,
    NOBODY,
    PROPOSAL,
    RESISTANCE,
    SPY,
    TEAM_VOTE,
    MissionRecord,
    PlotUse,
    Resistance,
    TeamVote,
)
from gameflow.games.resistance.texts import card_name


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
        owed = awaiting(game)
        waiting = set(owed)
        view["ready"] = sum(1 for s in want if s not in waiting)
        view["active"] = len(want)
        if game.phase.name in (PROPOSAL, TEAM_VOTE):
            # The leader, card holders and voters act in the open; the mission's
            # players get only a count (who hesitates over a card is a hint).
            view["awaiting"] = [game.players[s] for s in owed]
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
    return with_you(view, me, game, player, legal)


def host_view(game: Game) -> dict[str, Any]:
    return with_waiting(public_view(game), game, awaiting)


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


# The context lines of a question: short (an SMS costs per segment), and fixed
# for the phase apart from the player's own answers, so that another player's
# input never re-sends a question.
_PICK: Final = N_("Mission {mission}, proposal {attempt} of {max}: pick a team of {size}.")
_PICK_TWO: Final = N_(
    "Mission {mission}, proposal {attempt} of {max}: pick a team of {size}. "
    "It fails only with 2 fail cards."
)
_TEAM: Final = N_("Mission {mission}, proposal {attempt} of {max}. The team: {names}.")
_ON_MISSION: Final = N_("Mission {mission}, team {names}: play your mission card.")
_ON_MISSION_TWO: Final = N_(
    "Mission {mission}, team {names}: play your mission card. It fails only with 2 fail cards."
)
_CARD: Final = N_("{card}: {effect}")


def card_line(card: str) -> Msg:
    """A plot card by its name, and what it does."""
    return msg(_CARD, card=card_name(card), effect=Msg(CARDS[card].effect))


def ask(game: Game, player: str) -> tuple[Msg, ...]:
    """The context lines of `player`'s open question (gameflow.core.question):
    the leader is told the mission, the proposal count and the team size; a
    voter the team and the proposal count; a team member the mission; a
    plot-card holder what each card they may play does; the leader the cards
    they still give out."""
    seat = game.seat(player)
    if not game.running or seat < 0:
        return ()
    st: Resistance = game.rules
    name = game.phase.name
    cfg = st.config
    mission = st.mission
    attempt = st.rejections + 1
    names = game.names
    lines: list[Msg] = []
    if name == PROPOSAL:
        if seat == st.leader and st.hand:
            cards = tuple(card_name(c) for c in st.hand)
            lines.append(
                nmsg(
                    "Give this plot card to another player: {cards}.",
                    "Give these plot cards, each to another player: {cards}.",
                    len(cards),
                    cards=cards,
                )
            )
        if seat == st.leader and not st.team:
            two = cfg.fails_needed(mission) > 1
            lines.append(
                msg(
                    _PICK_TWO if two else _PICK,
                    mission=mission,
                    attempt=attempt,
                    max=cfg.max_rejections,
                    size=st.team_size,
                )
            )
    elif name == TEAM_VOTE:
        team = tuple(names[s] for s in st.team)
        if legal(game, player):
            lines.append(
                msg(_TEAM, mission=mission, attempt=attempt, max=cfg.max_rejections, names=team)
            )
            if seat in st.makers_first():
                lines.append(card_line(OPINION_MAKER))
    elif name == MISSION and seat in st.team and st.cards[seat] is None and st.veto == NOBODY:
        two = cfg.fails_needed(mission) > 1
        team = tuple(names[s] for s in st.team)
        lines.append(msg(_ON_MISSION_TWO if two else _ON_MISSION, mission=mission, names=team))
    lines.extend(card_line(card) for card in playable(game, seat))
    return tuple(lines)
