"""The Traitors' reveal at the end (issue #32): what the TV's end screen shows,
and the night's secrets it keeps, as lines every player gets on their own channel.

The full form follows the end screen (gameflow/games/traitors/tv.py) from the
same state: the winners and the pot's split, every player's role at the end with
when they were recruited, banished or murdered, each day's banishments and the
night's choice (`DayRecord.night`: whom the traitors murdered, went for in vain,
tempted or forced, and who refused with the shield), and the fair-deal seed.
Once the game is over this names every role, also of those banished in the final
round, who keep it to themselves while the game lasts (docs/rules/traitors.md).
`brief` is the SMS form, one text of at most 3 segments at 24 players: the
winners, the traitors (with the day each recruit joined; the rest were loyal),
then, as far as the text stays within that SMS, whom the traitors tempted in
vain and who survived their murder, and the seed; the end screen's link carries
the rest. Pure: the state in, `Msg`s out. `story` is the same, day by day,
for the story page (adapters/story): each night's choice apart from the day's
mission, round table votes and banishments.
"""

from __future__ import annotations

from typing import Final

from gameflow.core.definition import Chapter, Part, Story
from gameflow.core.state import Game
from gameflow.core.text import N_, Item, Msg, msg
from gameflow.games.traitors import flow
from gameflow.games.traitors.state import (
    FORCE,
    LOYAL,
    NOBODY,
    TEMPT,
    TRAITOR,
    TRAITORS,
    DayRecord,
    Traitors,
)

_WINNER: Final = {
    TRAITORS: N_("Winners, the traitors: {names}. Pot: {pot} silver, {share} each."),
    LOYAL: N_("Winners, the loyal: {names}. Pot: {pot} silver, {share} each."),
}
_NO_WINNER: Final = N_("The game master ended the game: no side won.")
_BRIEF: Final = {
    TRAITORS: N_("The traitors won: {names}, {share} silver each."),
    LOYAL: N_("The loyal won: {names}, {share} silver each."),
}
_NOBODY: Final = msg(N_("nobody"))
# What one SMS may hold of the brief: 3 segments of 153 GSM-7 characters, less
# the end screen's link line under it (adapters/status_link.py: its words, at most
# 53 characters in sr, and a link of about 75: a base address and a 43-character token).
BRIEF_BUDGET: Final = 3 * 153 - 130
# The words of each brief line beside its names and numbers, at most, in nb, sr
# or en (with the line's break): the winners, the traitors, the tempted in vain,
# who survived a murder, the seed.
_WINNERS, _TRAITORS, _DECLINED, _LIVED, _SEED = 50, 50, 30, 30, 10


def reveal(game: Game, brief: bool) -> tuple[Msg, ...]:
    """The lines of the end's reveal; () before the end or for a game never dealt."""
    st: Traitors | None = game.rules
    if not game.over or st is None:
        return ()
    return _brief(game, st) if brief else _full(game, st)


def _won(game: Game, st: Traitors) -> Msg:
    won = flow.winners(st, game.winner)
    head = _WINNER.get(game.winner or "")
    if head is None or not won:
        return msg(_NO_WINNER)
    names = tuple(game.names[s] for s in won)
    return msg(head, names=names, share=flow.share(st, game.winner), pot=st.pot)


def _fates(st: Traitors) -> dict[int, list[Msg]]:
    """What happened to each seat, day by day: recruited, banished, murdered."""
    out: dict[int, list[Msg]] = {}
    for rec in st.history:
        if rec.converted != NOBODY:
            out.setdefault(rec.converted, []).append(msg(N_("recruited on day {day}"), day=rec.day))
        for s in rec.banished:
            out.setdefault(s, []).append(msg(N_("banished on day {day}"), day=rec.day))
        if rec.murdered != NOBODY:
            out.setdefault(rec.murdered, []).append(msg(N_("murdered in night {day}"), day=rec.day))
    return out


