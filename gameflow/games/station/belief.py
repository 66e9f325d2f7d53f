"""What the table can know: table talk and the public belief about who is who.

Part of the Station bots (`bots.py`). Everything here reads only public
information: the claims made in table talk, the revealed guard counts, the
public choices (secret actions taken out), the results and the trap hits. The
loyal bots decide from this belief alone, so they agree without any hidden
coordination, exactly as a table that talks things through would.

The belief is exact Bayes over every possible set of infiltrators (at most
C(15, 5) = 3003), with sets as bit masks so an update is a few integer
operations per set.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import combinations, compress
from math import prod
from typing import Final, NamedTuple

from gameflow.core.state import Game
from gameflow.games.station.flow import infiltrator_count
from gameflow.games.station.mission import resolve
from gameflow.games.station.state import (
    DISCUSSION,
    GUARD,
    NOBODY,
    OUTSIDE,
    RADIO,
    VOTE,
    Choice,
    Outcome,
    Plan,
    Station,
)

EPS: Final = 1e-4  # "impossible" evidence still leaves a trace, so no set ever vanishes
FINAL_HOLD: Final = 0.02  # infiltrators all but never hold back when a failure ends the game


class Talk(NamedTuple):
    """One round's table talk, per seat: the claimed card (plan index, guards)
    and the partner asked for (partner seat, the job asked of them)."""

    claims: tuple[tuple[int, int] | None, ...]
    asks: tuple[tuple[int, str] | None, ...]


class Seen(NamedTuple):
    """One round as the table saw it."""

    plans: tuple[Plan, ...]
    choices: tuple[Choice | None, ...]  # secret actions taken out
    outcome: Outcome
    talk: Talk
    final: bool  # a failure would end the game: infiltrators never hold back


def public(choices: tuple[Choice | None, ...]) -> tuple[Choice | None, ...]:
    """The choices as the table sees them: secret actions taken out."""
    return tuple(None if c is None else c._replace(sabotage=False, trap=False) for c in choices)


def seen(game: Game, talks: Sequence[Talk]) -> list[Seen]:
    """Every round whose result is public, with its talk (talks[i] is round i+1's)."""
    st: Station = game.rules
    cfg = st.config
    damage = 0
    out = []
    for rec, t in zip(st.history, talks, strict=False):
        final = rec.round == cfg.rounds or damage + 1 >= cfg.limit
        out.append(Seen(rec.plans, public(rec.choices), rec.outcome, t, final))
        damage = rec.damage
    if game.phase.name in (DISCUSSION, VOTE) and len(talks) > len(st.history):
        assert st.outcome is not None
        final = game.phase.round == cfg.rounds or st.before[1] + 1 >= cfg.limit
        out.append(Seen(st.plans, public(st.choices), st.outcome, talks[len(st.history)], final))
    return out


class Belief(NamedTuple):
    """A weight for every possible set of infiltrators (a bit mask of seats),
    each seat's resulting chance of being one, and how much evidence has been
    taken in (`rounds` results, `hits` trap hits) so none is weighed twice."""

    masks: tuple[int, ...]
    groups: tuple[tuple[int, ...], ...]  # the same sets as tuples of seats
    has: tuple[tuple[bool, ...], ...]  # per seat: which sets hold it
    weights: tuple[float, ...]
    probs: tuple[float, ...]
    rounds: int = 0
    hits: int = 0


def prior(game: Game) -> Belief:
    """Every set of the public number of infiltrators equally likely."""
    n = len(game.players)
    return _prior(n, int(game.option("infiltrators") or 0) or infiltrator_count(n))


@cache
def _prior(n: int, k: int) -> Belief:
    """The prior depends on the table size only, so it is built once per size."""
    groups = tuple(combinations(range(n), k))
    masks = tuple(sum(1 << s for s in group) for group in groups)
    has = tuple(tuple(m >> s & 1 == 1 for m in masks) for s in range(n))
    weights = (1.0,) * len(masks)
    return Belief(masks, groups, has, weights, _marginals(has, weights))


def update(b: Belief, game: Game, talks: Sequence[Talk], lie: float, hold: float) -> Belief:
    """Take in the public evidence not seen yet.

    Claims: loyal never lie, infiltrators lie with chance `lie` when the card
    leaves room (more than one guard). A mission that failed although its
    public choices were enough needs saboteurs on it able to break it; one that
    succeeded while the infiltrators on it could have broken it means they held
    back (chance `hold`). A trap hit shows the victim loyal and their guard
    partner an infiltrator.
    """
    st: Station = game.rules
    rounds = seen(game, talks)
    fresh = rounds[b.rounds :]
    hits = [rec for rec in st.history[b.hits :] if rec.hit is not None]
    if not fresh and not hits:
        return b._replace(hits=len(st.history))
    weights = list(b.weights)
    for rec in fresh:
        liars = truthful = 0
        for s, claim in enumerate(rec.talk.claims):
            if claim is None:
                continue
            truth = rec.plans[claim[0]].guards
            if truth != claim[1]:
                liars |= 1 << s
            elif truth > 1:
                truthful |= 1 << s
        if liars or truthful:
            per_seat = [
                lie / EPS if liars >> s & 1 else 1 - lie if truthful >> s & 1 else 1.0
                for s in range(len(rec.choices))
            ]
            weights = [
                w * prod(map(per_seat.__getitem__, group))
                for w, group in zip(weights, b.groups, strict=True)
            ]
        clean = resolve(rec.plans, rec.choices, None)
        if not clean.success:
            continue  # it would have failed anyway: no sign of sabotage either way
        workers, guards, fatal, spare = _costs(rec, clean)
        on = workers | guards | fatal
        factors: dict[int, float] = {}  # depends only on who of the set was on the plan
        for i, mask in enumerate(b.masks):
            key = mask & on
            f = factors.get(key)
            if f is None:
                cost = 2 * (key & workers).bit_count() + 3 * (key & guards).bit_count()
                could = cost > spare or key & fatal
                if not rec.outcome.success:
                    f = 1.0 if could else EPS
                else:
                    f = (FINAL_HOLD if rec.final else hold) if could else 1.0
                factors[key] = f
            weights[i] *= f
    for hit in hits:
        assert hit.hit is not None
        victim = 1 << hit.hit.seat
        mine = hit.choices[hit.hit.seat]
        guard = 0 if mine is None or mine.partner == NOBODY else 1 << mine.partner
        for i, mask in enumerate(b.masks):
            if mask & victim or (mask & guard) != guard:
                weights[i] *= EPS
    top = max(weights) or 1.0
    scaled = tuple(w / top for w in weights)
    return b._replace(
        weights=scaled,
        probs=_marginals(b.has, scaled),
        rounds=len(rounds),
        hits=len(st.history),
    )


def _costs(rec: Seen, clean: Outcome) -> tuple[int, int, int, int]:
    """Who on the winning plan would cost what by sabotaging, as masks: workers
    (2 guards), guards (3), paired guards whose partner's job was just covered
    (certain failure); and how many guards the plan had to spare."""
    plan = rec.outcome.plan
    need = rec.plans[plan]
    workers = guards = fatal = 0
    count = 0
    tight = {OUTSIDE: clean.outside <= need.outside, RADIO: clean.radio <= need.radio}
    for s, c in enumerate(rec.choices):
        if c is None or c.plan != plan:
            continue
        if c.job != GUARD:
            workers |= 1 << s
            continue
        count += 1
        mate = rec.choices[c.partner] if c.partner != NOBODY else None
        paired = mate is not None and mate.plan == plan and mate.job != GUARD
        if paired and mate is not None and mate.partner == s and tight[mate.job]:
            fatal |= 1 << s
        else:
            guards |= 1 << s
    return workers, guards, fatal, count - need.guards


def _marginals(has: Sequence[Sequence[bool]], weights: Sequence[float]) -> tuple[float, ...]:
    total = sum(weights) or 1.0
    return tuple(min(1.0, sum(compress(weights, mine)) / total) for mine in has)
