"""The night: murder, tempt, force, the death list, and the private answer.

A night is one public phase, `night`, from the round table's end to breakfast,
and it looks the same on every night: the same name, the same deadline, and no
public event until breakfast. Everything else happens in private inside it:

1. Each active traitor sends one vote: `murder X`, or `tempt X` where tempting
   is allowed; a lone traitor who must force sends `force X` as well as
   `murder Y` (two different players); when the death list is in play they
   also write it. The kind with more votes wins (murder on a tie), then the
   target with most votes within it; a tie between targets, or silence, is
   drawn with the seed among the nominees, else among every valid target.
2. As soon as every traitor has sent what they owe (or at the night's end) the
   choice is made (`Pending`). A tempted player, or a forced one holding the
   shield, is asked at once and answers until breakfast; silence declines. A
   forced shield holder who declines keeps the shield and stays loyal, and the
   lone traitor forces another player (drawn at breakfast if they don't).
3. At the deadline the night is settled and breakfast is served.

The night never ends early (`ready()` is false in it): a night that ended when
the traitors had voted would tell everyone that there are traitors left, and a
recruitment night would otherwise last longer than the others.

No murder when the target holds the shield, on a murder-free night, when the
game master forbade it while the death list is in play, or when the traitors
tempt. A forcing night always has its murder: the forced player is never the
night's victim, and a player who refused with the shield is not forced again.
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
    FORCE,
    LOYAL,
    MURDER,
    MURDERED,
    NIGHT,
    NIGHT_PHASES,
    NOBODY,
    TEMPT,
    TRAITOR,
    NightVote,
    Pending,
    Traitors,
    put,
)

DEATH_LIST = "death_list"


def must_force(st: Traitors, day: int) -> bool:
    """One traitor left in rounds 1–10, and the game master allows recruitment:
    they must force a loyal (the seed's «om spillmesteren tillater» covers both
    tempting and forcing)."""
    return (
        st.recruit
        and len(st.traitors()) == 1
        and day <= st.config.force_last_day
        and bool(st.loyals())
    )


def may_tempt(st: Traitors, day: int) -> bool:
    """Fewer traitors than at the start (but some), recruitment allowed, rounds 1–9."""
    return (
        st.recruit
        and 0 < len(st.traitors()) < st.start_traitors
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
    """Loyal players who may still be forced tonight: not one who refused with
    the shield, and never the night's murder victim once it is chosen."""
    p = st.pending
    declined = p.declined if p is not None else ()
    murder = p.murder if p is not None else NOBODY
    return tuple(s for s in st.loyals() if s not in declined and s != murder)


def choices(st: Traitors, seat: int, day: int) -> dict[str, tuple[int, ...]]:
    """What traitor `seat` may still send tonight, kind -> the seats allowed
    (an empty dict: they owe nothing). Both `legal()` and the night's own
    "has everyone sent it?" read this, so awaiting and asking always agree."""
    if not st.active(seat) or st.role[seat] != TRAITOR:
        return {}
    out: dict[str, tuple[int, ...]] = {}
    p = st.pending
    if p is None:
        force = must_force(st, day)
        mine = st.night_votes[seat]
        forced = st.force_votes[seat]
        if mine is None:
            murder = tuple(s for s in murder_targets(st) if not (force and s == forced))
            if murder:
                out[MURDER] = murder
            if may_tempt(st, day):
                out[TEMPT] = st.loyals()
        if force and forced is None:
            targets = tuple(s for s in force_targets(st) if mine is None or s != mine.target)
            if targets:
                out[FORCE] = targets
    elif p.kind == FORCE and p.target == NOBODY:
        targets = force_targets(st)
        if targets:
            out[FORCE] = targets
    # Also after the night's choice, when the game master put the list in play late.
    if st.death_list_on and not st.death_list:
        out[DEATH_LIST] = st.seats()
    return out


def asked(st: Traitors) -> int:
    """The seat asked to answer now (tempted, or forced while holding the shield),
    or NOBODY."""
    p = st.pending
    if p is None or p.target == NOBODY or st.answer is not None:
        return NOBODY
    if p.kind == TEMPT or (p.kind == FORCE and p.target == st.shield):
        return p.target
    return NOBODY


def open_night(game: Game, now: float, events: list[Event]) -> Accepted[Game]:
    st: Traitors = game.rules
    n = len(game.players)
    st = st._replace(
        night_votes=(None,) * n, force_votes=(None,) * n, death_list=(), pending=None, answer=None
    )
    phase, timers = enter(game, NIGHT, game.phase.round, phase_seconds(game, st, NIGHT, now), now)
    seq = phase.seq
    events.append(announce(msg(N_("Night falls. The traitors meet in secret.")), seq))
    for s in st.traitors():
        if st.death_list_on:
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
    return Accepted(game._replace(rules=st, phase=phase), tuple(events))