def _people(game: Game, seats: list[int], fates: dict[int, list[Msg]]) -> tuple[Item, ...]:
    if not seats:
        return (_NOBODY,)
    return tuple(
        msg(N_("{name} ({fate})"), name=game.names[s], fate=tuple(fates[s]))
        if s in fates
        else game.names[s]
        for s in seats
    )


def _full(game: Game, st: Traitors) -> tuple[Msg, ...]:
    seats = range(len(game.players))
    fates = _fates(st)
    traitors = [s for s in seats if st.role[s] == TRAITOR]
    loyal = [s for s in seats if st.role[s] != TRAITOR]
    lines = [
        _won(game, st),
        msg(N_("The traitors: {names}."), names=_people(game, traitors, fates)),
        msg(N_("The loyal: {names}."), names=_people(game, loyal, fates)),
    ]
    lines.extend(_day(game, rec) for rec in st.history)
    lines.append(msg(N_("Fair deal: seed {seed}"), seed=game.seed))
    return tuple(lines)


def _day(game: Game, rec: DayRecord) -> Msg:
    """One day: who was banished, then the night's choice and what came of it."""
    name = game.names
    events: list[Item] = [msg(N_("{name} was banished"), name=name[s]) for s in rec.banished]
    events.extend(_night(game, rec))
    if not events:
        return msg(N_("Day {day}: nobody was banished or murdered."), day=rec.day)
    return msg(N_("Day {day}: {events}."), day=rec.day, events=tuple(events))


def _night(game: Game, rec: DayRecord) -> list[Msg]:
    """The night after a day: the traitors' choice and what came of it."""
    name = game.names
    events: list[Msg] = []
    night = rec.night
    if night is not None and night.kind == TEMPT and night.target != NOBODY:
        text = (
            N_("the traitors tempted {name}, who accepted")
            if rec.converted == night.target
            else N_("the traitors tempted {name}, who declined")
        )
        events.append(msg(text, name=name[night.target]))
    if night is not None and night.kind == FORCE:
        events.extend(
            msg(N_("{name} refused to join with the shield"), name=name[s]) for s in night.declined
        )
        if rec.converted != NOBODY:
            events.append(msg(N_("the traitors forced {name} to join"), name=name[rec.converted]))
    elif night is None and rec.converted != NOBODY:  # a day saved before the record kept it
        events.append(msg(N_("{name} joined the traitors"), name=name[rec.converted]))
    if rec.murdered != NOBODY:
        events.append(msg(N_("the traitors murdered {name}"), name=name[rec.murdered]))
    elif night is not None and night.murder != NOBODY:
        events.append(msg(N_("the traitors went for {name}, who lived"), name=name[night.murder]))
    return events


def _cost(words: int, names: list[str], days: int = 0) -> int:
    """At most what a brief line of `words` listing `names` (and `days` day
    numbers) takes: its words, each name and its comma, each day and its comma."""
    return words + sum(len(n) + 2 for n in names) + 5 * days


def _by_player(game: Game, seen: dict[int, list[int]]) -> tuple[Item, ...]:
    return tuple(
        msg(N_("{name} ({days})"), name=game.names[s], days=tuple(days)) for s, days in seen.items()
    )


