"""The Traitors' inputs: dispatch, legal actions, and who still owes an input.

`legal()` lists exactly what the validators in `missions`, `roundtable`,
`night` and `control` accept, reading the same helpers (`dagger_counts`,
`murder_targets`, `force_targets`, `may_tempt`, `must_force`), so a keyboard
or SMS menu drawn from it never offers what would be refused.
"""

from __future__ import annotations

from gameflow.core.actions import Action
from gameflow.core.legal import ActionSpec, Field, Value
from gameflow.core.result import Accepted, Rejected, reject
from gameflow.core.state import Game
from gameflow.core.text import N_
from gameflow.games.traitors import control, missions, night, roundtable
from gameflow.games.traitors.actions import (
    HOST_ACTIONS,
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
from gameflow.games.traitors.state import (
    ANSWER,
    END_VOTE,
    MISSION,
    NIGHT,
    REVOTE,
    ROUNDTABLE,
    TIE,
    TRAITOR,
    Traitors,
)


def act(game: Game, a: Action) -> Accepted[Game] | Rejected:
    if type(a) in HOST_ACTIONS:
        if a.by != game.host:
            return reject("host_only", N_("Only the game master can do that."))
        return control.act(game, a)
    seat = game.seat(a.by or "")
    if seat < 0:
        return reject("not_in_game", N_("You are not playing in this game."))
    if isinstance(a, Reply):
        return missions.reply(game, a, seat)
    if isinstance(a, Vote):
        return roundtable.vote(game, a, seat)
    if isinstance(a, Plea):
        return roundtable.plea(game, a, seat)
    if isinstance(a, Murder | Tempt | Force):
        return night.night_vote(game, a, seat)
    if isinstance(a, DeathList):
        return night.death_list(game, a, seat)
    if isinstance(a, Answer):
        return night.answer(game, a, seat)
    if isinstance(a, EndVote):
        return roundtable.end_vote(game, a, seat)
    raise TypeError(f"not a Traitors action: {a!r}")


def _night_owes(st: Traitors, seat: int, day: int) -> bool:
    if st.death_list_on and not st.death_list and st.pending is None:
        return True  # the list is still to be written
    if night.must_force(st, day):
        if st.pending is not None:
            return st.force_votes[seat] is None
        return st.force_votes[seat] is None or st.night_votes[seat] is None
    return st.night_votes[seat] is None


def expected(game: Game) -> tuple[int, ...]:
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
    if name == NIGHT:
        return st.traitors()
    if name == ANSWER and st.pending is not None:
        return (st.pending.target,)
    if name == END_VOTE:
        return st.seats()
    return ()


def awaiting(game: Game) -> tuple[int, ...]:
    st: Traitors = game.rules
    name = game.phase.name
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
    if name == NIGHT:
        return tuple(s for s in want if _night_owes(st, s, game.phase.round))
    if name == ANSWER:
        return want if st.answer is None else ()
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
    if name == NIGHT and st.role[seat] == TRAITOR:
        force = night.must_force(st, day)
        if st.pending is None and st.night_votes[seat] is None:
            targets = night.murder_targets(st)
            if force and st.force_votes[seat] is not None:
                targets = tuple(s for s in targets if s != st.force_votes[seat])
            if targets:
                specs.append(ActionSpec(Murder.kind, seq, (Field("target", _ids(game, targets)),)))
            if night.may_tempt(st, day):
                specs.append(
                    ActionSpec(Tempt.kind, seq, (Field("target", _ids(game, st.loyals())),))
                )
        if force and st.force_votes[seat] is None:
            targets = night.force_targets(st)
            mine = st.night_votes[seat]
            if mine is not None:
                targets = tuple(s for s in targets if s != mine.target)
            if targets:
                specs.append(ActionSpec(Force.kind, seq, (Field("target", _ids(game, targets)),)))
        if st.death_list_on and not st.death_list and st.pending is None:
            specs.append(
                ActionSpec(DeathList.kind, seq, (Field("names", _ids(game, st.seats()), True),))
            )
    if (
        name == ANSWER
        and st.pending is not None
        and st.pending.target == seat
        and st.answer is None
    ):
        specs.append(ActionSpec(Answer.kind, seq, (Field("accept", (True, False)),)))
    if name == END_VOTE and st.end_votes[seat] is None:
        specs.append(ActionSpec(EndVote.kind, seq, (Field("end", (True, False)),)))
    return tuple(specs)
