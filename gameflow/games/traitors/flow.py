"""The Traitors' days: the deal, breakfast, the shield room and the game's end.

A day is mission -> shield_room -> roundtable (-> revote while tied) -> night
(-> answer), and on the final day roundtable -> end_vote. This module starts
each day and each phase that needs no rules of its own, dispatches phase ends to
`roundtable`, `night` and `missions`, and ends the game. Every phase gets its
deadline from `enter`, so the scheduler can arm it.
"""

from __future__ import annotations

import json
from typing import Any

from gameflow.core.campaign import held_options
from gameflow.core.events import Event, Kind, announce, prompt, tell
from gameflow.core.phases import enter, over
from gameflow.core.result import Accepted, Rejected, reject
from gameflow.core.rng import rng_for
from gameflow.core.state import Game
from gameflow.core.text import N_, msg
from gameflow.games.traitors import missions
from gameflow.games.traitors.options import config_for, next_anchor, phase_seconds, traitor_count
from gameflow.games.traitors.state import (
    ACTIVE,
    LOYAL,
    MISSION,
    NOBODY,
    OPEN,
    ROUNDTABLE,
    SHIELD_ROOM,
    TRAITOR,
    TRAITORS,
    DayRecord,
    Table,
    Traitors,
)

Events = list[Event]


def fixture(st: Traitors, day: int) -> dict[str, Any]:
    days: dict[str, Any] = json.loads(st.fixture)
    value = days.get(str(day), {})
    return value if isinstance(value, dict) else {}


def start(game: Game, now: float) -> Accepted[Game] | Rejected:
    n = len(game.players)
    setup: dict[str, Any] = json.loads(game.setup)
    try:
        config = config_for(game)
    except (ValueError, TypeError):
        return reject("bad_setup", N_("Some of this game's settings can't be used."))
    fixed = setup.get("roles")
    if fixed is not None:
        if (
            not isinstance(fixed, dict)
            or set(fixed) - set(game.players)
            or any(r not in (TRAITOR, LOYAL) for r in fixed.values())
        ):
            return reject("bad_setup", N_("The fixed deal names unknown players or roles."))
        role = tuple(TRAITOR if fixed.get(p) == TRAITOR else LOYAL for p in game.players)
    else:
        k = int(game.option("traitors")) or traitor_count(n)
        if not 0 < k < n / 2:
            return reject("bad_setup", N_("The traitors must be fewer than half the players."))
        chosen = set(rng_for(game.seed, "traitors/roles").sample(range(n), k))
        role = tuple(TRAITOR if i in chosen else LOYAL for i in range(n))
    st = Traitors(
        config=config,
        role=role,
        status=(ACTIVE,) * n,
        start_traitors=role.count(TRAITOR),
        final_day=config.final_day,
        recruit=bool(game.option("recruit")),
        dagger_on=bool(game.option("dagger")),
        death_list_on=bool(game.option("death_list")),
        fixture=json.dumps(setup.get("days", {}), sort_keys=True),
    )
    game = game._replace(rules=st, missed=(0,) * n, options=held_options(game))
    seq = game.phase.seq + 1
    events: Events = [
        announce(
            msg(
                # Never the number of traitors: the loyal must not know it.
                N_("The Traitors begins: {count} players, {days} days."),
                count=n,
                days=st.final_day,
            ),
            seq,
        )
    ]
    mates = tuple(game.names[s] for s in range(n) if role[s] == TRAITOR)
    for s, player in enumerate(game.players):
        if role[s] == TRAITOR:
            text = msg(N_("You are a TRAITOR. The traitors are: {names}."), names=mates)
        else:
            text = msg(N_("You are LOYAL. Find the traitors and banish them."))
        events.append(tell(player, text, seq, secret=True))
    return begin_day(game, 1, now, events)


def begin_day(game: Game, day: int, now: float, events: Events) -> Accepted[Game]:
    """Breakfast (the night's news is already in `events`) and the day's mission."""
    st: Traitors = game.rules
    n = len(game.players)
    mission = missions.new_mission(game, st, day)
    st = st._replace(
        mission=mission,
        access=(),
        shield=NOBODY,
        dagger=NOBODY,
        dagger_used=False,
        table=Table(),
        readings=(),
        banished_today=(),
        revealed_today=(),
        night_votes=(None,) * n,
        force_votes=(None,) * n,
        pending=None,
        answer=None,
        death_list=(),
        end_votes=(None,) * n,
        murder_free=False,
        forbid_murder=False,
        tempted_today=False,
    )
    st = st._replace(anchor=next_anchor(game, st, now))
    seconds = phase_seconds(game, st, MISSION, now)
    phase, timers = enter(game, MISSION, day, seconds, now)
    game = game._replace(rules=st, phase=phase)
    seq = phase.seq
    title = (
        msg(N_("Day {day}: the final day."), day=day)
        if day == st.final_day
        else msg(N_("Day {day} of {days}."), day=day, days=st.final_day)
    )
    events.append(announce(title, seq))
    events.extend(missions.intro(game, st, seq))
    events.extend(timers)
    events.append(Event(Kind.CHANGED, phase=seq))
    return Accepted(game, tuple(events))