def _brief(game: Game, st: Traitors) -> tuple[Msg, ...]:
    """The winners; the traitors, each recruit with the day; then, while the
    text stays within one SMS of 3 segments beside the link, whom the traitors
    tempted in vain and who survived their murder; the seed."""
    name = game.names
    won = flow.winners(st, game.winner)
    head = _BRIEF.get(game.winner or "")
    lines = [
        msg(head, names=tuple(name[s] for s in won), share=flow.share(st, game.winner))
        if head is not None and won
        else msg(N_("No side won."))
    ]
    joined = {rec.converted: rec.day for rec in st.history if rec.converted != NOBODY}
    seats = [s for s in range(len(game.players)) if st.role[s] == TRAITOR]
    traitors: tuple[Item, ...] = tuple(
        msg(N_("{name} ({day})"), name=name[s], day=joined[s]) if s in joined else name[s]
        for s in seats
    )
    lines.append(
        msg(N_("Traitors (day joined): {names}; the rest were loyal."), names=traitors)
        if joined
        else msg(N_("Traitors: {names}; the rest were loyal."), names=traitors or (_NOBODY,))
    )
    cost = (
        _cost(_WINNERS, [name[s] for s in won])
        + _cost(_TRAITORS, [name[s] for s in seats], len(joined))
        + _cost(_SEED, [game.seed])
    )
    declined: dict[int, list[int]] = {}
    lived: dict[int, list[int]] = {}
    for rec in st.history:
        night = rec.night
        if night is None:
            continue
        if night.kind == TEMPT and night.target != NOBODY and rec.converted != night.target:
            declined.setdefault(night.target, []).append(rec.day)
        if night.murder != NOBODY and rec.murdered == NOBODY:
            lived.setdefault(night.murder, []).append(rec.day)
    # The seed before the rest: a text cut at its end to fit keeps the seed.
    lines.append(msg(N_("Seed: {seed}."), seed=game.seed))
    for seen, text, words in (
        (declined, N_("Tempted in vain (night): {names}."), _DECLINED),
        (lived, N_("Survived a murder (night): {names}."), _LIVED),
    ):
        more = _cost(words, [name[s] for s in seen], sum(map(len, seen.values())))
        if seen and cost + more <= BRIEF_BUDGET:
            lines.append(msg(text, names=_by_player(game, seen)))
            cost += more
    return tuple(lines)


_ROLE: Final = {TRAITOR: N_("traitor"), LOYAL: N_("loyal")}


def story(game: Game) -> Story | None:
    """The ended game day by day (issue #32, item 6): the winners, every
    player's role at the end with their fate, each night's choice apart from
    the day's mission, round table votes and banishments, and the seed."""
    st: Traitors | None = game.rules
    if not game.over or st is None:
        return None
    fates = _fates(st)
    cast = tuple(
        Part(
            game.names[s],
            msg(_ROLE.get(st.role[s], _ROLE[LOYAL])),
            st.role[s] == TRAITOR,
            tuple(fates.get(s, ())),
        )
        for s in range(len(game.players))
    )
    chapters = tuple(
        Chapter(msg(N_("Day {day}"), day=rec.day), tuple(_night(game, rec)), _public(game, rec))
        for rec in st.history
    )
    return Story((_won(game, st),), cast, chapters, game.seed)


def _public(game: Game, rec: DayRecord) -> tuple[Msg, ...]:
    """What the table saw of a day: the mission's silver, each round table
    vote's tally, who was banished and the role they showed."""
    name = game.names
    lines = [
        msg(
            N_("The mission won {silver} silver; the pot: {pot} silver."),
            silver=rec.mission_silver,
            pot=rec.pot,
        )
    ]
    for n, readings in enumerate(rec.votes, start=1):
        by: dict[int, list[Item]] = {}
        for r in readings:
            voter: Item = name[r.voter]
            if r.weight > 1:
                voter = msg(N_("{name} (with the dagger)"), name=name[r.voter])
            by.setdefault(r.target, []).append(voter)
        for target, voters in sorted(by.items(), key=lambda kv: -len(kv[1])):
            who = _NOBODY if target == NOBODY else name[target]
            lines.append(
                msg(N_("Votes for {target}: {voters}."), target=who, voters=tuple(voters))
                if n == 1
                else msg(
                    N_("Vote {n}, votes for {target}: {voters}."),
                    n=n,
                    target=who,
                    voters=tuple(voters),
                )
            )
    shown = dict(rec.revealed)
    for s in rec.banished:
        line = msg(N_("{name} was banished"), name=name[s])
        if s in shown:
            role = msg(_ROLE.get(shown[s], _ROLE[LOYAL]))
            line = msg(N_("{name} was banished: {role}"), name=name[s], role=role)
        lines.append(line)
    return tuple(lines)
