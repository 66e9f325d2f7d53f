"""What a Resistance player can deduce: every spy assignment still possible, weighed.

A table of n players with k spies has at most C(10, 4) = 210 possible spy
assignments, so a bot keeps all of them, exactly, as bit masks over the seats.
Each one is *consistent* while it explains every hard fact: a mission with f
fail cards had at least f spies on it, a card played face up as a fail was a
spy's, and what a plot card showed this player privately is true. A member of
the resistance also knows they are not a spy.

The consistent assignments are then *weighed* by how likely each makes what the
table saw (`Model`): how the spies on each mission played, whom each leader
put on their team (a spy leader's team mostly carries exactly the spies it
takes to fail), how everyone voted (spies vote as their cover would, so an
ordinary vote tells only through habits, `tell`, while a vote on a mission that
decides the game tells a lot; less at tables of up to `Model.pivot` seats, where
spies leave their cover only when it turns the vote), and who vetoed an
approved team. The weights
are a likelihood, not a certainty: they guide proposals and votes, while an
assignment only drops out of the set on a hard fact.

Everything here reads a player's view (`engine.view(game, player)`), never the
state: `Evidence.of(view)` turns the public record into hashable events, and
`belief(view)` adds the viewer's own knowledge. The public part is the same for
every player at a moment, so its weights are cached by the events themselves
(a prefix of one game's events is extended one event at a time).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from itertools import combinations
from typing import Any, Final, NamedTuple

from gameflow.games.resistance.cards import KEEPING_CLOSE_EYE
from gameflow.games.resistance.state import FAIL, SIZES, SPIES, SPY

# Event tuples (all ints, hashable):
#   ("m", team, fails, need, shown_fail)     a mission's result
#   ("v", team, approve, last, need, critical, leader)
#                                             a finished team vote (approve: mask of yes;
#                                             critical: a mission that decides the game)
#   ("x", vetoer, team, need)                 a No Confidence veto of an approved team
Event = tuple[Any, ...]


class Model(NamedTuple):
    """How a bot expects the others to play (the bots' own habits, roughly)."""

    hide: float = 0.05  # a spy team able to fail a mission plays all success
    stray: float = 0.02  # anything the habits below call impossible
    spy_on: float = 0.9  # a spy approves a team they are on that carries enough spies
    spy_with: float = 0.3  # ... a team they are not on that carries enough spies
    spy_clean: float = 0.05  # a spy approves a team without (enough) spies
    res_on: float = 0.7  # a member of the resistance approves a team they are on
    res_off: float = 0.15  # ... a team they are not on
    last: float = 0.95  # anyone approves the last team before the spies win
    veto_clean: float = 0.8  # a spy with No Confidence vetoes a clean team
    veto_res: float = 0.3  # a member of the resistance vetoes (any team)
    cover: bool = True  # votes: spies vote as the resistance would, unless critical
    crit_spy: float = 0.95  # ... then a spy backs a team with spies, rejects a clean one
    crit_res: float = 0.5  # ... and the resistance approves a critical team
    tell: float = 0.8  # ... a voter votes their side's habit (the rates above) instead
    leader_off: float = 0.8  # a spy leader's team without exactly enough spies (reason.Style.own)
    pivot: int = 7  # at tables up to this size spies leave their cover only to turn a vote
    crit_pivot: float = 0.7  # ... so a deciding vote tells less there: crit_spy is this


MODEL: Final = Model()


def spies_for(players: int, override: int = 0) -> int:
    """The number of spies at the table (the seed's table unless the host set one)."""
    return override or SIZES[players].spies


@lru_cache(maxsize=64)
def assignments(players: int, spies: int) -> tuple[int, ...]:
    """Every spy assignment as a bit mask over the seats, in a fixed order."""
    return tuple(sum(1 << s for s in c) for c in combinations(range(players), spies))


def mask(seats: Sequence[int]) -> int:
    out = 0
    for s in seats:
        out |= 1 << s
    return out


class Evidence(NamedTuple):
    """The public record of one view as events, and the seats by player id."""

    players: int
    seat: Mapping[str, int]
    events: tuple[Event, ...]

    @staticmethod
    def of(view: Mapping[str, Any]) -> Evidence:
        ids = [p["id"] for p in view["players"]]
        seat = {p: i for i, p in enumerate(ids)}
        r = view["resistance"]
        double = int(r["double_fail"])
        max_rej = int(r["max_rejections"])

        def need(mission: int) -> int:
            return 2 if mission == double else 1

        events: list[Event] = []
        missions = list(r["missions"])
        done = won = 0
        for p in r["proposals"]:
            team = mask([seat[x] for x in p["team"]])
            votes = p["votes"]
            yes = mask([seat[x] for x, v in votes.items() if v])
            m = int(p["mission"])
            critical = won == 2 or done - won == 2
            last = int(p["attempt"]) >= max_rej
            events.append(("v", team, yes, last, need(m), critical, seat[p["leader"]]))
            if p["vetoed_by"] is not None:
                events.append(("x", seat[p["vetoed_by"]], team, need(m)))
            elif p["approved"] and done < len(missions):
                rec = missions[done]
                done += 1
                won += int(rec["fails"]) < need(m)
                shown = mask([seat[x] for x, c in rec.get("shown", {}).items() if c == FAIL])
                events.append(("m", team, int(rec["fails"]), need(m), shown))
        return Evidence(len(ids), seat, tuple(events))


def _factor(event: Event, a: int, model: Model, players: int) -> float:
    kind = event[0]
    if kind == "m":
        _, team, fails, need, shown = event
        s = (team & a).bit_count()
        if s < fails or shown & ~a:
            return 0.0  # a hard fact: not this assignment
        if s >= need:
            if fails == 0:
                return model.hide
            return 1.0 - model.hide if fails == need else model.stray
        return 1.0 - model.stray if fails == 0 else model.stray
    if kind == "v":
        _, team, yes, last, need, critical, leader = event
        dirty = (team & a).bit_count() >= need
        f = 1.0
        if a >> leader & 1 and (team & a).bit_count() != need:
            f = model.stray if critical else model.leader_off
        if model.cover:
            if last or not (critical or model.tell):
                return f  # everyone votes as the resistance would: nothing to tell
            for i in range(players):
                bit = 1 << i
                if critical:
                    cs = model.crit_pivot if players <= model.pivot else model.crit_spy
                    p = (cs if dirty else 1 - cs) if a & bit else model.crit_res
                    f *= p if yes & bit else 1.0 - p
                    continue
                if a & bit:
                    p = (
                        (model.spy_on if team & bit else model.spy_with)
                        if dirty
                        else model.spy_clean
                    )
                else:
                    p = model.res_on if team & bit else model.res_off
                f *= 1 - model.tell + 2 * model.tell * (p if yes & bit else 1.0 - p)
            return f
        for i in range(players):
            bit = 1 << i
            if last:
                p = model.last
            elif a & bit:
                p = (model.spy_on if team & bit else model.spy_with) if dirty else model.spy_clean
            else:
                p = model.res_on if team & bit else model.res_off
            f *= p if yes & bit else 1.0 - p
        return f
    _, vetoer, team, need = event  # "x"
    if a & (1 << vetoer):
        clean = (team & a).bit_count() < need
        return model.veto_clean if clean else 1.0 - model.veto_clean
    return model.veto_res


@lru_cache(maxsize=4096)
def public_weights(
    players: int, spies: int, events: tuple[Event, ...], model: Model = MODEL
) -> tuple[float, ...]:
    """The weight of every assignment (order of `assignments`) given public events.
    Cached by the events: the weights of a prefix are extended by the last one."""
    masks = assignments(players, spies)
    if not events:
        return (1.0,) * len(masks)
    before = public_weights(players, spies, events[:-1], model)
    last = events[-1]
    out = [
        w * _factor(last, a, model, players) if w else 0.0
        for w, a in zip(before, masks, strict=True)
    ]
    top = max(out)
    if top > 0 and top < 1e-100:  # keep the numbers away from underflow
        out = [w / top for w in out]
    return tuple(out)


class Belief(NamedTuple):
    """One player's weighed assignments: (mask, probability), summing to 1."""

    players: int
    spies: int
    me: int
    weights: tuple[tuple[int, float], ...]
    consistent: tuple[int, ...]  # the assignments no hard fact rules out

    def spy_chance(self, seat: int) -> float:
        bit = 1 << seat
        return sum(p for a, p in self.weights if a & bit)

    def fail_chance(self, team: int, need: int) -> float:
        """The chance a team carries enough spies to fail its mission."""
        return sum(p for a, p in self.weights if (team & a).bit_count() >= need)


def private_facts(view: Mapping[str, Any], seat: Mapping[str, int]) -> tuple[int, int]:
    """(seats known to be spies, seats known to be resistance) from the viewer's
    own plot cards."""
    spy = clear = 0
    for f in view["you"]["learned"]:
        bit = 1 << seat[f["player"]]
        if f["value"] in (SPIES, FAIL):
            spy |= bit
        elif f["card"] != KEEPING_CLOSE_EYE:  # a spy may play success: no proof
            clear |= bit
    return spy, clear


def belief(
    view: Mapping[str, Any],
    player: str,
    spies: int = 0,
    model: Model = MODEL,
    *,
    public: bool = False,
    cover: bool = False,
) -> Belief:
    """What `player` can believe from their view. `public=True` leaves out their
    own role and plot-card knowledge (what the rest of the table can believe
    about everyone): a spy uses it to see themselves as the resistance sees them.
    `cover=True` is what a member of the resistance in this seat would believe
    from the public record: a spy votes from it to blend in."""
    ev = Evidence.of(view)
    n = ev.players
    k = spies_for(n, spies)
    me = ev.seat[player]
    masks = assignments(n, k)
    weights = public_weights(n, k, ev.events, model)
    known_spy = known_clear = 0
    if cover:
        known_clear = 1 << me
    elif not public:
        known_spy, known_clear = private_facts(view, ev.seat)
        if view["you"]["role"] == SPY:
            spies_now = mask([ev.seat[p] for p in view["you"]["spies"]])
            return Belief(n, k, me, ((spies_now, 1.0),), (spies_now,))
        known_clear |= 1 << me
    kept = [
        (a, w)
        for a, w in zip(masks, weights, strict=True)
        if w > 0 and a & known_spy == known_spy and not a & known_clear
    ]
    consistent = tuple(a for a, _ in kept)
    total = sum(w for _, w in kept)
    if total <= 0:  # the record contradicts the model's hard facts: start afresh
        kept = [(a, 1.0) for a in masks if a & known_spy == known_spy and not a & known_clear]
        total = float(len(kept)) or 1.0
    return Belief(n, k, me, tuple((a, w / total) for a, w in kept), consistent)


__all__ = ["MODEL", "Belief", "Evidence", "Model", "assignments", "belief", "mask", "spies_for"]
