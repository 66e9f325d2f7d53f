"""The night: murder, tempt, force, the death list, and the answer before breakfast.

Each active traitor sends one vote: `murder X`, or `tempt X` where tempting is
allowed; a lone traitor who must force sends `force X` as well as `murder Y`.
The kind with more votes wins (murder on a tie), then the target with most votes
within it; a tie between targets, or silence, is drawn with the seed among the
nominees, else among every valid target. No murder when the target holds the
shield, on a murder-free night, on a death-list night the game master forbade,
or when the traitors tempt. A tempted player, or a forced one holding the
shield, answers in the `answer` phase; silence declines.
"""

from __future__ import annotations

from collections import Counter

from gameflow.core.events import Event, Kind, announce, prompt, tell
from gameflow.core.phases import enter
from gameflow.core.result import Accepted, Rejected, reject
from gameflow.core.rng import rng_for
from gameflow.core.state import Game
from gameflow.core.text import N_, msg
from gameflow.games.traitors import flow
from gameflow.games.traitors.actions import Answer, DeathList, Force, Murder, Tempt
from gameflow.games.traitors.options import phase_seconds
from gameflow.games.traitors.state import (
    ANSWER,
    FORCE,
    LOYAL,
    MURDER,
    MURDERED,
    NIGHT,
    NOBODY,
    TEMPT,
    TRAITOR,
    NightVote,
    Pending,
    Traitors,
    put,
)


def must_force(st: Traitors, day: int) -> bool:
    """One traitor left in rounds 1–10: they must force a loyal."""
    return len(st.traitors()) == 1 and day <= st.config.force_last_day and bool(st.loyals())


def may_tempt(st: Traitors, day: int) -> bool:
    """Fewer traitors than at the start, recruitment allowed, rounds 1–9."""
    return (
        st.recruit
        and len(st.traitors()) < st.start_traitors
        and day <= st.config.tempt_last_day
        and not must_force(st, day)
    )


def murder_targets(st: Traitors) -> tuple[int, ...]:
    """Active loyal players, from the published death list when one is in force."""
    loyal = st.loyals()
    if st.listed:
        return tuple(s for s in loyal if s in st.listed)
    return loyal


def force_targets(st: Traitors) -> tuple[int, ...]:
    declined = st.pending.declined if st.pending is not None else ()
    return tuple(s for s in st.loyals() if s not in declined)


def open_night(game: Game, now: float, events: list[Event]) -> Accepted[Game]:
    st: Traitors = game.rules
    n = len(game.players)
    st = st._replace(
        night_votes=(None,) * n, force_votes=(None,) * n, death_list=(), pending=None, answer=None
    )
    game = game._replace(rules=st)
    return _enter_night(game, now, events)


def _enter_night(game: Game, now: float, events: list[Event]) -> Accepted[Game]:
    st: Traitors = game.rules
    phase, timers = enter(game, NIGHT, game.phase.round, phase_seconds(game, st, NIGHT, now), now)
    seq = phase.seq
    if st.pending is None:
        events.append(announce(msg(N_("Night falls. The traitors meet in secret.")), seq))
    for s in st.traitors():
        if st.death_list_on and st.pending is None:
            events.append(
                tell(
                    game.players[s],
                    msg(
                        N_("The death list is in play: write {n} names on it tonight."),
                        n=st.config.death_list_size,
                    ),
                    seq,
                    secret=True,
                )
            )
        events.append(prompt(game.players[s], seq))
    events.extend(timers)
    events.append(Event(Kind.CHANGED, phase=seq))
    return Accepted(game._replace(phase=phase), tuple(events))


def _traitor_check(st: Traitors, seat: int) -> Rejected | None:
    if not st.active(seat):
        return reject("not_active", N_("You are out of the game."))
    if st.role[seat] != TRAITOR:
        return reject("not_traitor", N_("Only the traitors act at night."))
    return None


