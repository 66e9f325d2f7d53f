"""Station's player inputs: the mission choice and the vote, and their legal values.

`legal()` lists the allowed values; `choose()` and `vote()` accept exactly those
values and, for anything else, say precisely why not. Both read the same helper
functions (`jobs_for`, `secrets_for`, `vote_targets`), so the keyboards and menus
drawn from `legal()` can never offer what would be refused.
"""

from __future__ import annotations

from typing import Final

from gameflow.core.events import Event, Kind
from gameflow.core.legal import ActionSpec, Field, Value
from gameflow.core.result import Accepted, Rejected, reject
from gameflow.core.state import Game, replace_at
from gameflow.core.text import N_, Msg
from gameflow.games.station.actions import Choose, Vote
from gameflow.games.station.state import (
    GUARD,
    JOBS,
    MISSION,
    NOBODY,
    OUTSIDE,
    SABOTAGE,
    TRAP,
    VOTE,
    Choice,
    Station,
)
from gameflow.games.station.texts import JOB_NAMES


def jobs_for(st: Station, seat: int, round_: int) -> tuple[str, ...]:
    """An injured player may hold radio or guard, not outside, in their injured round."""
    if st.injured == seat and st.injured_round == round_:
        return tuple(j for j in JOBS if j != OUTSIDE)
    return JOBS


def secrets_for(st: Station, seat: int) -> tuple[str | None, ...]:
    if not st.infiltrator[seat]:
        return (None,)
    if st.trap is not None and st.trap.by == seat:
        return (None, SABOTAGE, TRAP)
    return (None, SABOTAGE)


def vote_targets(game: Game, st: Station, seat: int) -> tuple[str | None, ...]:
    r = game.phase.round
    others = tuple(p for s, p in enumerate(game.players) if s != seat and st.active(s, r))
    return (*others, None)


def _inactive(st: Station, seat: int) -> Rejected:
    if st.dead[seat]:
        return reject("dead", N_("You are dead: you follow the rest of the game in silence."))
    return reject("sitting_out", N_("You sit out this round."))


# What a player is told who sends a phase's input in another phase, or twice.
_WRONG_PHASE: Final = {
    MISSION: N_("Choices are made in the mission phase."),
    VOTE: N_("Votes are cast in the vote phase."),
}
_LOCKED: Final = {
    MISSION: N_("You have already sent your choice."),
    VOTE: N_("You have already voted."),
}


def _closed(game: Game, seat: int, phase: str, sent: tuple[object, ...]) -> Rejected | None:
    """Why `seat` may not send phase `phase`'s input now, in this order: another
    phase, they sit out or are dead, they sent it already (`sent`: one a seat);
    None when they may."""
    st: Station = game.rules
    if game.phase.name != phase:
        return reject("wrong_phase", _WRONG_PHASE[phase])
    if not st.active(seat, game.phase.round):
        return _inactive(st, seat)
    if sent[seat] is not None:
        return reject("locked", _LOCKED[phase])
    return None


def _sent(
    game: Game,
    seat: int,
    field: int,
    old: tuple[object, ...],
    value: object,
    text: Msg,
    secret: bool,
) -> Accepted[Game]:
    """`seat`'s input `value` in field `field` of the state (`old`: one a seat),
    told back to them as `text`."""
    values = (*old[:seat], value, *old[seat + 1 :])
    new = replace_at(game, _RULES, replace_at(game.rules, field, values))
    seq = game.phase.seq
    return Accepted(
        new,
        (
            Event(Kind.TELL, game.players[seat], text, seq, None, secret),
            Event(Kind.CHANGED, None, None, seq),
        ),
    )


