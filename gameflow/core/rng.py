"""Seeded randomness kept in the state.

Every draw is a pure function of the game's seed and a label naming what is
drawn (`"station/round/3/plans"`), so a draw never depends on how many draws came
before it, a replay makes exactly the same draws, and anyone holding the revealed
seed can re-run the deal. `random.Random` seeded with a str hashes it with SHA-512,
which is stable across processes and Python versions.
"""

from __future__ import annotations

import random


def rng_for(seed: str, label: str) -> random.Random:
    """A private generator for one named draw of one game."""
    return random.Random(f"{seed}/{label}")
