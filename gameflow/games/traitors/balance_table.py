"""The Traitors' measured balance: the traitors' win % by table size, final day
and recruitment, for `balance.lopsided` (the host's warning, issue #32).

`TRAITOR_WIN[(players, final_day, recruit)]`: with recruitment off, 200 games
a cell and, at each size's default length, the Results table's 2,000; with
recruitment on, 100 games a cell; days 1-12, sizes 6-24, the other settings
at their defaults (fast pacing and built-in missions in the simulator). Made
by `muldvarp simulate traitors --players 6-24 --games 200 --final-day D
--option recruit=false --seed lopsided` (and `--games 100 ... recruit=true`)
for D from 1 to 12; docs/balance.md shows the table and how to re-run it.
`TWO_OF_SIX`: six players with two traitors by final day (docs/balance.md,
What changed).
"""

from __future__ import annotations

from typing import Final

TRAITOR_WIN: Final[dict[tuple[int, int, bool], float]] = {
    (6, 1, False): 33.5, (6, 3, False): 54.1,
    (7, 1, False): 57.0, (7, 2, False): 43.9,
    (8, 1, False): 43.0, (8, 3, False): 51.3,
    (9, 1, False): 41.0, (9, 4, False): 53.6,
    (10, 1, False): 64.5, (10, 3, False): 45.5,
    (11, 1, False): 54.0, (11, 4, False): 50.8,
    (12, 1, False): 45.0, (12, 5, False): 56.2,
    (13, 1, False): 45.5, (13, 6, False): 56.2,
    (14, 1, False): 42.5, (14, 6, False): 50.5,
    (15, 1, False): 39.5, (15, 7, False): 54.2,
    (16, 1, False): 36.0, (16, 7, False): 47.5,
    (17, 1, False): 28.5, (17, 8, False): 49.5,
    (18, 1, False): 41.0, (18, 7, False): 50.4,
    (19, 1, False): 39.5, (19, 8, False): 54.2,
    (20, 1, False): 37.5, (20, 9, False): 58.1,
    (21, 1, False): 34.0, (21, 10, False): 55.7,
    (22, 1, False): 37.5, (22, 12, False): 62.0,
    (23, 1, False): 33.5, (23, 12, False): 57.6,
    (24, 1, False): 35.0, (24, 12, False): 53.1,
}  # fmt: skip

TWO_OF_SIX: Final[dict[int, float]] = {1: 63.5, 2: 67.9, 3: 83.9}
