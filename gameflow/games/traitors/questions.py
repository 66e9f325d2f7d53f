"""What a Traitors player is asked: the context lines of their open question.

A player without a TV (SMS, a phone far from the table) must know from the
question alone what to answer: the mission's rules, who can be voted for and
that the dagger doubles a vote, that a plea is read to everyone, what saying
yes to a letter means. The lines are built from the player's own `legal()`
specs, so they describe exactly what is offered, and they are private to that
player (a traitor's lines may name the cursed chest). They are kept to one or
two short lines: an SMS costs money.
"""

from __future__ import annotations

from typing import Final

from gameflow.core.state import Game
from gameflow.core.text import N_, Msg, msg
from gameflow.games.traitors import inputs, missions, roundtable
from gameflow.games.traitors.actions import (
    NIGHT_KINDS,
    Answer,
    DeathList,
    EndVote,
    Force,
    Murder,
    Plea,
    Reply,
    Tempt,
    Vote,
)
from gameflow.games.traitors.state import FORCE, OPEN, TEMPT, TIE, TRAITOR, Traitors

RELAY: Final = N_("Pass your silver bag to one player: a clean handover adds {gain} silver.")
RELAY_DROP: Final = N_("As a traitor you may drop it instead: the pot loses {loss} silver.")
CHESTS: Final = N_(
    "Open chest 1, 2 or 3: the treasure chest lets its openers into the shield room."
)
CURSED: Final = N_("Chest {chest} is cursed: each opener costs the pot {loss} silver.")
VOTE: Final = N_("Vote to banish one of: {names}.")
REVOTE: Final = N_("Re-vote between {names}; they don't vote.")
NEW_VOTE: Final = N_("A new vote: {names} can no longer be voted for.")
DAGGER: Final = N_("You hold the dagger: lay it down with your vote and it counts twice.")
PLEA: Final = N_("Write your plea in one line: it is read to everyone.")
MURDER: Final = N_("Tonight: choose the loyal player to murder.")
MURDER_OR_TEMPT: Final = N_("Tonight: murder a loyal player, or tempt one to join you.")
FORCE_AND_MURDER: Final = N_(
    "You are the last traitor: force one player to join, and murder another."
)
FORCE_AGAIN: Final = N_("The player you forced used the shield: force another player.")
LIST: Final = N_("Write {n} names on the death list, at least one of them loyal.")
TEMPTED: Final = N_(
    "The traitors invite you to join them. Yes: you become a traitor for good. "
    "No or silence: you stay loyal."
)
FORCED: Final = N_(
    "The last traitor forces you to join. Yes: give up your shield and join. "
    "No or silence: use it and stay loyal."
)
END: Final = N_("End the game now? If everyone says end, roles are revealed.")
TEXTS: Final = (
    RELAY,
    RELAY_DROP,
    CHESTS,
    CURSED,
    VOTE,
    REVOTE,
    NEW_VOTE,
    DAGGER,
    PLEA,
    MURDER,
    MURDER_OR_TEMPT,
    FORCE_AND_MURDER,
    FORCE_AGAIN,
    LIST,
    TEMPTED,
    FORCED,
    END,
)


def ask(game: Game, player: str) -> tuple[Msg, ...]:
    """The context lines of `player`'s open question (gameflow.core.question)."""
    seat = game.seat(player)
    if not game.running or seat < 0:
        return ()
    st: Traitors = game.rules
    kinds = {spec.kind for spec in inputs.legal(game, player)}
    lines: list[Msg] = []
    if Reply.kind in kinds:
        lines.extend(_mission(st, seat))
    if Vote.kind in kinds:
        lines.extend(_vote(game, st, seat))
    if Plea.kind in kinds:
        lines.append(msg(PLEA))
    if kinds & {*NIGHT_KINDS, DeathList.kind}:
        lines.extend(_night(st, kinds))
    if Answer.kind in kinds and st.pending is not None:
        lines.append(msg(TEMPTED if st.pending.kind == TEMPT else FORCED))
    if EndVote.kind in kinds:
        lines.append(msg(END))
    return tuple(lines)


def _mission(st: Traitors, seat: int) -> list[Msg]:
    m = st.mission
    if m is None:
        return []
    traitor = st.role[seat] == TRAITOR
    if m.kind == "relay":
        lines = [msg(RELAY, gain=missions.RELAY_GAIN)]
        if traitor:
            lines.append(msg(RELAY_DROP, loss=missions.RELAY_LOSS))
        return lines
    lines = [msg(CHESTS)]
    if traitor:
        lines.append(msg(CURSED, chest=m.cursed, loss=missions.CHEST_LOSS))
    return lines


def _vote(game: Game, st: Traitors, seat: int) -> list[Msg]:
    t = st.table
    names = tuple(game.names[s] for s in t.candidates if s != seat)
    if t.kind == TIE:
        lines = [msg(REVOTE, names=tuple(game.names[s] for s in t.candidates))]
    else:
        lines = [msg(VOTE, names=names)]
        if t.kind == OPEN and t.excluded:
            lines.insert(0, msg(NEW_VOTE, names=tuple(game.names[s] for s in t.excluded)))
    if roundtable.dagger_counts(game, st, seat):
        lines.append(msg(DAGGER))
    return lines


def _night(st: Traitors, kinds: set[str]) -> list[Msg]:
    lines: list[Msg] = []
    p = st.pending
    if p is not None and p.kind == FORCE:
        lines.append(msg(FORCE_AGAIN))
    elif Force.kind in kinds:
        lines.append(msg(FORCE_AND_MURDER))
    elif Tempt.kind in kinds:
        lines.append(msg(MURDER_OR_TEMPT))
    elif Murder.kind in kinds:
        lines.append(msg(MURDER))
    if DeathList.kind in kinds:
        lines.append(msg(LIST, n=min(st.config.death_list_size, len(st.seats()))))
    return lines


__all__ = ["ask"]
