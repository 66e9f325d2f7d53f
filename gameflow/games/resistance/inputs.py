"""Resistance's player inputs: propose, vote, mission, give, play, pass.

`legal()` lists the allowed values; the handlers accept exactly those values and,
for anything else, say precisely why not. Both read the same helpers
(`playable`, `play_targets`, `mission_choices`), so keyboards and SMS menus
drawn from `legal()` never offer what would be refused. Plot-card effects are in
`plots.py`.
"""

from __future__ import annotations

from typing import Final

from gameflow.core.events import announce, changed, tell
from gameflow.core.legal import ActionSpec, Field, Value
from gameflow.core.result import Accepted, Rejected, accepted, reject
from gameflow.core.state import Game, input_state, replace_at, update
from gameflow.core.text import N_, msg
from gameflow.games.resistance import flow
from gameflow.games.resistance.actions import Give, Mission, Pass, Play, Propose, Vote
from gameflow.games.resistance.cards import MISSION_CARDS
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

# Hot paths (a vote is most of a game's inputs) copy one field by index, and the
# fixed texts and fields are built once: Msg and Field are immutable.
_TEAM: Final = Resistance._fields.index("team")
_VOTES: Final = Resistance._fields.index("votes")
_CARDS: Final = Resistance._fields.index("cards")
_LOCKED: Final = {v: msg(N_("Vote locked: {choice}."), choice=vote_msg(v)) for v in (True, False)}
_PLAYED: Final = {
    c: msg(N_("Mission card played: {card}."), card=mission_card(c)) for c in (SUCCESS, FAIL)
}
_APPROVE: Final = (Field("approve", (True, False)),)
_PROPOSES: Final = N_("{leader} proposes the team: {names}.")
_MISSION_CARD: Final = {
    True: (Field("card", (SUCCESS, FAIL)),),  # a spy
    False: (Field("card", (SUCCESS,)),),
}


def opinion_makers(st: Resistance) -> tuple[int, ...]:
    return st.opinion_makers()


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
    players = game.players
    try:
        team = tuple([players.index(p) for p in a.team])
    except ValueError:  # a name that is not a player of this game
        return reject("bad_member", N_("The team must be players of this game."))
    if len(set(team)) != len(team):
        return reject("duplicate", N_("Each player can be on the team only once."))
    size = st.config.teams[st.mission - 1]  # st.team_size, without the property call
    if len(team) != size:
        return reject(
            "team_size",
            N_("The team for mission {mission} has {size} players."),
            mission=st.mission,
            size=size,
        )
    new = input_state(game, replace_at(st, _TEAM, team))
    seq = game.phase.seq
    names = game.names
    text = msg(_PROPOSES, leader=names[seat], names=tuple([names[s] for s in team]))
    return accepted(new, (announce(text, seq), changed(seq)))


def vote(game: Game, a: Vote, seat: int, now: float) -> Accepted[Game] | Rejected:
    st: Resistance = game.rules
    if game.phase.name != TEAM_VOTE:
        return reject("wrong_phase", N_("Teams are voted on in the team vote phase."))
    if st.votes[seat] is not None:
        return reject("locked", N_("You have already voted."))
    makers = st.opinion_makers() if st.held else ()
    if makers and not st.opinions_shown and seat not in makers:
        return reject("opinion_first", N_("The opinion makers vote first; wait for them."))
    if makers and st.opinions_shown and seat in makers:
        return reject("opinion_missed", N_("Your time as opinion maker ran out: no vote now."))
    approve = bool(a.approve)
    votes = list(st.votes)
    votes[seat] = approve
    st = replace_at(st, _VOTES, tuple(votes))
    new = input_state(game, st)
    seq = game.phase.seq
    locked = tell(game.players[seat], _LOCKED[approve], seq)
    if st.opinions_shown or not makers or any(votes[s] is None for s in makers):
        return accepted(new, (locked, changed(seq)))
    # The last opinion maker has voted: show their votes and ask everyone else.
    opened = flow.open_vote(new, st, now, [locked])
    return accepted(opened.state, opened.events)


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
    cards = list(st.cards)
    cards[seat] = a.card
    new = input_state(game, replace_at(st, _CARDS, tuple(cards)))
    seq = game.phase.seq
    text = _PLAYED[a.card]
    return accepted(new, (tell(game.players[seat], text, seq, secret=True), changed(seq)))


def pass_(game: Game, a: Pass, seat: int) -> Accepted[Game] | Rejected:
    st: Resistance = game.rules
    if game.phase.name != MISSION or not _mission_holder(st, seat):
        return reject("nothing_to_pass", N_("You have no plot card to use now."))
    if seat in st.passed:
        return reject("locked", N_("You have already passed."))
    new = input_state(game, update(st, passed=(*st.passed, seat)))
    return accepted(new, (changed(game.phase.seq),))


def _mission_holder(st: Resistance, seat: int) -> bool:
    """Holds a mission-phase card that can still be used this mission."""
    return st.veto == NOBODY and any(h.seat == seat and h.card in MISSION_CARDS for h in st.held)