def night_vote(game: Game, a: Murder | Tempt | Force, seat: int) -> Accepted[Game] | Rejected:
    st: Traitors = game.rules
    day = game.phase.round
    if game.phase.name != NIGHT:
        return reject("wrong_phase", N_("The traitors act at night."))
    bad = _traitor_check(st, seat)
    if bad is not None:
        return bad
    target = game.seat(a.target)
    if target >= 0 and st.role[target] == TRAITOR and st.active(target):
        return reject("traitor_target", N_("Traitors can never target another traitor."))
    if target < 0 or not st.active(target):
        return reject("bad_target", N_("Choose an active loyal player."))
    force = must_force(st, day)
    if isinstance(a, Force):
        if not force:
            return reject("no_force", N_("Forcing is only for a lone traitor, in rounds 1 to 10."))
        if st.force_votes[seat] is not None:
            return reject("locked", N_("You have already chosen whom to force."))
        if target not in force_targets(st):
            return reject(
                "declined", N_("That player has already refused with the shield tonight.")
            )
        mine = st.night_votes[seat]
        if mine is not None and mine.target == target:
            return reject("same_target", N_("Force one player and murder another."))
        st = st._replace(force_votes=put(st.force_votes, seat, target))
    else:
        if st.pending is not None:
            return reject(
                "wrong_phase", N_("Tonight's murder is already chosen; choose whom to force.")
            )
        if st.night_votes[seat] is not None:
            return reject("locked", N_("You have already sent your vote tonight."))
        if isinstance(a, Tempt):
            if day > st.config.tempt_last_day:
                return reject(
                    "too_late",
                    N_("Tempting is only possible in rounds 1 to {last}."),
                    last=st.config.tempt_last_day,
                )
            if not may_tempt(st, day):
                return reject("no_tempt", N_("You can't tempt anyone tonight."))
            st = st._replace(night_votes=put(st.night_votes, seat, NightVote(TEMPT, target)))
        else:
            if target not in murder_targets(st):
                return reject("not_listed", N_("Tonight's murder must come from the death list."))
            if force and st.force_votes[seat] == target:
                return reject("same_target", N_("Force one player and murder another."))
            st = st._replace(night_votes=put(st.night_votes, seat, NightVote(MURDER, target)))
    return Accepted(
        game._replace(rules=st),
        (
            tell(
                game.players[seat],
                msg(N_("Your choice for tonight is noted.")),
                game.phase.seq,
                secret=True,
            ),
        ),
    )


def death_list(game: Game, a: DeathList, seat: int) -> Accepted[Game] | Rejected:
    st: Traitors = game.rules
    if game.phase.name != NIGHT:
        return reject("wrong_phase", N_("The traitors act at night."))
    bad = _traitor_check(st, seat)
    if bad is not None:
        return bad
    if not st.death_list_on:
        return reject("no_death_list", N_("The death list is not in play tonight."))
    if st.death_list:
        return reject("locked", N_("The death list is already written."))
    seats = tuple(game.seat(p) for p in a.names)
    size = min(st.config.death_list_size, len(st.seats()))
    if len(set(seats)) != size or any(s < 0 or not st.active(s) for s in seats):
        return reject(
            "bad_list", N_("Write {n} different active players on the death list."), n=size
        )
    if not any(st.role[s] == LOYAL for s in seats):
        return reject("no_loyal", N_("At least one loyal player must be on the death list."))
    st = st._replace(death_list=seats)
    return Accepted(
        game._replace(rules=st),
        (
            tell(
                game.players[seat],
                msg(N_("The death list is written.")),
                game.phase.seq,
                secret=True,
            ),
        ),
    )


def answer(game: Game, a: Answer, seat: int) -> Accepted[Game] | Rejected:
    st: Traitors = game.rules
    if game.phase.name != ANSWER or st.pending is None or st.pending.target != seat:
        return reject("no_question", N_("Nobody has asked you anything."))
    if st.answer is not None:
        return reject("locked", N_("You have already answered."))
    return Accepted(
        game._replace(rules=st._replace(answer=a.accept)),
        (tell(game.players[seat], msg(N_("Your answer is noted.")), game.phase.seq, secret=True),),
    )


def _pick(game: Game, label: str, votes: list[int], pool: tuple[int, ...]) -> int:
    """Most votes; a tie is drawn among the nominees; silence among `pool`."""
    rng = rng_for(game.seed, f"traitors/day/{game.phase.round}/{label}")
    counts = Counter(votes)
    if counts:
        top = max(counts.values())
        return rng.choice(sorted(s for s, c in counts.items() if c == top))
    return rng.choice(pool) if pool else NOBODY


def close(game: Game, now: float) -> Accepted[Game]:
    st: Traitors = game.rules
    day = game.phase.round
    events: list[Event] = []
    st = _write_list(game, st)
    game = game._replace(rules=st)
    if must_force(st, day):
        targets = force_targets(st)
        forced = _pick(
            game,
            f"force/{len(st.pending.declined) if st.pending else 0}",
            [v for v in st.force_votes if v is not None],
            targets,
        )
        murder = st.pending.murder if st.pending is not None else NOBODY
        if st.pending is None:
            votes = [v.target for v in st.night_votes if v is not None and v.kind == MURDER]
            pool = tuple(s for s in murder_targets(st) if s != forced)
            murder = _pick(game, "murder", [v for v in votes if v != forced], pool)
        declined = st.pending.declined if st.pending is not None else ()
        st = st._replace(pending=Pending(FORCE, forced, murder, declined))
        if forced != NOBODY and forced == st.shield:
            return _ask(game._replace(rules=st), forced, now, events)
        return _morning(game._replace(rules=st), now, events, converted=forced, murder=murder)
    tempts = [v.target for v in st.night_votes if v is not None and v.kind == TEMPT]
    murders = [v.target for v in st.night_votes if v is not None and v.kind == MURDER]
    if tempts and may_tempt(st, day) and len(tempts) > len(murders):
        target = _pick(game, "tempt", tempts, st.loyals())
        st = st._replace(pending=Pending(TEMPT, target), tempted_today=True)
        return _ask(game._replace(rules=st), target, now, events)
    murder = _pick(
        game, "murder", [m for m in murders if m in murder_targets(st)], murder_targets(st)
    )
    return _morning(game, now, events, converted=NOBODY, murder=murder)


