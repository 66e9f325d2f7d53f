"""Scripted Station players for the balance simulator and the demo.

The bots stand in for a table of people so the staffing generator can be tuned
(docs/balance.md). They are deliberately simple and deliberately honest about
information: everything the loyal crew decide is a pure function of *public*
information (the table, the revealed history and the table talk below), so every
loyal bot reaches the same decision without any hidden coordination. Only the
infiltrators read private state, and only what they would know at a real table:
their own team and the cards the team holds between them.

Table talk is modelled here, not in the engine: each round every active player
*claims* their card ("plan 2 needs 1 guard") and may ask for a partner. Loyal
bots always tell the truth; infiltrators sometimes lie. A lie is exposed when
the true guard counts are revealed after the mission, which is what makes
lying a real choice.

Randomness comes only from `rng_for(game.seed, "bots/...")`, so a simulated
game is reproducible from its seed. The bots never call the engine: they return
actions, and the caller applies them.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Final, NamedTuple

from gameflow.core.rng import rng_for
from gameflow.core.state import Game
from gameflow.core.text import N_, Msg, msg
from gameflow.games.station.actions import Choose, Vote
from gameflow.games.station.belief import Belief, Talk, prior, update
from gameflow.games.station.inputs import jobs_for
from gameflow.games.station.mission import resolve
from gameflow.games.station.state import (
    GUARD,
    NOBODY,
    OUTSIDE,
    RADIO,
    Choice,
    Plan,
    Station,
    Trap,
)


class Policy(NamedTuple):
    """The bots' knobs. The defaults are the ones docs/balance.md measures."""

    lie: float = 0.3  # an infiltrator claims one guard fewer than their card says
    hold: float = 0.15  # infiltrators skip a sabotage that would not end the game
    ask: float = 0.25  # a loyal asks for a partner (so that asking is no tell)
    trap_ask: float = 0.8  # the trap holder asks for the victim as partner
    margin_max: int = 15  # extra guards the loyal consider (up to the whole table)
    vote_at: float = 0.5  # a loyal votes someone out from this suspicion on


DEFAULT: Policy = Policy()


class Slot(NamedTuple):
    """One place in the agreed allocation: a job and the seat it pairs with."""

    job: str
    partner: int = NOBODY


class Allocation(NamedTuple):
    """The loyal consensus: the plan, the guards believed needed per plan, each
    seat's (plan, slot), and the estimated chance of success."""

    plan: int
    believed: tuple[int, ...]
    seats: tuple[tuple[int, Slot] | None, ...]
    chance: float


# -- table talk -------------------------------------------------------------------


def talk(game: Game, policy: Policy = DEFAULT) -> Talk:
    """Every active player's claim and partner request for this round."""
    st: Station = game.rules
    r = game.phase.round
    n = len(game.players)
    claims: list[tuple[int, int] | None] = [None] * n
    asks: list[tuple[int, str] | None] = [None] * n
    active = [s for s in range(n) if st.active(s, r)]
    for s in active:
        rng = rng_for(game.seed, f"bots/round/{r}/talk/{s}")
        card = st.cards[s]
        lie, ask, pick = rng.random(), rng.random(), rng.random()
        if card != NOBODY:
            guards = st.plans[card].guards
            if st.infiltrator[s] and lie < policy.lie and guards > 1:
                guards -= 1  # never below 1: every plan needs a guard, so 0 is no lie anyone buys
            claims[s] = (card, guards)
        trap = st.trap
        if trap is not None and trap.by == s:
            if ask < policy.trap_ask:
                asks[s] = (trap.victim, trap.job)
        elif not st.infiltrator[s] and ask < policy.ask:
            others = [q for q in active if q != s]
            asks[s] = (others[int(pick * len(others))], OUTSIDE if pick < 0.5 else RADIO)
    return Talk(tuple(claims), tuple(asks))