def choose(game: Game, a: Choose, seat: int) -> Accepted[Game] | Rejected:
    st: Station = game.rules
    r = game.phase.round
    if (closed := _closed(game, seat, MISSION, st.choices)) is not None:
        return closed
    if not 1 <= a.plan <= len(st.plans):
        return reject("bad_plan", N_("Choose plan 1, 2 or 3."))
    if a.job not in JOBS:
        return reject("bad_job", N_("Choose the job outside, radio or guard."))
    if a.job not in jobs_for(st, seat, r):
        return reject("injured", N_("You are injured this round: choose radio or guard."))
    partner = NOBODY
    if a.partner is not None:
        partner = game.seat(a.partner)
        if partner < 0 or partner == seat:
            return reject("bad_partner", N_("Your partner must be another player of this game."))
    if a.sabotage and a.trap:
        return reject("both_secrets", N_("You can't sabotage and set the trap in the same round."))
    secrets = secrets_for(st, seat)
    if (a.sabotage or a.trap) and not st.infiltrator[seat]:
        return reject("not_infiltrator", N_("Only infiltrators have secret actions."))
    if a.trap and TRAP not in secrets:
        return reject("no_trap_card", N_("You have no trap card this round."))
    choice = Choice(a.plan - 1, a.job, partner, a.sabotage, a.trap)
    return _sent(game, seat, _CHOICES, st.choices, choice, _locked_text(game, choice), True)


# Hot-path constants: field positions for `replace_at`, and the fixed texts.
_RULES: Final = Game._fields.index("rules")
_CHOICES: Final = Station._fields.index("choices")
_VOTES: Final = Station._fields.index("votes")
_JOB_MSGS: Final = {job: Msg(name) for job, name in JOB_NAMES.items()}
_NO_PARTNER: Final = Msg(N_("no partner"))
_SECRET_MSGS: Final = {
    (True, False): Msg(N_("sabotage")),
    (False, True): Msg(N_("trap")),
    (False, False): Msg(N_("none")),
}
_NOBODY: Final = Msg(N_("Nobody"))


def _locked_text(game: Game, c: Choice) -> Msg:
    partner = game.names[c.partner] if c.partner != NOBODY else _NO_PARTNER
    return Msg(
        N_("Choice locked: plan {plan}, {job}, partner: {partner}, secret action: {secret}."),
        (
            ("plan", c.plan + 1),
            ("job", _JOB_MSGS[c.job]),
            ("partner", partner),
            ("secret", _SECRET_MSGS[c.sabotage, c.trap]),
        ),
    )


def vote(game: Game, a: Vote, seat: int) -> Accepted[Game] | Rejected:
    st: Station = game.rules
    r = game.phase.round
    if (closed := _closed(game, seat, VOTE, st.votes)) is not None:
        return closed
    target = NOBODY
    if a.target is not None:
        target = game.seat(a.target)
        if target == seat:
            return reject("self_vote", N_("You can't vote for yourself."))
        if target < 0 or not st.active(target, r):
            return reject("bad_target", N_("Vote for another active player, or for nobody."))
    chosen = game.names[target] if target != NOBODY else _NOBODY
    text = Msg(N_("Vote locked: {choice}."), (("choice", chosen),))
    return _sent(game, seat, _VOTES, st.votes, target, text, False)


def awaiting(game: Game) -> tuple[int, ...]:
    """Active seats that have not yet sent this phase's input (hot path: the
    engine asks after every action whether everyone is ready)."""
    st: Station = game.rules
    name = game.phase.name
    if name == MISSION:
        pending: tuple[object, ...] = st.choices
    elif name == VOTE:
        pending = st.votes
    else:
        return ()
    return tuple([s for s in st.active_seats if pending[s] is None])


def expected(game: Game) -> tuple[int, ...]:
    st: Station = game.rules
    if game.phase.name not in (MISSION, VOTE):
        return ()
    return st.active_seats


def legal(game: Game, player: str) -> tuple[ActionSpec, ...]:
    st: Station = game.rules
    seat = game.seat(player)
    r = game.phase.round
    seq = game.phase.seq
    if seat < 0 or not st.active(seat, r):
        return ()
    if game.phase.name == MISSION and st.choices[seat] is None:
        others: tuple[Value, ...] = tuple(p for s, p in enumerate(game.players) if s != seat)
        return (
            ActionSpec(
                Choose.kind,
                seq,
                (
                    Field("plan", tuple(range(1, len(st.plans) + 1))),
                    Field("job", jobs_for(st, seat, r)),
                    Field("partner", (*others, None)),
                    Field("secret", secrets_for(st, seat)),
                ),
            ),
        )
    if game.phase.name == VOTE and st.votes[seat] is None:
        return (ActionSpec(Vote.kind, seq, (Field("for", vote_targets(game, st, seat)),)),)
    return ()


__all__ = ["GUARD", "awaiting", "choose", "expected", "legal", "vote"]
