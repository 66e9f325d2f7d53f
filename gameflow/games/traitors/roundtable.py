"""The round table: votes, the dagger, the tie protocol, and the final round table.

A vote is OPEN (every active player votes; candidates are the active players
not excluded) or TIE (a re-vote among the tied, who do not vote themselves).
After an OPEN vote ties, the tied players plead (one line each, broadcast) and a
TIE vote follows. When a TIE vote ties again, every player it was over is
excluded as a candidate (the seed; [decision] `second_tie_excludes_all` off:
only those tied again) and a new OPEN vote runs without them; repeat until
someone is banished. [decision] A vote in which nobody votes, a TIE vote nobody
can vote in, and a new vote with no candidate left are settled by a seeded
draw, so a silent table still ends.

Dagger: laid down with the holder's vote in the day's first vote it counts
twice there and in the TIE vote that directly follows. On the final day it
doubles exactly one vote, of the holder's choosing.
"""

from __future__ import annotations

from collections import Counter
from typing import Final

from gameflow.core.events import Event, Kind, announce, prompt, tell
from gameflow.core.phases import enter
from gameflow.core.result import Accepted, Rejected, reject
from gameflow.core.rng import rng_for
from gameflow.core.state import Game
from gameflow.core.text import N_, Msg, msg
from gameflow.games.traitors import flow
from gameflow.games.traitors.actions import EndVote, Plea, Vote
from gameflow.games.traitors.options import clockless_seconds
from gameflow.games.traitors.state import (
    BANISHED,
    END_VOTE,
    MAX_TEXT,
    NOBODY,
    OPEN,
    REVOTE,
    ROUNDTABLE,
    TIE,
    TRAITORS,
    Ballot,
    Reading,
    Table,
    Traitors,
    put,
)

ROLE_NAMES: Final = {"loyal": N_("a loyal player"), "traitor": N_("a traitor")}


def final_day(game: Game, st: Traitors) -> bool:
    return game.phase.round >= st.final_day


def dagger_counts(game: Game, st: Traitors, seat: int) -> bool:
    """May `seat` lay (or still use) the dagger in the vote running now?"""
    t = st.table
    if st.dagger != seat or seat == NOBODY:
        return False
    if final_day(game, st):
        return not st.dagger_used
    return t.number == 0 or (t.kind == TIE and t.number == 1 and t.dagger_laid == 0)


def weight(game: Game, st: Traitors, seat: int, ballot: Ballot) -> int:
    t = st.table
    if st.dagger != seat:
        return 1
    if final_day(game, st):
        return 2 if ballot.dagger else 1
    if t.number == 0:
        return 2 if ballot.dagger else 1
    return 2 if (t.kind == TIE and t.number == 1 and t.dagger_laid == 0) else 1


def one_line(text: str) -> str | None:
    clean = " ".join(text.split())
    return clean if len(clean) <= MAX_TEXT and "\n" not in text else None


def vote(game: Game, a: Vote, seat: int) -> Accepted[Game] | Rejected:
    st: Traitors = game.rules
    t = st.table
    if game.phase.name not in (ROUNDTABLE, REVOTE):
        return reject("wrong_phase", N_("Votes are cast at the round table."))
    if not st.active(seat):
        return reject("not_active", N_("You are out of the game."))
    if seat not in t.voters:
        return reject(
            "tied", N_("You are one of the tied players: you don't vote in this re-vote.")
        )
    if t.ballots[seat] is not None:
        return reject("locked", N_("You have already voted; votes can't be changed."))
    target = game.seat(a.target)
    if target == seat:
        return reject("self_vote", N_("You can't vote for yourself."))
    if target < 0 or target not in t.candidates:
        return reject("bad_target", N_("Vote for one of the players who can be banished now."))
    if a.dagger and st.dagger != seat:
        return reject("no_dagger", N_("You don't hold the dagger."))
    if a.dagger and not dagger_counts(game, st, seat):
        return reject("dagger_spent", N_("The dagger can no longer be used in this vote."))
    reason = one_line(a.reason)
    if reason is None:
        return reject(
            "long_reason", N_("Keep your reason to one line of {max} characters."), max=MAX_TEXT
        )
    t = t._replace(ballots=put(t.ballots, seat, Ballot(target, a.dagger, reason)))
    if a.dagger and t.dagger_laid < 0:
        t = t._replace(dagger_laid=t.number)
    st = st._replace(table=t, dagger_used=st.dagger_used or a.dagger)
    return Accepted(
        game._replace(rules=st),
        (
            tell(
                game.players[seat],
                msg(N_("Vote locked: {name}."), name=game.names[target]),
                game.phase.seq,
            ),
            Event(Kind.CHANGED, phase=game.phase.seq),
        ),
    )


