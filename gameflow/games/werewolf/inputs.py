"""Werewolf's player inputs and their legal values.

`legal()` lists the allowed values; `act()` accepts exactly those values and,
for anything else, says why not. Both read the same `targets()`, so a keyboard
or SMS menu drawn from `legal()` never offers what would be refused.
[decision] A night never ends early, as a Traitors night does not: when the
night's roles have all acted is itself a secret (who is awake).
"""

from __future__ import annotations

from gameflow.core.actions import Action
from gameflow.core.legal import ActionSpec, Field, Value
from gameflow.core.result import Accepted, Rejected, reject
from gameflow.core.state import Game, input_state
from gameflow.core.text import N_
from gameflow.games.werewolf.actions import Inspect, Kill, Lynch, Protect
from gameflow.games.werewolf.state import (
    DOCTOR,
    NIGHT,
    NOBODY,
    REVOTE,
    SEER,
    VOTE,
    WOLF,
    Werewolf,
)

NIGHT_KINDS = {WOLF: Kill.kind, SEER: Inspect.kind, DOCTOR: Protect.kind}


def targets(game: Game, seat: int) -> tuple[str, tuple[Value, ...]] | None:
    """The action kind `seat` owes now and its allowed targets, or None."""
    st: Werewolf = game.rules
    if not game.running or seat < 0 or st.dead[seat]:
        return None
    name = game.phase.name
    living = st.living()
    role = st.roles[seat]
    if name == NIGHT:
        if role == WOLF:
            prey = tuple(game.players[s] for s in living if st.roles[s] != WOLF)
            return Kill.kind, (*prey, None)
        if role == SEER:
            return Inspect.kind, tuple(game.players[s] for s in living if s != seat)
        if role == DOCTOR:
            repeat = game.option("doctor_repeat", False)
            allowed = (s for s in living if repeat or s != st.last_protected)
            return Protect.kind, tuple(game.players[s] for s in allowed)
        return None
    if name in (VOTE, REVOTE):
        pool = st.tied if name == REVOTE else living
        return Lynch.kind, (*(game.players[s] for s in pool if s != seat), None)
    return None


def _done(game: Game, seat: int) -> bool:
    st: Werewolf = game.rules
    name = game.phase.name
    if name == NIGHT:
        role = st.roles[seat]
        if role == WOLF:
            return st.kills[seat] != NOBODY
        return (st.inspect if role == SEER else st.protect) != NOBODY
    return bool(st.votes) and st.votes[seat] is not None


def legal(game: Game, player: str) -> tuple[ActionSpec, ...]:
    seat = game.seat(player)
    owed = targets(game, seat)
    if owed is None or _done(game, seat):
        return ()
    kind, options = owed
    return (ActionSpec(kind, game.phase.seq, (Field("target", options),)),)


def expected(game: Game) -> tuple[int, ...]:
    return tuple(s for s in range(len(game.players)) if targets(game, s) is not None)


def awaiting(game: Game) -> tuple[int, ...]:
    return tuple(s for s in expected(game) if not _done(game, s))


def act(game: Game, action: Action) -> Accepted[Game] | Rejected:
    st: Werewolf = game.rules
    seat = game.seat(action.by or "")
    if seat < 0:
        return reject("not_player", N_("You are not a player in this game."))
    if st.dead[seat]:
        return reject("dead", N_("You are dead: you follow the rest of the game in silence."))
    owed = targets(game, seat)
    if owed is None or owed[0] != action.kind:
        return reject("wrong_phase", N_("That is not yours to do now."))
    if _done(game, seat):
        return reject("locked", N_("You have already answered."))
    target = getattr(action, "target", None)
    if target not in owed[1]:
        return reject("bad_target", N_("Choose one of the players offered."))
    chosen = NOBODY if target is None else game.seat(target)
    if isinstance(action, Kill):
        # a wolf's "nobody" counts as answered: it is held as the wolf's own seat
        held = seat if target is None else chosen
        kills = tuple(held if s == seat else k for s, k in enumerate(st.kills))
        return Accepted(input_state(game, st._replace(kills=kills)), ())
    if isinstance(action, Inspect):
        return Accepted(input_state(game, st._replace(inspect=chosen)), ())
    if isinstance(action, Protect):
        return Accepted(input_state(game, st._replace(protect=chosen)), ())
    votes = tuple(chosen if s == seat else v for s, v in enumerate(st.votes))
    return Accepted(input_state(game, st._replace(votes=votes)), ())