def _traitor_check(st: Traitors, seat: int) -> Rejected | None:
    if not st.active(seat):
        return reject("not_active", N_("You are out of the game."))
    if st.role[seat] != TRAITOR:
        return reject("not_traitor", N_("Only the traitors act at night."))
    return None


def _noted(game: Game, seat: int, text: str) -> Event:
    return tell(game.players[seat], msg(text), game.phase.seq, secret=True)


def night_vote(game: Game, a: Murder | Tempt | Force, seat: int) -> Accepted[Game] | Rejected:
    st: Traitors = game.rules
    day = game.phase.round
    if game.phase.name not in NIGHT_PHASES:
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
    p = st.pending
    if isinstance(a, Force):
        if not force and not (p is not None and p.kind == FORCE):
            return reject(
                "no_force",
                N_(
                    "Forcing is only for a lone traitor, in rounds 1 to 10, when recruiting is allowed."
                ),
            )
        if p is not None and not (p.kind == FORCE and p.target == NOBODY):
            return reject("locked", N_("You have already chosen whom to force."))
        if p is None and st.force_votes[seat] is not None:
            return reject("locked", N_("You have already chosen whom to force."))
        if p is not None and p.declined and target in p.declined:
            return reject(
                "declined", N_("That player has already refused with the shield tonight.")
            )
        mine = st.night_votes[seat]
        if target == (p.murder if p is not None else mine.target if mine else NOBODY):
            return reject("same_target", N_("Force one player and murder another."))
        if p is not None:  # forcing another after a refusal
            return _settle_force(game._replace(rules=st), target, [])
        st = st._replace(force_votes=put(st.force_votes, seat, target))
    else:
        if p is not None:
            return reject("locked", N_("Tonight's choice is already made."))
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
    events = [_noted(game, seat, N_("Your choice for tonight is noted."))]
    return _when_sent(game._replace(rules=st), events)


def death_list(game: Game, a: DeathList, seat: int) -> Accepted[Game] | Rejected:
    st: Traitors = game.rules
    if game.phase.name not in NIGHT_PHASES:
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
    events = [_noted(game, seat, N_("The death list is written."))]
    return _when_sent(game._replace(rules=st), events)


def answer(game: Game, a: Answer, seat: int) -> Accepted[Game] | Rejected:
    st: Traitors = game.rules
    if game.phase.name not in NIGHT_PHASES or asked(st) != seat:
        return reject("no_question", N_("Nobody has asked you anything."))
    p = st.pending
    assert p is not None
    events = [_noted(game, seat, N_("Your answer is noted."))]
    if p.kind == TEMPT or a.accept:
        return Accepted(game._replace(rules=st._replace(answer=a.accept)), tuple(events))
    return Accepted(*_refused(game, events))


def _refused(game: Game, events: list[Event]) -> tuple[Game, tuple[Event, ...]]:
    """The forced shield holder keeps the shield and stays loyal: the lone
    traitor must force another player (if anyone is left to force)."""
    st: Traitors = game.rules
    p = st.pending
    assert p is not None
    st = st._replace(pending=p._replace(target=NOBODY, declined=(*p.declined, p.target)))
    st = st._replace(answer=None)
    seq = game.phase.seq
    if force_targets(st):
        for s in st.traitors():
            events.append(
                _noted(
                    game,
                    s,
                    N_(
                        "The player you forced used the shield and stays loyal: "
                        "force another player."
                    ),
                )
            )
            events.append(prompt(game.players[s], seq))
    return game._replace(rules=st), tuple(events)


def _pick(game: Game, label: str, votes: list[int], pool: tuple[int, ...]) -> int:
    """Most votes; a tie is drawn among the nominees; silence among `pool`."""
    rng = rng_for(game.seed, f"traitors/day/{game.phase.round}/{label}")
    counts = Counter(votes)
    if counts:
        top = max(counts.values())
        return rng.choice(sorted(s for s, c in counts.items() if c == top))
    return rng.choice(pool) if pool else NOBODY


def _when_sent(game: Game, events: list[Event]) -> Accepted[Game]:
    """Make the night's choice as soon as every traitor has sent what they owe."""
    st: Traitors = game.rules
    day = game.phase.round
    if st.pending is None and not any(choices(st, s, day) for s in st.traitors()):
        return _choose(game, events)
    return Accepted(game, tuple(events))