def _asked(st: Resistance, seat: int) -> bool:
    """Whether `seat` is asked in this team vote (its vote may be in already):
    with opinion makers, first only they are, then everyone else (a maker who
    let the time run out has no vote any more)."""
    makers = st.opinion_makers()
    if not makers:
        return True
    return (seat in makers) != st.opinions_shown or st.votes[seat] is not None


def awaiting(game: Game) -> tuple[int, ...]:
    """Who the phase waits for: exactly those `legal()` asks. In a team vote
    with opinion makers, first only the makers, then only everyone else. In the
    mission phase that includes holders of mission-phase plot cards (until they
    play or pass), so automatic advancing never closes their window before they
    had a chance."""
    st: Resistance = game.rules
    name = game.phase.name
    if name == TEAM_VOTE:  # asked after every vote: the common case first
        votes = st.votes
        if None not in votes:
            return ()
        if st.held:  # opinion makers first, then everyone else
            return tuple([s for s in range(len(votes)) if votes[s] is None and _asked(st, s)])
        return tuple([s for s, v in enumerate(votes) if v is None])
    if name == PROPOSAL:
        if not st.pending:  # no plot card waits for a choice: only the leader may owe
            return (st.leader,) if st.hand or not st.team else ()
        owe = {h.seat for h in st.pending}
        if st.hand or not st.team:
            owe.add(st.leader)
        return tuple(sorted(owe))
    if name == MISSION:
        if st.veto != NOBODY:
            return ()
        cards = st.cards
        owe = {s for s in st.team if cards[s] is None}
        if st.held:
            owe |= {h.seat for h in st.held if h.card in MISSION_CARDS and h.seat not in st.passed}
        return tuple(sorted(owe))
    return ()


def ready(game: Game) -> bool:
    """Nobody is awaited: asked after every input, and a team vote (most inputs)
    answers it without listing who has not voted."""
    name = game.phase.name
    st: Resistance = game.rules
    if name == TEAM_VOTE:
        return None not in st.votes or (bool(st.held) and not awaiting(game))
    if name == MISSION and not st.held:  # no plot card holder to wait for
        cards = st.cards
        return st.veto != NOBODY or all([cards[s] is not None for s in st.team])
    return not awaiting(game)


def expected(game: Game) -> tuple[int, ...]:
    st: Resistance = game.rules
    name = game.phase.name
    if name == PROPOSAL:
        return tuple(sorted({st.leader} | {h.seat for h in st.pending}))
    if name == TEAM_VOTE:
        if st.held:
            return tuple([s for s in range(len(game.players)) if _asked(st, s)])
        return tuple(range(len(game.players)))
    if name == MISSION:
        return st.team
    return ()


_PHASES: Final = (PROPOSAL, TEAM_VOTE, MISSION)  # the phases of a running game
# `legal` builds its specs directly (ActionSpec is a NamedTuple whose own
# `__new__` is Python code): it runs for every player after every input.
_new: Final = tuple.__new__
_VOTE: Final = Vote.kind
_MISSION: Final = Mission.kind


def legal(game: Game, player: str) -> tuple[ActionSpec, ...]:
    """What `player` may do now: the one source for validation, Telegram
    keyboards and SMS menus."""
    players = game.players
    phase = game.phase
    name = phase.name
    if name not in _PHASES or player not in players:
        return ()
    st: Resistance = game.rules
    seat = players.index(player)
    seq = phase.seq
    if name == TEAM_VOTE:  # most calls: a vote, or nothing (no plot card plays now)
        if st.votes[seat] is not None or (st.held and not _asked(st, seat)):
            return ()
        return (_new(ActionSpec, (_VOTE, seq, _APPROVE)),)
    plots = bool(st.held or st.pending)
    specs: list[ActionSpec] = []
    if name == PROPOSAL:
        if seat == st.leader:
            if st.hand:
                cards: tuple[Value, ...] = tuple(dict.fromkeys(st.hand))
                others: tuple[Value, ...] = tuple([p for s, p in enumerate(players) if s != seat])
                give = (Field("card", cards), Field("to", others))
                specs.append(_new(ActionSpec, (Give.kind, seq, give)))
            if not st.team:
                team: tuple[Field, ...] = (_new(Field, ("team", players, True, False)),)
                specs.append(_new(ActionSpec, (Propose.kind, seq, team)))
    elif st.veto == NOBODY and st.cards[seat] is None and seat in st.team:
        choices = _MISSION_CARD[st.spy[seat]]
        if not plots:
            return (_new(ActionSpec, (_MISSION, seq, choices)),)
        specs.append(_new(ActionSpec, (_MISSION, seq, choices)))
    if plots:  # plot cards to play now
        for card in playable(game, seat):
            targets: tuple[Value, ...] = tuple(
                None if t == NOBODY else players[t] for t in play_targets(game, seat, card)
            )
            play = (Field("card", (card,)), Field("target", targets))
            specs.append(ActionSpec(Play.kind, seq, play))
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
    "ready",
    "vote",
]
