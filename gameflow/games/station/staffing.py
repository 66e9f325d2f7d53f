"""The staffing generator: three plans for the number of living players.

Higher rewards need more people. Each plan's staffing scales with the living
players (the sitting-out player still counts: the seed says staffing is not
lowered for them). A plan's demand is its reward's `Shape` (shares of the
living players) times the table size's `SCALE`, plus a little noise; the three
demands are then ranked so that a higher reward always needs strictly more
people (work places + guards). `SHAPES` and `SCALE` were tuned with the balance
simulator (`muldvarp simulate station`, see docs/balance.md) so that the default
bots win about half of the games as loyal crew at every table size.
"""

from __future__ import annotations

import random
from typing import Final, NamedTuple

from gameflow.games.station.state import Plan


class Shape(NamedTuple):
    """How demanding a plan of one reward is, as shares of the living players."""

    places: float  # outside + radio work places
    guards: float  # guards needed before sabotage


SHAPES: dict[int, Shape] = {
    1: Shape(places=0.30, guards=0.12),
    2: Shape(places=0.45, guards=0.18),
    3: Shape(places=0.60, guards=0.24),
}

# How hard a table of this many players (at the start) is asked to work, as a
# factor on SHAPES. The infiltrator count and the rounds/target/damage brackets
# change in steps with the table size, so one set of shares cannot fit every
# size: this table is what the simulator tunes. Sizes outside it use the
# nearest entry.
SCALE: dict[int, float] = {
    5: 0.75,
    6: 1.29,
    7: 0.50,
    8: 1.16,
    9: 1.34,
    10: 1.08,
    11: 1.20,
    12: 1.37,
    13: 1.13,
    14: 1.24,
    15: 1.34,
}

# An extra factor on the guards alone, per table size (1.0: none). More guards
# per card leave an infiltrator room to lie about it, and a lie is exposed when
# the counts are revealed, so this trades plan size for information.
GUARD_SCALE: dict[int, float] = {7: 3.0}

MIN_PLACES: Final = 1  # outside + radio, at least (small tables may draw a one-place plan)
MIN_RADIO: Final = 0  # a plan may need nobody on the radio
NOISE: Final = 0.7  # each count is drawn around its mean, ± this much before rounding


def scale_for(players: int, scale: dict[int, float] | None = None) -> float:
    table = SCALE if scale is None else scale
    return table[min(max(players, min(table)), max(table))]


def draw_plans(
    rng: random.Random,
    living: int,
    shapes: dict[int, Shape] | None = None,
    scale: dict[int, float] | None = None,
    *,
    table: int | None = None,
) -> tuple[Plan, ...]:
    """Three plans with rewards 1, 2 and 3 in a drawn order, for `living`
    players at a table that started with `table` players (default: `living`).

    The counts follow the living players; the scale follows the table's size at
    the start, which fixes its infiltrator count and its rounds/target/damage
    bracket (a 13-player table that has lost one player is still a 13-player
    game, not a 12-player one)."""
    size = living if table is None else table
    factor = scale_for(size, scale)
    guard_factor = factor * GUARD_SCALE.get(size, 1.0)
    table_shapes = shapes or SHAPES
    rewards = [1, 2, 3]
    rng.shuffle(rewards)
    demands: list[tuple[int, int, float]] = []
    for reward in (1, 2, 3):
        shape = table_shapes[reward]
        places = max(MIN_PLACES, round(living * shape.places * factor + rng.uniform(-NOISE, NOISE)))
        guards = max(1, round(living * shape.guards * guard_factor + rng.uniform(-NOISE, NOISE)))
        demands.append((places, guards, rng.uniform(0.25, 0.45)))
    # Rank the demands so that a higher reward needs strictly more people.
    demands.sort(key=lambda d: (d[0] + d[1], d[0]))
    for i in range(1, len(demands)):
        places, guards, share = demands[i]
        low = demands[i - 1][0] + demands[i - 1][1]
        if places + guards <= low:
            demands[i] = (low + 1 - guards, guards, share)
    plans = {}
    for reward, (places, guards, share) in zip((1, 2, 3), demands, strict=True):
        radio = min(places - 1, max(MIN_RADIO, round(places * share)))
        plans[reward] = Plan(reward, places - radio, radio, guards)
    return tuple(plans[r] for r in rewards)