def _choose(game: Game, events: list[Event]) -> Accepted[Game]:
    """The night's choice from the votes (draws for ties and silence); asks the
    tempted or forced player when they must answer."""
    st: Traitors = game.rules
    day = game.phase.round
    if must_force(st, day):
        murders = [v.target for v in st.night_votes if v is not None and v.kind == MURDER]
        forces = [v for v in st.force_votes if v is not None]
        if murders:  # the traitor's own murder stands; the force avoids it
            murder = _pick(game, "murder", murders, murder_targets(st))
            pool = tuple(s for s in force_targets(st) if s != murder)
            forced = _pick(game, "force/0", [f for f in forces if f != murder], pool)
        else:
            forced = _pick(game, "force/0", forces, force_targets(st))
            pool = tuple(s for s in murder_targets(st) if s != forced)
            murder = _pick(game, "murder", [], pool)
        st = st._replace(pending=Pending(FORCE, NOBODY, murder))
        return _settle_force(game._replace(rules=st), forced, events)
    tempts = [v.target for v in st.night_votes if v is not None and v.kind == TEMPT]
    murders = [v.target for v in st.night_votes if v is not None and v.kind == MURDER]
    if tempts and may_tempt(st, day) and len(tempts) > len(murders):
        target = _pick(game, "tempt", tempts, st.loyals())
        st = st._replace(pending=Pending(TEMPT, target), tempted_today=True, answer=None)
        return _ask(game._replace(rules=st), events)
    pool = murder_targets(st)
    murder = _pick(game, "murder", [m for m in murders if m in pool], pool)
    st = st._replace(pending=Pending(MURDER, NOBODY, murder))
    return Accepted(game._replace(rules=st), tuple(events))


def _settle_force(game: Game, forced: int, events: list[Event]) -> Accepted[Game]:
    """`forced` is tonight's forced player: asked when they hold the shield,
    otherwise they convert at breakfast."""
    st: Traitors = game.rules
    p = st.pending
    assert p is not None
    st = st._replace(pending=p._replace(target=forced), answer=None)
    game = game._replace(rules=st)
    if asked(st) != NOBODY:
        return _ask(game, events)
    return Accepted(game, tuple(events))


def _ask(game: Game, events: list[Event]) -> Accepted[Game]:
    st: Traitors = game.rules
    p = st.pending
    assert p is not None
    seq = game.phase.seq
    if p.kind == TEMPT:
        text = msg(
            N_(
                "A letter: the traitors invite you to join them. "
                "Accept or decline before breakfast. Silence declines."
            )
        )
    else:
        text = msg(
            N_(
                "The last traitor forces you to join. Give up your shield and join, "
                "or use the shield and stay loyal."
            )
        )
    events.append(tell(game.players[p.target], text, seq, secret=True))
    events.append(prompt(game.players[p.target], seq))
    return Accepted(game, tuple(events))


def close(game: Game, now: float) -> Accepted[Game]:
    """The night's end: the choice is made if it wasn't, silence answered, a
    refused force redrawn, and breakfast served."""
    st: Traitors = game.rules
    events: list[Event] = []
    if st.pending is None:
        game = _choose(game, []).state  # its questions come too late to ask
        st = game.rules
    p = st.pending
    assert p is not None
    if asked(st) != NOBODY and p.kind == FORCE:  # silence: the shield is used
        game = _refused(game, [])[0]
        st = game.rules
        p = st.pending
        assert p is not None
    if p.kind == FORCE and p.target == NOBODY:
        label = f"force/{len(p.declined)}"
        st = st._replace(pending=p._replace(target=_pick(game, label, [], force_targets(st))))
        p = st.pending
        assert p is not None
    st = _write_list(game, st)
    game = game._replace(rules=st)
    if p.kind == TEMPT:
        converted = p.target if st.answer else NOBODY
        return _morning(game, now, events, converted=converted, murder=NOBODY)
    if p.kind == FORCE:
        if p.target == st.shield and p.target != NOBODY:
            st = st._replace(shield=NOBODY)  # given up to join
        return _morning(game._replace(rules=st), now, events, converted=p.target, murder=p.murder)
    return _morning(game, now, events, converted=NOBODY, murder=p.murder)


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


def _morning(
    game: Game, now: float, events: list[Event], *, converted: int, murder: int
) -> Accepted[Game]:
    """Apply the night, close the day and serve breakfast."""
    st: Traitors = game.rules
    day = game.phase.round
    seq = game.phase.seq
    blocked = st.murder_free or st.forbid_murder or murder == st.shield
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
    st = flow.close_day(st, day, victim, converted)  # records the night's choice
    st = st._replace(listed=st.death_list, death_list=(), pending=None, answer=None)
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
                        "You were murdered: please don't talk to the remaining players "
                        "until the game is over."
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
    if flow.no_loyal_left(st) or flow.two_left(st):
        return flow.finish(game, flow.final_winner(st), now, events)
    return flow.begin_day(game, day + 1, now, events)