def plea(game: Game, a: Plea, seat: int) -> Accepted[Game] | Rejected:
    st: Traitors = game.rules
    t = st.table
    if game.phase.name != REVOTE or t.kind != TIE or seat not in t.candidates:
        return reject("no_plea", N_("Only tied players plead, before the re-vote."))
    if t.pleas[seat] is not None:
        return reject("locked", N_("You have already made your plea."))
    text = one_line(a.text)
    if not text:
        return reject(
            "long_reason", N_("Keep your plea to one line of {max} characters."), max=MAX_TEXT
        )
    st = st._replace(table=t._replace(pleas=put(t.pleas, seat, text)))
    said = msg(N_("{name} pleads: {text}"), name=game.names[seat], text=text)
    return Accepted(game._replace(rules=st), (announce(said, game.phase.seq),))


def close(game: Game, now: float) -> Accepted[Game]:
    """Read the votes out one by one, then banish, or run the tie protocol."""
    st: Traitors = game.rules
    t = st.table
    seq = game.phase.seq
    day = game.phase.round
    events: list[Event] = []
    readings: list[Reading] = []
    counts: Counter[int] = Counter()
    for s in t.voters:
        b = t.ballots[s]
        if b is None:
            continue
        w = weight(game, st, s, b)
        readings.append(Reading(s, b.target, w, b.reason))
        counts[b.target] += w
        text = (
            msg(
                N_("{voter} votes for {name}: “{reason}”"),
                voter=game.names[s],
                name=game.names[b.target],
                reason=b.reason,
            )
            if b.reason
            else msg(
                N_("{voter} votes for {name}."), voter=game.names[s], name=game.names[b.target]
            )
        )
        events.append(announce(text, seq))
        if w == 2:
            events.append(
                announce(msg(N_("The dagger is on the table: that vote counts twice.")), seq)
            )
    st = st._replace(readings=(*st.readings, tuple(readings)))
    draw = rng_for(game.seed, f"traitors/day/{day}/vote/{t.number}")
    if not counts:
        pool = [c for c in t.candidates if st.active(c)]
        events.append(announce(msg(N_("Nobody voted: the banished player is drawn by lot.")), seq))
        return banish(game._replace(rules=st), draw.choice(pool), now, events)
    top = max(counts.values())
    tied = tuple(sorted(s for s, c in counts.items() if c == top))
    if len(tied) == 1:
        return banish(game._replace(rules=st), tied[0], now, events)
    names = tuple(game.names[s] for s in tied)
    n = len(game.players)
    if t.kind == OPEN:
        voters = tuple(s for s in st.seats() if s not in tied)
        if voters:
            events.append(
                announce(
                    msg(
                        N_("A tie between {names}: each may plead, then the others vote again."),
                        names=names,
                    ),
                    seq,
                )
            )
            table = Table(
                TIE, t.number + 1, tied, voters, (None,) * n, t.excluded, (None,) * n, t.dagger_laid
            )
            return _open_revote(
                game._replace(rules=st._replace(table=table)), now, events, tied, voters
            )
    # [decision] `second_tie_excludes_all` (on: the seed's «disse spillerne»):
    # a re-vote that ties again excludes every player it was over; off: only
    # those tied again. A tie with nobody to re-vote excludes the tied.
    out = t.candidates if t.kind == TIE and st.config.second_tie_all else tied
    excluded = (*t.excluded, *out)
    left = tuple(s for s in st.seats() if s not in excluded)
    if not left:
        events.append(announce(msg(N_("A tie again: the banished player is drawn by lot.")), seq))
        return banish(game._replace(rules=st), draw.choice(tied), now, events)
    if len(left) == 1:  # the only one who can still be voted for
        return banish(game._replace(rules=st), left[0], now, events)
    events.append(
        announce(
            msg(
                N_("A tie again: {names} can no longer be voted for. A new vote follows."),
                names=tuple(game.names[s] for s in out),
            ),
            seq,
        )
    )
    seats = st.seats()
    table = Table(
        OPEN, t.number + 1, left, seats, (None,) * n, excluded, (None,) * n, t.dagger_laid
    )
    return _open_revote(game._replace(rules=st._replace(table=table)), now, events, (), seats)


