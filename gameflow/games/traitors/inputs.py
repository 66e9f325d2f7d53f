"""The Traitors' inputs: dispatch, legal actions, and who still owes an input.

`legal()` lists exactly what the validators in `missions`, `roundtable`,
`night` and `control` accept, reading the same helpers (`dagger_counts`,
`night.choices`, `night.asked`), so a keyboard or SMS menu drawn from it never
offers what would be refused. At night `awaiting()` reads the same
`night.choices` and `night.asked`, so nobody is awaited who is asked nothing;
`expected()` is empty then, since who acts at night is the secret.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from gameflow.core.actions import Action
from gameflow.core.legal import ActionSpec, Field, Value
from gameflow.core.result import Accepted, Rejected, reject
from gameflow.core.state import Game
from gameflow.core.text import N_
from gameflow.games.traitors import control, missions, night, roundtable
from gameflow.games.traitors.actions import (
    HOST_ACTIONS,
    NIGHT_KINDS,
    NIGHT_VOTES,
    Answer,
    DeathList,
    EndVote,
    Plea,
    Reply,
    Vote,
)
from gameflow.games.traitors.state import (
    END_VOTE,
    MISSION,
    NIGHT_PHASES,
    REVOTE,
    ROUNDTABLE,
    TIE,
    TRAITOR,
    Traitors,
)

# Each player input and the function that takes it, from the acting seat.
TAKES: Final[dict[type[Action], Callable[[Game, Any, int], Accepted[Game] | Rejected]]] = {
    Reply: missions.reply,
    Vote: roundtable.vote,
    Plea: roundtable.plea,
    **dict.fromkeys(NIGHT_VOTES, night.night_vote),
    DeathList: night.death_list,
    Answer: night.answer,
    EndVote: roundtable.end_vote,
}


def act(game: Game, a: Action) -> Accepted[Game] | Rejected:
    if type(a) in HOST_ACTIONS:
        if a.by != game.host:
            return reject("host_only", N_("Only the game master can do that."))
        return control.act(game, a)
    seat = game.seat(a.by or "")
    if seat < 0:
        return reject("not_in_game", N_("You are not playing in this game."))
    take = TAKES.get(type(a))
    if take is None:
        raise TypeError(f"not a Traitors action: {a!r}")
    return take(game, a, seat)


def expected(game: Game) -> tuple[int, ...]:
    """Seats that owe an input in this phase at all, as far as anyone may know:
    nobody at night (who acts then is the secret; see `awaiting`)."""
    st: Traitors = game.rules
    name = game.phase.name
    if st is None or not game.running:
        return ()
    if name == MISSION:
        m = st.mission
        return st.seats() if m is not None and m.kind != "host" else ()
    if name in (ROUNDTABLE, REVOTE):
        t = st.table
        tied = t.candidates if name == REVOTE and t.kind == TIE else ()
        return tuple(sorted((*t.voters, *tied)))
    if name == END_VOTE:
        return st.seats()
    return ()


def night_owed(game: Game) -> tuple[int, ...]:
    """Who owes something tonight: traitors with a choice left to send (the
    same `night.choices` that legal() offers), and the player asked to answer."""
    st: Traitors = game.rules
    day = game.phase.round
    asked = night.asked(st)
    return tuple(s for s in st.seats() if s == asked or night.choices(st, s, day))


def awaiting(game: Game) -> tuple[int, ...]:
    st: Traitors = game.rules
    name = game.phase.name
    if name in NIGHT_PHASES:
        return night_owed(game) if game.running else ()
    want = expected(game)
    if name == MISSION:
        m = st.mission
        assert m is not None
        return tuple(s for s in want if m.replies[s] is None)
    if name in (ROUNDTABLE, REVOTE):
        t = st.table
        return tuple(
            s
            for s in want
            if (s in t.voters and t.ballots[s] is None)
            or (s not in t.voters and t.pleas[s] is None)
        )
    if name == END_VOTE:
        return tuple(s for s in want if st.end_votes[s] is None)
    return ()


def _ids(game: Game, seats: tuple[int, ...]) -> tuple[Value, ...]:
    return tuple(game.players[s] for s in seats)


def legal(game: Game, player: str) -> tuple[ActionSpec, ...]:
    st: Traitors = game.rules
    hosting = control.legal(game) if player == game.host else ()
    return hosting + _player_legal(game, st, player)


def _player_legal(game: Game, st: Traitors, player: str) -> tuple[ActionSpec, ...]:
    seat = game.seat(player)
    seq = game.phase.seq
    day = game.phase.round
    name = game.phase.name
    if seat < 0 or not st.active(seat):
        return ()
    specs: list[ActionSpec] = []
    m = st.mission
    if name == MISSION and m is not None and m.kind != "host" and m.replies[seat] is None:
        if m.kind == "relay":
            others = _ids(game, tuple(s for s in st.seats() if s != seat))
            drops: tuple[Value, ...] = (False, True) if st.role[seat] == TRAITOR else (False,)
            specs.append(ActionSpec(Reply.kind, seq, (Field("to", others), Field("drop", drops))))
        else:
            specs.append(ActionSpec(Reply.kind, seq, (Field("chest", missions.CHESTS),)))
    t = st.table
    if name in (ROUNDTABLE, REVOTE):
        if seat in t.voters and t.ballots[seat] is None:
            targets = tuple(c for c in t.candidates if c != seat)
            fields = [Field("for", _ids(game, targets))]
            if roundtable.dagger_counts(game, st, seat):
                fields.append(Field("dagger", (False, True)))
            if targets:
                specs.append(ActionSpec(Vote.kind, seq, tuple(fields)))
        if name == REVOTE and t.kind == TIE and seat in t.candidates and t.pleas[seat] is None:
            specs.append(ActionSpec(Plea.kind, seq, (Field("text", (), free=True),)))
    if name in NIGHT_PHASES:
        offered = night.choices(st, seat, day)
        for kind in NIGHT_KINDS:
            if kind in offered:
                ids = _ids(game, offered[kind])
                specs.append(ActionSpec(kind, seq, (Field("target", ids),)))
        if night.DEATH_LIST in offered:
            names = _ids(game, offered[night.DEATH_LIST])
            specs.append(ActionSpec(DeathList.kind, seq, (Field("names", names, True),)))
        if night.asked(st) == seat:
            specs.append(ActionSpec(Answer.kind, seq, (Field("accept", (True, False)),)))
    if name == END_VOTE and st.end_votes[seat] is None:
        specs.append(ActionSpec(EndVote.kind, seq, (Field("end", (True, False)),)))
    return tuple(specs)
