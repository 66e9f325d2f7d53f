"""The mission's arithmetic: which plan won, what it covered, whether it held.

A pure function of the round's plans and choices, so the last round's check can
recompute it with one player's sabotage and trap taken out.
"""

from __future__ import annotations

from gameflow.games.station.state import GUARD, NOBODY, OUTSIDE, Choice, Outcome, Plan, Trap


def winning_plan(choices: tuple[Choice | None, ...], plans: int = 3) -> int:
    """Most choosers wins; a tie goes to the topmost of the tied plans."""
    counts = [0] * plans
    for c in choices:
        if c is not None:
            counts[c.plan] += 1
    return counts.index(max(counts))


def resolve(
    plans: tuple[Plan, ...],
    choices: tuple[Choice | None, ...],
    trap: Trap | None,
    checked: int = NOBODY,
) -> Outcome:
    """The outcome of the round. `checked` is the last round's checked player,
    whose sabotage and trap are taken out."""
    plan = winning_plan(choices, len(plans))
    need = plans[plan]
    on = [c if c is not None and c.plan == plan else None for c in choices]
    sabotaging = [c is not None and c.sabotage and seat != checked for seat, c in enumerate(on)]
    outside = radio = guards = 0
    for seat, c in enumerate(on):
        if c is None:
            continue
        if c.job == GUARD:
            guards += not sabotaging[seat]
            continue
        cover = 1
        q = c.partner
        if q != NOBODY:
            mate = on[q]
            if (
                mate is not None
                and mate.job == GUARD
                and mate.partner == seat
                and not sabotaging[q]
            ):
                cover = 2
        if c.job == OUTSIDE:
            outside += cover
        else:
            radio += cover
    guards_ok = guards >= need.guards + 2 * sum(sabotaging)
    success = outside >= need.outside and radio >= need.radio and guards_ok
    return Outcome(
        plan,
        success,
        outside,
        need.outside,
        radio,
        need.radio,
        guards_ok,
        trap_hits(on, trap, checked),
    )


def trap_hits(on: list[Choice | None], trap: Trap | None, checked: int = NOBODY) -> bool:
    """The trap hits iff its holder set it, guards the winning plan with the victim
    as partner, and the victim named the holder, took the required job and the
    same plan (`on` holds only the winning plan's choices)."""
    if trap is None or trap.by == checked:
        return False
    setter, victim = on[trap.by], on[trap.victim]
    return (
        setter is not None
        and victim is not None
        and setter.trap
        and setter.job == GUARD
        and setter.partner == trap.victim
        and victim.partner == trap.by
        and victim.job == trap.job
    )