def _open_revote(
    game: Game, now: float, events: list[Event], tied: tuple[int, ...], voters: tuple[int, ...]
) -> Accepted[Game]:
    st: Traitors = game.rules
    # the re-vote's window includes one plea window per tied player
    length = st.config.seconds(REVOTE) + st.config.plea_seconds * len(tied)
    seconds = clockless_seconds(game, st, length, now)
    phase, timers = enter(game, REVOTE, game.phase.round, seconds, now)
    seq = phase.seq
    events.extend(prompt(game.players[s], seq) for s in (*tied, *voters))
    events.extend(timers)
    events.append(Event(Kind.CHANGED, phase=seq))
    return Accepted(game._replace(phase=phase), tuple(events))


def banish(game: Game, seat: int, now: float, events: list[Event]) -> Accepted[Game]:
    from gameflow.games.traitors import night  # the night follows the round table

    st: Traitors = game.rules
    seq = game.phase.seq
    last = final_day(game, st)
    st = st._replace(
        status=put(st.status, seat, BANISHED), banished_today=(*st.banished_today, seat)
    )
    if last:
        events.append(
            announce(
                msg(
                    N_("{name} is banished. In the final round no role is revealed."),
                    name=game.names[seat],
                ),
                seq,
            )
        )
    else:
        role = st.role[seat]
        st = st._replace(revealed_today=(*st.revealed_today, (seat, role)))
        events.append(
            announce(
                msg(
                    N_("{name} is banished, and was {role}."),
                    name=game.names[seat],
                    role=Msg(ROLE_NAMES[role]),
                ),
                seq,
            )
        )
    events.append(
        tell(
            game.players[seat],
            msg(
                N_(
                    "You are banished: please don't talk to the remaining players until the game is over."
                )
            ),
            seq,
        )
    )
    game = game._replace(rules=st)
    if flow.no_loyal_left(st):
        return flow.finish(game, TRAITORS, now, events)
    if flow.two_left(st):
        return final_reveal(game, now, events)
    if last:
        return _open_end_vote(game, now, events)
    return night.open_night(game, now, events)


def _open_end_vote(game: Game, now: float, events: list[Event]) -> Accepted[Game]:
    st: Traitors = game.rules
    st = st._replace(end_votes=(None,) * len(game.players))
    seconds = clockless_seconds(game, st, st.config.seconds(END_VOTE), now)
    phase, timers = enter(game, END_VOTE, game.phase.round, seconds, now)
    seq = phase.seq
    events.append(
        announce(msg(N_("End or continue? If everyone says end, the roles are revealed.")), seq)
    )
    events.extend(prompt(game.players[s], seq) for s in st.seats())
    events.extend(timers)
    events.append(Event(Kind.CHANGED, phase=seq))
    return Accepted(game._replace(rules=st, phase=phase), tuple(events))


def end_vote(game: Game, a: EndVote, seat: int) -> Accepted[Game] | Rejected:
    st: Traitors = game.rules
    if game.phase.name != END_VOTE:
        return reject("wrong_phase", N_("The end vote comes after the final round table."))
    if not st.active(seat):
        return reject("not_active", N_("You are out of the game."))
    if st.end_votes[seat] is not None:
        return reject("locked", N_("You have already voted."))
    st = st._replace(end_votes=put(st.end_votes, seat, a.end))
    text = msg(N_("You vote to end.")) if a.end else msg(N_("You vote to continue."))
    return Accepted(
        game._replace(rules=st),
        (tell(game.players[seat], text, game.phase.seq), Event(Kind.CHANGED, phase=game.phase.seq)),
    )


def close_end_vote(game: Game, now: float) -> Accepted[Game]:
    """A missing end vote counts as end; only an explicit continue continues."""
    st: Traitors = game.rules
    seq = game.phase.seq
    events: list[Event] = []
    go_on = tuple(s for s in st.seats() if st.end_votes[s] is False)
    if not go_on:
        events.append(announce(msg(N_("Everyone votes to end.")), seq))
        return final_reveal(game, now, events)
    events.append(
        announce(
            msg(
                N_("{names} vote to continue: another player will be banished."),
                names=tuple(game.names[s] for s in go_on),
            ),
            seq,
        )
    )
    return flow.open_table(game, now, events)


def final_reveal(game: Game, now: float, events: list[Event]) -> Accepted[Game]:
    """All the same role: they share the pot; mixed: the remaining traitors win it."""
    st: Traitors = game.rules
    return flow.finish(game, flow.final_winner(st), now, events)