def say(game: Game, t: Talk) -> list[Msg]:
    """The table talk as messages (the demo prints them)."""
    lines: list[Msg] = []
    for s, claim in enumerate(t.claims):
        if claim is not None:
            lines.append(
                msg(
                    N_("{name} says: my card shows plan {plan}, guards needed: {guards}."),
                    name=game.names[s],
                    plan=claim[0] + 1,
                    guards=claim[1],
                )
            )
    for s, ask in enumerate(t.asks):
        if ask is not None:
            lines.append(
                msg(
                    N_("{name} would like to guard {partner}."),
                    name=game.names[s],
                    partner=game.names[ask[0]],
                )
            )
    return lines


# -- the public belief ---------------------------------------------------------------


def belief(game: Game) -> Belief:
    """The table's belief before any evidence: see `belief.prior`."""
    return prior(game)


def learn(b: Belief, game: Game, talks: Sequence[Talk], policy: Policy = DEFAULT) -> Belief:
    """Take in the public evidence not seen yet: see `belief.update`."""
    return update(b, game, talks, policy.lie, policy.hold)


def suspicion(b: Belief, players: int) -> tuple[float, ...]:
    """Each seat's chance of being an infiltrator under the belief."""
    assert len(b.probs) == players
    return b.probs


# -- the loyal consensus ---------------------------------------------------------------


def believed_guards(game: Game, t: Talk, probs: Sequence[float]) -> tuple[int, ...]:
    """Guards per plan as the table believes: the highest claim by anyone not
    exposed, so a lie downwards only works when no honest holder speaks."""
    st: Station = game.rules
    out = []
    for p in range(len(st.plans)):
        claims = [
            (g, probs[s])
            for s, c in enumerate(t.claims)
            if c is not None and c[0] == p
            for g in (c[1],)
        ]
        trusted = [g for g, prob in claims if prob < 0.99]
        if trusted:
            out.append(max(trusted))
        elif claims:
            out.append(max(g for g, _ in claims) + 1)
        else:
            out.append(
                max(
                    1,
                    round(
                        0.2 * sum(st.active(s, game.phase.round) for s in range(len(game.players)))
                    ),
                )
            )
    return tuple(out)


