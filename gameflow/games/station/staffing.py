"""The staffing generator: three plans for the number of living players.

Higher rewards need more people. Each plan's staffing scales with the living
players (the sitting-out player still counts: the seed says staffing is not
lowered for them). The shares below were tuned with the balance simulator
(`muldvarp simulate station`, see docs/balance.md) so that the default bots win
about half of the games as loyal crew at every table size.
"""

from __future__ import annotations

import random
from typing import NamedTuple

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


def draw_plans(
    rng: random.Random, living: int, shapes: dict[int, Shape] | None = None
) -> tuple[Plan, ...]:
    """Three plans with rewards 1, 2 and 3 in a drawn order."""
    table = shapes or SHAPES
    rewards = [1, 2, 3]
    rng.shuffle(rewards)
    plans = []
    for reward in rewards:
        shape = table[reward]
        places = max(2, round(living * shape.places + rng.uniform(-0.7, 0.7)))
        guards = max(1, round(living * shape.guards + rng.uniform(-0.7, 0.7)))
        radio = max(1, round(places * rng.uniform(0.25, 0.45)))
        outside = max(1, places - radio)
        plans.append(Plan(reward, outside, radio, guards))
    return tuple(plans)
