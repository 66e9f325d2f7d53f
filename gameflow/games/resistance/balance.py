"""The Resistance's balance table: `muldvarp simulate resistance`.

The spies' win rate per table size with the reasoning (or simple, or random)
bots at every seat, plot cards on and off: what docs/balance.md reports and
the game's definition hands the simulator (gameflow/simulate.py).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gameflow.games.resistance.bots import POLICIES, spy_win_rates
from gameflow.simulate import _quiet as quiet
from gameflow.simulate import ranged, wilson


def resistance_table(
    counts: Sequence[int],
    games: int,
    seed: str,
    *,
    bots: str = "reasoning",
    plots: Sequence[bool] = (True, False),
    options: Mapping[str, Any] | None = None,
    progress: Callable[[int], None] = quiet,
) -> str:
    """The spies' win rate per player count, plot cards on and off, with the
    `bots` policy ("reasoning", "simple" or "random") at every seat."""
    base = int(seed) if seed.isdigit() else zlib.crc32(seed.encode("utf-8"))
    lines = [
        "| players | games | plot cards | spy win % | 95% CI | resistance win % |",
        "|---:|---:|---|---:|---|---:|",
    ]
    for on in plots:
        opts = {**(options or {}), "plot_cards": on}
        rates = spy_win_rates(counts, games, base, opts, POLICIES[bots], progress)
        for n in counts:
            wins = round(rates[n] * games)
            low, high = wilson(wins, games)
            lines.append(
                f"| {n} | {games} | {'on' if on else 'off'} | {100 * rates[n]:.1f} | "
                f"{100 * low:.1f}–{100 * high:.1f} | {100 - 100 * rates[n]:.1f} |"
            )
    return "\n".join(lines)


def simulate(players: str, games: int, seed: str, **kw: Any) -> int:
    """The table for a range of player counts, printed with the total time
    (`kw`: the command line's options, bots, plots and progress)."""

    def make(counts: list[int], tick: Callable[[int], None]) -> tuple[str, int | None]:
        bots, plots, options = kw["bots"], kw["plots"], kw["options"]
        text = resistance_table(
            counts, games, seed, bots=bots, plots=plots, options=options, progress=tick
        )
        return text, None

    head = ("resistance", "Resistance", 5, 10, players, games, seed)
    return ranged(*head, kw["bots"], kw["options"], kw["progress"], make, len(kw["plots"]))
