"""Werewolf's balance table: `muldvarp simulate werewolf`.

The village's and the wolves' win rates per table size with the reasoning
bots (gameflow/games/werewolf/bots.py), at the default settings and the wolf
counts of pacing.wolf_count, which were chosen from these runs so that each
side wins 35–65 % (docs/balance.md). `lopsided` is the host's warning from
the measured table below: no simulation when a host asks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from gameflow.core.lopsided import warning
from gameflow.core.text import N_, Msg
from gameflow.games.werewolf.bots import win_rates
from gameflow.games.werewolf.pacing import DEFAULTS, wolf_count
from gameflow.simulate import ranged, wilson


def werewolf_table(
    results: Mapping[int, tuple[int, int, int]], games: int, options: Mapping[str, Any]
) -> tuple[str, int]:
    """The village's win rate per table size from `win_rates`, with the wolves
    each size played at (`options`' or pacing's); and the refused bot actions."""
    lines = [
        "| players | wolves | games | village win % | 95% CI | wolves win % |",
        "|---:|---:|---:|---:|---|---:|",
    ]
    refused = 0
    for n, (village, _, bad) in results.items():
        low, high = wilson(village, games)
        refused += bad
        k = int(options.get("wolves", 0)) or wolf_count(n)
        lines.append(
            f"| {n} | {k} | {games} | {100 * village / games:.1f} | "
            f"{100 * low:.1f}–{100 * high:.1f} | {100 - 100 * village / games:.1f} |"
        )
    return "\n".join(lines), refused


def simulate(players: str, games: int, seed: str, **kw: Any) -> int:
    def make(counts: list[int], tick: Callable[[int], None]) -> tuple[str, int | None]:
        options = dict(kw["options"] or {})
        results = win_rates(counts, games, seed, options, kw["bots"], tick)
        return werewolf_table(results, games, options)

    head = ("werewolf", "Werewolf", 6, 18, players, games, seed)
    return ranged(*head, kw["bots"], kw["options"], kw["progress"], make)


# -- the host's warning --------------------------------------------------------------

# The village's win % by table size at the default settings (docs/balance.md:
# `muldvarp simulate werewolf --games 1000 --seed 1`).
VILLAGE_WIN: Final[dict[int, float]] = {
    6: 50.8,
    7: 49.6,
    8: 52.0,
    9: 55.9,
    10: 42.4,
    11: 38.2,
    12: 48.3,
    13: 41.9,
    14: 51.9,
    15: 45.6,
    16: 47.6,
    17: 49.9,
    18: 49.8,
}
# Settings the table was measured at; another value has no figure.
MEASURED: Final = {
    name: DEFAULTS[name] for name in ("wolves", "reveal_dead", "revote", "doctor_repeat")
}
VILLAGE_AHEAD = N_(
    "Lopsided: by the balance table the village wins about {pct} % of games with {players} players."
)
WOLVES_AHEAD = N_(
    "Lopsided: by the balance table the werewolves win about {pct} % of games with "
    "{players} players."
)


def lopsided(players: int, options: Mapping[str, Any]) -> Msg | None:
    """The warning for a table of `players` when the measured table says a
    side wins more than 65 % (None: neither does, or no figure)."""
    village = VILLAGE_WIN.get(players)
    return warning(players, options, MEASURED, village, (VILLAGE_AHEAD, WOLVES_AHEAD))
