"""The Traitors' measured balance: the traitors' win % by table size, final day
and recruitment, for `balance.lopsided` (the host's warning, issue #32).

`TRAITOR_WIN[(players, final_day, recruit)]`, the reasoning bots at every seat,
the settings the simulator plays at their defaults (fast pacing, built-in
missions) but for those two. Recruitment off: days 1-12 at sizes 6-24, 200
games a cell for days 1 and 2, 100 for 3-12, and at each size's default
length the 2,000 of docs/balance.md's Results table. Recruitment on: each
size's default length (100 games; at 22-24 players that is 12 days) and 1, 2,
3, 4, 6, 8 and 12 days (50 games); `balance.figure` reads a length between
from its neighbours. Made by `muldvarp simulate traitors --players 6-24
--games G --final-day D --option recruit=R --seed lopsided` (D left out for
the default lengths) on 2026-12-05, commits ba317fc to f5d9a5c; the grid and
how to read it are in docs/balance.md (The host's warning).
`TWO_OF_SIX`: six players with two traitors, by final day (docs/balance.md,
What changed).
"""

from __future__ import annotations

from typing import Final

# Recruitment off, by size: days 1, 2, 3 and on. A row stops where its figure
# stops changing: every longer length up to `LAST_DAY` measured the same, the
# games being over before the final day came.
OFF: Final[dict[int, tuple[float, ...]]] = {
    6: (33.5, 35.5, 54.1, 49.0),
    7: (57.0, 43.9, 63.0, 73.0),
    8: (43.0, 36.5, 51.3, 63.0),
    9: (41.0, 26.0, 36.0, 53.6, 58.0),
    10: (64.5, 24.5, 45.5, 57.0, 69.0, 72.0),
    11: (54.0, 21.5, 27.0, 50.8, 51.0, 59.0),
    12: (45.0, 23.0, 35.0, 46.0, 56.2, 69.0, 70.0),
    13: (45.5, 21.0, 25.0, 35.0, 44.0, 56.2, 65.0, 66.0),
    14: (42.5, 16.5, 26.0, 30.0, 37.0, 50.5, 59.0, 60.0, 61.0),
    15: (39.5, 19.0, 20.0, 25.0, 32.0, 46.0, 54.2, 59.0),
    16: (36.0, 16.0, 13.0, 17.0, 24.0, 34.0, 47.5, 47.0),
    17: (28.5, 18.5, 22.0, 23.0, 30.0, 33.0, 39.0, 49.5, 53.0, 54.0),
    18: (41.0, 24.5, 26.0, 25.0, 36.0, 41.0, 50.4, 65.0, 75.0, 74.0),
    19: (39.5, 23.5, 18.0, 19.0, 25.0, 29.0, 42.0, 54.2, 61.0, 62.0),
    20: (37.5, 21.5, 18.0, 16.0, 22.0, 25.0, 35.0, 45.0, 58.1, 64.0, 67.0),
    21: (34.0, 20.0, 17.0, 15.0, 18.0, 22.0, 27.0, 42.0, 56.0, 55.7, 63.0, 65.0),
    22: (37.5, 13.5, 11.0, 9.0, 13.0, 17.0, 17.0, 35.0, 42.0, 49.0, 51.0, 62.0),
    23: (33.5, 19.5, 21.0, 20.0, 23.0, 25.0, 25.0, 32.0, 41.0, 54.0, 60.0, 57.6),
    24: (35.0, 11.5, 11.0, 10.0, 16.0, 15.0, 23.0, 26.0, 38.0, 46.0, 48.0, 53.1),
}
# Recruitment on, by size: {final day: win %} for the lengths measured.
ON: Final[dict[int, dict[int, float]]] = {
    6: {1: 30.0, 2: 80.0, 3: 86.0, 4: 84.0, 6: 84.0, 8: 84.0, 12: 84.0},
    7: {1: 58.0, 2: 51.0, 3: 96.0, 4: 100.0, 6: 100.0, 8: 100.0, 12: 100.0},
    8: {1: 50.0, 2: 42.0, 3: 90.0, 4: 100.0, 6: 100.0, 8: 100.0, 12: 100.0},
    9: {1: 50.0, 2: 34.0, 3: 70.0, 4: 97.0, 6: 100.0, 8: 100.0, 12: 100.0},
    10: {1: 66.0, 2: 16.0, 3: 40.0, 4: 76.0, 6: 100.0, 8: 100.0, 12: 100.0},
    11: {1: 58.0, 2: 20.0, 3: 34.0, 4: 59.0, 6: 96.0, 8: 98.0, 12: 100.0},
    12: {1: 32.0, 2: 24.0, 3: 36.0, 4: 62.0, 5: 80.0, 6: 92.0, 8: 100.0, 12: 100.0},
    13: {1: 44.0, 2: 16.0, 3: 32.0, 4: 46.0, 6: 92.0, 8: 100.0, 12: 100.0},
    14: {1: 28.0, 2: 26.0, 3: 28.0, 4: 52.0, 6: 88.0, 8: 100.0, 12: 100.0},
    15: {1: 50.0, 2: 18.0, 3: 28.0, 4: 40.0, 6: 76.0, 7: 92.0, 8: 100.0, 12: 100.0},
    16: {1: 44.0, 2: 6.0, 3: 20.0, 4: 46.0, 6: 74.0, 7: 87.0, 8: 92.0, 12: 100.0},
    17: {1: 24.0, 2: 20.0, 3: 24.0, 4: 38.0, 6: 80.0, 8: 91.0, 12: 100.0},
    18: {1: 36.0, 2: 18.0, 3: 28.0, 4: 30.0, 6: 64.0, 7: 75.0, 8: 76.0, 12: 100.0},
    19: {1: 50.0, 2: 26.0, 3: 30.0, 4: 36.0, 6: 52.0, 8: 79.0, 12: 100.0},
    20: {1: 40.0, 2: 18.0, 3: 26.0, 4: 30.0, 6: 62.0, 8: 74.0, 9: 79.0, 12: 100.0},
    21: {1: 36.0, 2: 6.0, 3: 10.0, 4: 18.0, 6: 42.0, 8: 62.0, 10: 86.0, 12: 96.0},
    22: {1: 32.0, 2: 14.0, 3: 12.0, 4: 22.0, 6: 52.0, 8: 76.0, 12: 93.0},
    23: {1: 34.0, 2: 22.0, 3: 16.0, 4: 26.0, 6: 44.0, 8: 66.0, 12: 96.0},
    24: {1: 40.0, 2: 8.0, 3: 8.0, 4: 26.0, 6: 54.0, 8: 66.0, 12: 89.0},
}
LAST_DAY: Final = 12


def _cells() -> dict[tuple[int, int, bool], float]:
    cells = {
        (n, day, False): row[min(day, len(row)) - 1]
        for n, row in OFF.items()
        for day in range(1, LAST_DAY + 1)
    }
    cells.update({(n, day, True): pct for n, days in ON.items() for day, pct in days.items()})
    return cells


TRAITOR_WIN: Final[dict[tuple[int, int, bool], float]] = _cells()

TWO_OF_SIX: Final[dict[int, float]] = {1: 63.5, 2: 67.9, 3: 83.9}
