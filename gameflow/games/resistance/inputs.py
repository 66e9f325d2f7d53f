"""Resistance's player inputs: propose, vote, mission, give, play, pass.

`legal()` lists the allowed values; the handlers accept exactly those values and,
for anything else, say precisely why not. Both read the same helpers
(`playable`, `play_targets`, `mission_choices`), so keyboards and SMS menus
drawn from `legal()` never offer what would be refused. Plot-card effects are in
`plots.py`.
"""

from __future__ import annotations

from gameflow.core.events import Event, Kind, announce, tell
from gameflow.core.legal import ActionSpec, Field, Value
from gameflow.core.result import Accepted, Rejected, reject
from gameflow.core.state import Game, update
from gameflow.core.text import N_, msg
from gameflow.games.resistance.actions import Give, Mission, Pass, Play, Propose, Vote
from gameflow.games.resistance.cards import (
    MISSION_CARDS,
    OPINION_MAKER,
)
from gameflow.games.resistance.plots import play_targets, playable
from gameflow.games.resistance.state import (
    FAIL,
    MISSION,
    NOBODY,
    PROPOSAL,
    SUCCESS,
    TEAM_VOTE,
    Resistance,
)
from gameflow.games.resistance.texts import mission_card, vote_msg


def _set_vote(t: tuple[bool | None, ...], i: int, v: bool) -> tuple[bool | None, ...]:
    return (*t[:i], v, *t[i + 1 :])


def _set_card(t: tuple[str | None, ...], i: int, v: str) -> tuple[str | None, ...]:
    return (*t[:i], v, *t[i + 1 :])


def opinion_makers(st: Resistance) -> tuple[int, ...]:
    if not st.held:
        return ()
    return tuple(sorted({h.seat for h in st.held if h.card == OPINION_MAKER}))


def mission_choices(st: Resistance, seat: int) -> tuple[str, ...]:
    """Resistance members may only play success."""
    return (SUCCESS, FAIL) if st.spy[seat] else (SUCCESS,)


def propose(game: Game, a: Propose, seat: int) -> Accepted[Game] | Rejected:
    st: Resistance = game.rules
    if game.phase.name != PROPOSAL:
        return reject("wrong_phase", N_("Teams are proposed in the proposal phase."))
    if seat != st.leader:
        return reject("not_leader", N_("Only the leader proposes a team."))
    if st.team:
        return reject("locked", N_("You have already proposed a team."))
    team = tuple(game.seat(p) for p in a.team)
    if any(s < 0 for s in team):
        return reject("bad_member", N_("The team must be players of this game."))
    if len(set(team)) != len(team):
        return reject("duplicate", N_("Each player can be on the team only once."))
    if len(team) != st.team_size:
        return reject(
            "team_size",
            N_("The team for mission {mission} has {size} players."),
            mission=st.mission,
            size=st.team_size,
        )
    new = update(game, rules=update(st, team=team))
    seq = game.phase.seq
    text = msg(
        N_("{leader} proposes the team: {names}."),
        leader=game.names[seat],
        names=tuple(game.names[s] for s in team),
    )
    return Accepted(new, (announce(text, seq), Event(Kind.CHANGED, phase=seq)))


def vote(game: Game, a: Vote, seat: int) -> Accepted[Game] | Rejected:
    st: Resistance = game.rules
    if game.phase.name != TEAM_VOTE:
        return reject("wrong_phase", N_("Teams are voted on in the team vote phase."))
    if st.votes[seat] is not None:
        return reject("locked", N_("You have already voted."))
    makers = opinion_makers(st)
    if seat not in makers and any(st.votes[s] is None for s in makers):
        return reject("opinion_first", N_("The opinion makers vote first; wait for them."))
    votes = _set_vote(st.votes, seat, bool(a.approve))
    new = update(game, rules=update(st, votes=votes))
    seq = game.phase.seq
    choice = vote_msg(bool(a.approve))
    events: list[Event] = [
        tell(game.players[seat], msg(N_("Vote locked: {choice}."), choice=choice), seq)
    ]
    if seat in makers and all(votes[s] is not None for s in makers):
        shown = tuple(
            msg(
                N_("{name}: {choice}"),
                name=game.names[s],
                choice=vote_msg(bool(votes[s])),
            )
            for s in makers
        )
        events.append(
            announce(msg(N_("The opinion makers have voted: {votes}."), votes=shown), seq)
        )
    events.append(Event(Kind.CHANGED, phase=seq))
    return Accepted(new, tuple(events))