def _write_list(game: Game, st: Traitors) -> Traitors:
    """The death list written tonight (drawn if the traitors wrote none) is
    published at breakfast; tonight's list (if any) has been used up."""
    if not st.death_list_on:
        return st
    chosen = st.death_list
    if not chosen:
        rng = rng_for(game.seed, f"traitors/day/{game.phase.round}/death_list")
        loyal, seats = st.loyals(), st.seats()
        size = min(st.config.death_list_size, len(seats))
        first = rng.choice(loyal)
        rest = [s for s in seats if s != first]
        chosen = (first, *rng.sample(rest, size - 1))
    return st._replace(death_list=tuple(sorted(chosen)), death_list_on=False)


def _ask(game: Game, target: int, now: float, events: list[Event]) -> Accepted[Game]:
    st: Traitors = game.rules
    st = st._replace(answer=None)
    phase, timers = enter(game, ANSWER, game.phase.round, phase_seconds(game, st, ANSWER, now), now)
    seq = phase.seq
    assert st.pending is not None
    if st.pending.kind == TEMPT:
        text = msg(
            N_(
                "A letter: the traitors invite you to join them. Accept or decline before breakfast. Silence declines."
            )
        )
    else:
        text = msg(
            N_(
                "The last traitor forces you to join. Give up your shield and join, or use the shield and stay loyal."
            )
        )
    events.append(tell(game.players[target], text, seq, secret=True))
    events.append(prompt(game.players[target], seq))
    events.extend(timers)
    events.append(Event(Kind.CHANGED, phase=seq))
    return Accepted(game._replace(rules=st, phase=phase), tuple(events))


def close_answer(game: Game, now: float) -> Accepted[Game]:
    st: Traitors = game.rules
    p = st.pending
    assert p is not None
    events: list[Event] = []
    if p.kind == TEMPT:
        converted = p.target if st.answer else NOBODY
        return _morning(game, now, events, converted=converted, murder=NOBODY)
    if st.answer:
        st = st._replace(shield=NOBODY)
        return _morning(game._replace(rules=st), now, events, converted=p.target, murder=p.murder)
    st = st._replace(
        pending=p._replace(declined=(*p.declined, p.target)),
        force_votes=(None,) * len(game.players),
    )
    if not force_targets(st):
        return _morning(game._replace(rules=st), now, events, converted=NOBODY, murder=p.murder)
    seq = game.phase.seq
    for s in st.traitors():
        events.append(
            tell(
                game.players[s],
                msg(
                    N_(
                        "The player you forced used the shield and stays loyal: force another player."
                    )
                ),
                seq,
                secret=True,
            )
        )
    return _enter_night(game._replace(rules=st), now, events)


def _morning(
    game: Game, now: float, events: list[Event], *, converted: int, murder: int
) -> Accepted[Game]:
    """Apply the night, close the day and serve breakfast."""
    st: Traitors = game.rules
    day = game.phase.round
    seq = game.phase.seq
    blocked = st.murder_free or (st.forbid_murder and bool(st.listed)) or murder == st.shield
    if st.pending is not None and st.pending.kind == TEMPT:
        blocked = True
    if converted != NOBODY:
        st = st._replace(role=put(st.role, converted, TRAITOR))
        mates = tuple(game.names[s] for s in st.traitors())
        events.append(
            tell(
                game.players[converted],
                msg(N_("You are now a TRAITOR. The traitors are: {names}."), names=mates),
                seq,
                secret=True,
            )
        )
        for s in st.traitors():
            if s != converted:
                events.append(
                    tell(
                        game.players[s],
                        msg(N_("{name} has joined the traitors."), name=game.names[converted]),
                        seq,
                        secret=True,
                    )
                )
    victim = NOBODY if blocked or murder == NOBODY or st.role[murder] == TRAITOR else murder
    if victim != NOBODY:
        st = st._replace(status=put(st.status, victim, MURDERED))
    st = st._replace(listed=st.death_list, death_list=(), pending=None, answer=None)
    st = flow.close_day(st, day, victim, converted)
    game = game._replace(rules=st)
    if victim != NOBODY:
        events.append(
            announce(
                msg(N_("Breakfast: {name} was murdered in the night."), name=game.names[victim]),
                seq,
            )
        )
        events.append(
            tell(
                game.players[victim],
                msg(
                    N_(
                        "You were murdered: please don't talk to the remaining players until the game is over."
                    )
                ),
                seq,
            )
        )
    else:
        events.append(announce(msg(N_("Breakfast: nobody was murdered in the night.")), seq))
    if st.listed:
        events.append(
            announce(
                msg(
                    N_("The death list: {names}. Tonight's murder comes from it."),
                    names=tuple(game.names[s] for s in st.listed),
                ),
                seq,
            )
        )
    won = flow.early_winner(st)
    if won is not None:
        return flow.finish(game, won, now, events)
    return flow.begin_day(game, day + 1, now, events)