def _layout(plan: Plan, guards: int) -> list[Slot]:
    """Slots for a team: `guards` guards, paired with as many workers as they
    can cover (a paired worker covers two places)."""
    pairs_out = min(plan.outside // 2, guards)
    pairs_radio = min(plan.radio // 2, guards - pairs_out)
    slots: list[Slot] = []
    pair_jobs = [OUTSIDE] * pairs_out + [RADIO] * pairs_radio
    for i in range(len(pair_jobs)):
        slots.append(Slot(GUARD, len(pair_jobs) + i))  # partner: slot index for now
    for i in range(len(pair_jobs)):
        slots.append(Slot(pair_jobs[i], i))
    slots.extend(Slot(GUARD) for _ in range(guards - len(pair_jobs)))
    slots.extend(Slot(OUTSIDE) for _ in range(plan.outside - 2 * pairs_out))
    slots.extend(Slot(RADIO) for _ in range(plan.radio - 2 * pairs_radio))
    return slots


def _chance(slots: list[Slot], team: list[int], probs: Sequence[float], margin: int) -> float:
    """P(the saboteurs a team may hold stay within its spare guards): a worker
    who sabotages costs 2 guards, an unpaired guard 3, a paired guard fails it."""
    dist = [1.0] + [0.0] * (margin + 1)
    for slot, s in zip(slots, team, strict=True):
        p = probs[s]
        cost = 2 if slot.job != GUARD else 3 if slot.partner == NOBODY else margin + 1
        new = [0.0] * len(dist)
        for total, q in enumerate(dist):
            if q:
                new[total] += q * (1 - p)
                new[min(len(dist) - 1, total + cost)] += q * p
        dist = new
    return sum(dist[: margin + 1])


def _exact(slots: list[Slot], team: list[int], sets: list[tuple[int, float]], margin: int) -> float:
    """The same chance, summed over the likely infiltrator sets themselves."""
    workers = guards = fatal = 0
    for sl, s in zip(slots, team, strict=True):
        if sl.job != GUARD:
            workers |= 1 << s
        elif sl.partner == NOBODY:
            guards |= 1 << s
        else:
            fatal |= 1 << s
    total = good = 0.0
    for mask, w in sets:
        total += w
        cost = 2 * (mask & workers).bit_count() + 3 * (mask & guards).bit_count()
        if cost <= margin and not mask & fatal:
            good += w
    return good / (total or 1.0)


PACE: Final = (0.75, 0.6, 0.45)  # the outlook's guess at how often a 1-, 2-, 3-part plan succeeds


@cache
def outlook(parts: int, damage: int, left: int, target: int, limit: int, gain: int = 0) -> float:
    """Roughly how likely the crew still is to win after this round gains `gain`
    parts (-1: it failed), if every later round succeeds at the `PACE` rate for
    the reward the crew then picks. It values a part by what it does for the
    target, not by itself: a 1-part plan is worth little when 8 are needed."""
    if gain < 0:
        parts, damage = max(0, parts - 1), damage + 1
    else:
        parts += gain
    if damage >= limit:
        return 0.0
    if left == 0:
        return 1.0 if parts >= target else 0.0
    return max(
        q * outlook(parts, damage, left - 1, target, limit, reward)
        + (1 - q) * outlook(parts, damage, left - 1, target, limit, -1)
        for reward, q in zip((1, 2, 3), PACE, strict=True)
    )


EXACT_SETS: Final = 500  # up to this many infiltrator sets, teams are judged on the sets themselves


def allocate(game: Game, t: Talk, b: Belief, policy: Policy = DEFAULT) -> Allocation:
    """The plan, team and jobs the loyal crew agree on this round.

    For each plan and each safety margin the team is the least suspicious
    players (at small tables also the players outside each likely infiltrator
    set); the plan, margin and team with the best expected value win. Players
    off the team spread over the other plans so the team's plan wins the plan
    vote.
    """
    st: Station = game.rules
    r = game.phase.round
    n = len(game.players)
    cfg = st.config
    probs = b.probs
    active = [s for s in range(n) if st.active(s, r)]
    order = list(active)
    rng_for(game.seed, f"bots/round/{r}/order").shuffle(order)
    order.sort(key=lambda s: probs[s])
    orders = [order]
    sets: list[tuple[int, float]] = []
    if len(b.masks) <= EXACT_SETS:
        sets = sorted(zip(b.masks, b.weights, strict=True), key=lambda x: -x[1])
        for mask, _ in sets[:6]:
            alt = [s for s in order if not mask >> s & 1] + [s for s in order if mask >> s & 1]
            if alt not in orders:
                orders.append(alt)
    believed = believed_guards(game, t, probs)
    left = cfg.rounds - r
    won = (st.parts, st.damage, left, cfg.target, cfg.limit)
    best: tuple[float, int, list[Slot], list[int], float] | None = None
    for p, plan in enumerate(st.plans):
        liars = _claim_doubt(t, probs, p, policy)
        for margin in range(policy.margin_max + 1):
            slots = _layout(plan, believed[p] + margin)
            while not _holds(len(slots), len(active), p, len(st.plans)):
                slots.append(Slot(GUARD))
            if len(slots) > len(active):
                break
            spare = len(slots) - _need(slots, believed[p])
            for line in orders:
                team = line[: len(slots)]
                if sets:
                    chance = _exact(slots, team, sets, spare)
                else:
                    chance = _chance(slots, team, probs, spare)
                chance *= 1 - liars
                value = chance * outlook(*won, gain=plan.reward) + (1 - chance) * outlook(
                    *won, gain=-1
                )
                if best is None or value > best[0] + 1e-9:
                    best = (value, p, slots, team, chance)
    if best is None:  # nobody can staff anything: everyone on the cheapest plan
        p = min(range(len(st.plans)), key=lambda i: st.plans[i].outside + st.plans[i].radio)
        best = (0.0, p, [Slot(GUARD) for _ in active], order, 0.0)
    _, plan_i, slots, team, chance = best
    team = _fit(st, r, slots, team, t)
    seats: list[tuple[int, Slot] | None] = [None] * n
    for slot, s in zip(slots, team, strict=True):
        partner = NOBODY if slot.partner == NOBODY else team[slot.partner]
        seats[s] = (plan_i, Slot(slot.job, partner))
    room = {q: _room(len(slots), plan_i, q) for q in range(len(st.plans)) if q != plan_i}
    for s in order:
        if seats[s] is None:
            q = max(room, key=lambda q: (room[q], q))
            room[q] -= 1
            seats[s] = (q, Slot(GUARD))
    return Allocation(plan_i, believed, tuple(seats), chance)


def _room(team: int, plan: int, other: int) -> int:
    """How many may choose `other` without beating the team's `plan` in the plan
    vote: a tie goes to the topmost plan, so a plan below may draw level."""
    return team if other > plan else team - 1


def _holds(team: int, active: int, plan: int, plans: int) -> bool:
    """Can the players off the team spread over the other plans so the team's
    plan still wins the plan vote?"""
    off = active - team
    return off <= sum(_room(team, plan, q) for q in range(plans) if q != plan)


def _need(slots: list[Slot], guards: int) -> int:
    """The margin is counted over the guards the team holds beyond `guards`."""
    return sum(1 for s in slots if s.job != GUARD) + guards


def _claim_doubt(t: Talk, probs: Sequence[float], plan: int, policy: Policy) -> float:
    """The chance the believed guard count is a lie: every claimant a liar."""
    claimants = [probs[s] for s, c in enumerate(t.claims) if c is not None and c[0] == plan]
    if not claimants:
        return 0.3
    doubt = 1.0
    for q in claimants:
        doubt *= q * policy.lie
    return doubt


def _fit(st: Station, r: int, slots: list[Slot], team: list[int], t: Talk) -> list[int]:
    """Seat the team in the slots: honour partner requests where both asker and
    asked are on the team, and keep an injured player off the outside job."""
    team = list(team)
    where = {s: i for i, s in enumerate(team)}
    for asker, ask in enumerate(t.asks):
        if ask is None or asker not in where or ask[0] not in where:
            continue
        victim, job = ask
        for gi, slot in enumerate(slots):
            if slot.job != GUARD or slot.partner == NOBODY or slots[slot.partner].job != job:
                continue
            wi = slot.partner
            trial = list(team)
            a, b = where[asker], where[victim]
            trial[a], trial[gi] = trial[gi], trial[a]
            b = trial.index(victim)
            trial[b], trial[wi] = trial[wi], trial[b]
            if trial[gi] == asker and trial[wi] == victim and _allowed(st, r, slots, trial):
                team = trial
                where = {s: i for i, s in enumerate(team)}
            break
    if not _allowed(st, r, slots, team):
        hurt = next(i for i, s in enumerate(team) if slots[i].job not in jobs_for(st, s, r))
        swap = next(i for i, sl in enumerate(slots) if sl.job != OUTSIDE)
        team[hurt], team[swap] = team[swap], team[hurt]
    return team


def _allowed(st: Station, r: int, slots: list[Slot], team: list[int]) -> bool:
    return all(slot.job in jobs_for(st, s, r) for slot, s in zip(slots, team, strict=True))


# -- choices and votes --------------------------------------------------------------


def choices(game: Game, t: Talk, alloc: Allocation, policy: Policy = DEFAULT) -> list[Choose]:
    """Every active player's mission choice. Loyal bots follow the allocation;
    infiltrators follow it too (a visible deviation would expose them) and add
    the fewest sabotages that make the mission fail, or a trap that will hit."""
    st: Station = game.rules
    seq = game.phase.seq
    r = game.phase.round
    base: dict[int, Choice] = {}
    for s, seat in enumerate(alloc.seats):
        if seat is not None:
            base[s] = Choice(seat[0], seat[1].job, seat[1].partner)
    secret = _secret_plan(game, alloc, base, policy) if any(st.infiltrator[s] for s in base) else {}
    out = []
    for s, c in sorted(base.items()):
        kind = secret.get(s)
        partner = None if c.partner == NOBODY else game.players[c.partner]
        assert c.job in jobs_for(st, s, r)
        out.append(
            Choose(
                game.players[s], seq, c.plan + 1, c.job, partner, kind == "sabotage", kind == "trap"
            )
        )
    return out


def _secret_plan(
    game: Game, alloc: Allocation, base: dict[int, Choice], policy: Policy
) -> dict[int, str]:
    """The infiltrators' shared decision (they know each other and pool their cards)."""
    st: Station = game.rules
    r = game.phase.round
    cfg = st.config
    mates = [s for s in base if st.infiltrator[s]]
    known = {st.cards[s] for s in mates if st.cards[s] != NOBODY}
    plans = tuple(
        p if i in known else p._replace(guards=alloc.believed[i]) for i, p in enumerate(st.plans)
    )
    n = len(game.players)
    clean: tuple[Choice | None, ...] = tuple(base.get(s) for s in range(n))
    out: dict[int, str] = {}
    trap = st.trap
    if trap is not None and trap.by in base and _trap_hits(trap, clean, alloc.plan):
        out[trap.by] = "trap"
    if not resolve(plans, clean, None).success:
        return out  # it fails anyway: stay hidden
    rng = rng_for(game.seed, f"bots/round/{r}/sabotage")
    final = r == cfg.rounds or st.damage + 1 >= cfg.limit
    if not final and rng.random() < policy.hold:
        return out
    on = [s for s in mates if base[s].plan == alloc.plan and s not in out]
    on.sort(key=lambda s: (base[s].job != GUARD or base[s].partner == NOBODY, s))
    for size in range(1, len(on) + 1):
        group = on[:size]
        trial = tuple(
            None if c is None else c._replace(sabotage=s in group) for s, c in enumerate(clean)
        )
        if not resolve(plans, trial, None).success:
            out.update({s: "sabotage" for s in group})
            break
    return out


def _trap_hits(trap: Trap, clean: tuple[Choice | None, ...], plan: int) -> bool:
    setter, victim = clean[trap.by], clean[trap.victim]
    return (
        setter is not None
        and victim is not None
        and setter.plan == plan == victim.plan
        and setter.job == GUARD
        and setter.partner == trap.victim
        and victim.partner == trap.by
        and victim.job == trap.job
    )


def votes(game: Game, probs: Sequence[float], policy: Policy = DEFAULT) -> list[Vote]:
    """Every active player's vote. Loyal: the most suspicious other player (in
    the last round: the most suspicious player on the winning plan), or nobody
    when no one is suspicious enough. Infiltrators vote the same way, so a vote
    tells the table nothing, except in the last round, when the check would
    catch a mate: then they push the most suspicious loyal on the plan."""
    st: Station = game.rules
    r = game.phase.round
    n = len(game.players)
    seq = game.phase.seq
    active = [s for s in range(n) if st.active(s, r)]
    last = r == st.config.rounds
    pool = active
    if last and st.outcome is not None:
        won = st.outcome.plan
        pool = [s for s in active if (c := st.choices[s]) is not None and c.plan == won] or active
    ranked = sorted(pool, key=lambda s: (-probs[s], s))
    out = []
    for s in active:
        mine = [q for q in ranked if q != s]
        target = mine[0] if mine and (last or probs[mine[0]] >= policy.vote_at) else NOBODY
        if last and st.infiltrator[s] and target != NOBODY and st.infiltrator[target]:
            loyal = [q for q in mine if not st.infiltrator[q]]
            target = loyal[0] if loyal else NOBODY
        out.append(Vote(game.players[s], seq, None if target == NOBODY else game.players[target]))
    return out