def mission(game: Game, a: Mission, seat: int) -> Accepted[Game] | Rejected:
    st: Resistance = game.rules
    if game.phase.name != MISSION:
        return reject("wrong_phase", N_("Mission cards are played in the mission phase."))
    if st.veto != NOBODY:
        return reject("vetoed", N_("The team was vetoed; there is no mission this time."))
    if seat not in st.team:
        return reject("not_on_team", N_("Only the team plays mission cards."))
    if st.cards[seat] is not None:
        return reject("locked", N_("You have already played your mission card."))
    if a.card not in (SUCCESS, FAIL):
        return reject("bad_card", N_("Play success or fail."))
    if a.card not in mission_choices(st, seat):
        return reject("resistance_fail", N_("The resistance may only play success."))
    cards = _set_card(st.cards, seat, a.card)
    new = update(game, rules=update(st, cards=cards))
    seq = game.phase.seq
    text = msg(N_("Mission card played: {card}."), card=mission_card(a.card))
    return Accepted(
        new,
        (tell(game.players[seat], text, seq, secret=True), Event(Kind.CHANGED, phase=seq)),
    )


def pass_(game: Game, a: Pass, seat: int) -> Accepted[Game] | Rejected:
    st: Resistance = game.rules
    if game.phase.name != MISSION or not _mission_holder(st, seat):
        return reject("nothing_to_pass", N_("You have no plot card to use now."))
    if seat in st.passed:
        return reject("locked", N_("You have already passed."))
    new = update(game, rules=update(st, passed=(*st.passed, seat)))
    return Accepted(new, (Event(Kind.CHANGED, phase=game.phase.seq),))


def _mission_holder(st: Resistance, seat: int) -> bool:
    """Holds a mission-phase card that can still be used this mission."""
    return st.veto == NOBODY and any(h.seat == seat and h.card in MISSION_CARDS for h in st.held)


def awaiting(game: Game) -> tuple[int, ...]:
    """Who the phase waits for. In the mission phase that includes holders of
    mission-phase plot cards (until they play or pass), so automatic advancing
    never closes their window before they had a chance."""
    st: Resistance = game.rules
    name = game.phase.name
    if name == PROPOSAL:
        owe = {h.seat for h in st.pending}
        if st.hand or not st.team:
            owe.add(st.leader)
        return tuple(sorted(owe))
    if name == TEAM_VOTE:
        return tuple(s for s, v in enumerate(st.votes) if v is None)
    if name == MISSION:
        if st.veto != NOBODY:
            return ()
        owe = {s for s in st.team if st.cards[s] is None}
        owe |= {h.seat for h in st.held if h.card in MISSION_CARDS and h.seat not in st.passed}
        return tuple(sorted(owe))
    return ()


def expected(game: Game) -> tuple[int, ...]:
    st: Resistance = game.rules
    name = game.phase.name
    if name == PROPOSAL:
        return tuple(sorted({st.leader} | {h.seat for h in st.pending}))
    if name == TEAM_VOTE:
        return tuple(range(len(game.players)))
    if name == MISSION:
        return st.team
    return ()


def legal(game: Game, player: str) -> tuple[ActionSpec, ...]:
    st: Resistance = game.rules
    seat = game.seat(player)
    if seat < 0 or not game.running:
        return ()
    seq = game.phase.seq
    name = game.phase.name
    specs: list[ActionSpec] = []
    others: tuple[Value, ...] = tuple(p for s, p in enumerate(game.players) if s != seat)
    if name == PROPOSAL and seat == st.leader:
        if st.hand:
            cards: tuple[Value, ...] = tuple(dict.fromkeys(st.hand))
            specs.append(ActionSpec(Give.kind, seq, (Field("card", cards), Field("to", others))))
        if not st.team:
            everyone: tuple[Value, ...] = tuple(game.players)
            specs.append(ActionSpec(Propose.kind, seq, (Field("team", everyone),)))
    if name == TEAM_VOTE and st.votes[seat] is None:
        makers = opinion_makers(st)
        if seat in makers or all(st.votes[s] is not None for s in makers):
            specs.append(ActionSpec(Vote.kind, seq, (Field("approve", (True, False)),)))
    if name == MISSION and st.veto == NOBODY and seat in st.team and st.cards[seat] is None:
        choices: tuple[Value, ...] = mission_choices(st, seat)
        specs.append(ActionSpec(Mission.kind, seq, (Field("card", choices),)))
    for card in playable(game, seat):
        targets: tuple[Value, ...] = tuple(
            None if t == NOBODY else game.players[t] for t in play_targets(game, seat, card)
        )
        specs.append(ActionSpec(Play.kind, seq, (Field("card", (card,)), Field("target", targets))))
    if name == MISSION and _mission_holder(st, seat) and seat not in st.passed:
        specs.append(ActionSpec(Pass.kind, seq))
    return tuple(specs)


__all__ = [
    "Give",
    "Mission",
    "Pass",
    "Play",
    "Propose",
    "Vote",
    "awaiting",
    "expected",
    "legal",
    "mission",
    "pass_",
    "propose",
    "vote",
]