def open_shield_room(game: Game, now: float, events: Events) -> Accepted[Game]:
    """The shield room: one of those with access wins the shield and, when the
    dagger is in play, another wins the dagger. Winners are told privately."""
    st: Traitors = game.rules
    day = game.phase.round
    fixed = fixture(st, day)
    entrants = sorted(s for s in st.access if st.active(s))
    if "shield" in fixed or "dagger" in fixed:
        shield = game.seat(fixed["shield"]) if fixed.get("shield") else NOBODY
        dagger = game.seat(fixed["dagger"]) if fixed.get("dagger") and st.dagger_on else NOBODY
    else:
        order = list(entrants)
        rng_for(game.seed, f"traitors/day/{day}/shield_room").shuffle(order)
        shield = order[0] if order else NOBODY
        # The dagger lies in the shield's box or in another one (an option).
        box = 0 if st.config.dagger_with_shield else 1
        dagger = order[box] if len(order) > box and st.dagger_on else NOBODY
    st = st._replace(shield=shield, dagger=dagger)
    phase, timers = enter(game, SHIELD_ROOM, day, phase_seconds(game, st, SHIELD_ROOM, now), now)
    seq = phase.seq
    events.append(
        announce(
            msg(
                N_("The shield room opens for {names}."),
                names=tuple(game.names[s] for s in entrants),
            )
            if entrants
            else msg(N_("Nobody earned access to the shield room today.")),
            seq,
        )
    )
    for s in entrants:
        if s == shield and s == dagger:
            text = msg(
                N_(
                    "You won the SHIELD and the DAGGER: the shield protects you from "
                    "murder tonight only; lay the dagger down with your vote for a double vote."
                )
            )
        elif s == shield:
            text = msg(N_("You won the SHIELD: it protects you from murder tonight only."))
        elif s == dagger:
            text = msg(N_("You won the DAGGER: lay it down with your vote for a double vote."))
        else:
            text = msg(N_("The shield room had nothing for you today."))
        events.append(tell(game.players[s], text, seq, secret=True))
    events.extend(timers)
    events.append(Event(Kind.CHANGED, phase=seq))
    return Accepted(game._replace(rules=st, phase=phase), tuple(events))


def open_table(game: Game, now: float, events: Events) -> Accepted[Game]:
    """The day's (or the final day's next) round table: every active player votes."""
    st: Traitors = game.rules
    n = len(game.players)
    seats = st.seats()
    number = len(st.readings)
    table = Table(OPEN, number, seats, seats, (None,) * n, (), (None,) * n, st.table.dagger_laid)
    st = st._replace(table=table)
    phase, timers = enter(
        game, ROUNDTABLE, game.phase.round, phase_seconds(game, st, ROUNDTABLE, now), now
    )
    seq = phase.seq
    events.append(
        announce(msg(N_("The round table: write the name of the player you want to banish.")), seq)
    )
    events.extend(prompt(game.players[s], seq) for s in seats)
    events.extend(timers)
    events.append(Event(Kind.CHANGED, phase=seq))
    return Accepted(game._replace(rules=st, phase=phase), tuple(events))


def close_day(st: Traitors, day: int, murdered: int, converted: int) -> Traitors:
    """Append the day's record (once)."""
    if st.history and st.history[-1].day == day:
        return st
    m = st.mission
    record = DayRecord(
        day=day,
        murdered=murdered,
        banished=st.banished_today,
        revealed=st.revealed_today,
        converted=converted,
        pot=st.pot,
        votes=st.readings,
        mission_silver=0 if m is None else m.silver,
        access=st.access,
        tempted=st.tempted_today,
        night=st.pending,
    )
    return st._replace(history=(*st.history, record))


def no_loyal_left(st: Traitors) -> bool:
    """The only early end: with no loyal left there is nobody to deceive, and
    the remaining traitors know it. A table without traitors plays on to the
    final round table, whose end vote is the loyal's judgement of whether any
    traitor remains (the seed: the game ends only after it)."""
    return not st.loyals()


def two_left(st: Traitors) -> bool:
    """[decision] Two players left (or fewer) reveal their roles at once, on any
    day: the final round's own rule («det er to spillere igjen»), since a table
    of two has nobody to convince. Without it a table without traitors would
    play on until a single loyal sat at the round table."""
    return len(st.seats()) <= 2


def final_winner(st: Traitors) -> str:
    """Roles revealed: all loyal, the loyal share the pot; any traitor left wins it."""
    return TRAITORS if st.traitors() else LOYAL


def winners(st: Traitors, team: str | None) -> tuple[int, ...]:
    if team is None:
        return ()
    role = TRAITOR if team == TRAITORS else LOYAL
    return tuple(s for s in st.seats() if st.role[s] == role)


def share(st: Traitors, team: str | None) -> int:
    won = winners(st, team)
    return st.pot // len(won) if won else 0


def finish(game: Game, team: str, now: float, events: Events) -> Accepted[Game]:
    """End the game: record the day, reveal the survivors' roles, split the pot.
    Players banished in the final round keep their role to themselves (the
    seed: «skal ikke avsløre rollen sin»), so the end names no traitor but the
    survivors."""
    st: Traitors = game.rules
    st = close_day(st, game.phase.round, NOBODY, NOBODY)
    ended = game._replace(rules=st, phase=over(game, now), winner=team)
    seq = ended.phase.seq
    won = winners(st, team)
    text = (
        msg(N_("The loyal win! No traitor is left."))
        if team == LOYAL
        else msg(N_("The traitors win!"))
    )
    events.append(announce(text, seq))
    for role, label in (
        (TRAITOR, N_("Traitors among the survivors: {names}.")),
        (LOYAL, N_("Loyal among the survivors: {names}.")),
    ):
        names = tuple(game.names[s] for s in st.seats() if st.role[s] == role)
        if names:
            events.append(announce(msg(label, names=names), seq))
    events.append(
        announce(
            msg(
                N_("The pot of {pot} silver is split between {names}: {share} each."),
                pot=st.pot,
                names=tuple(game.names[s] for s in won),
                share=share(st, team),
            ),
            seq,
        )
    )
    events.extend((Event(Kind.OVER, phase=seq), Event(Kind.CHANGED, phase=seq)))
    return Accepted(ended, tuple(events))
