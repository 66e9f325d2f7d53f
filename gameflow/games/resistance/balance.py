"""The Resistance's balance table: `muldvarp simulate resistance`.

The spies' win rate per table size with the reasoning (or simple, or random)
bots at every seat, plot cards on and off: what docs/balance.md reports and
the game's definition hands the simulator (gameflow/simulate.py); and
`lopsided`, the host's warning from the measured table (`SPY_WIN`, the figures
docs/balance.md shows; issue #32): no simulation when a host asks.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from gameflow.core.lopsided import warning
from gameflow.core.text import N_, Msg
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


# -- the host's warning --------------------------------------------------------------

# The spies' win % by table size and plot cards (on, off), 2,000 games each at
# the default settings: the Results table of docs/balance.md (commit ae7358f).
SPY_WIN: Final[dict[tuple[int, bool], float]] = {
    (5, True): 47.1, (6, True): 42.8, (7, True): 52.7, (8, True): 38.1, (9, True): 39.9,
    (10, True): 47.5, (5, False): 45.2, (6, False): 39.4, (7, False): 57.1,
    (8, False): 40.1, (9, False): 45.3, (10, False): 43.3,
}  # fmt: skip
MEASURED: Final = {"spies": 0, "max_rejections": 5, "double_fail": True, "heroes": False}
SPIES_AHEAD = N_(
    "Lopsided: by the balance table the spies win about {pct} % of games with {players} players."
)
RESISTANCE_AHEAD = N_(
    "Lopsided: by the balance table the resistance wins about {pct} % of games "
    "with {players} players."
)


def lopsided(players: int, options: Mapping[str, Any]) -> Msg | None:
    """The warning for a table of `players` with `options` when the measured
    table says a side wins more than 65 % (None: neither does, or the table
    has no figure: another size, or a setting it did not measure)."""
    spies = SPY_WIN.get((players, bool(options.get("plot_cards", True))))
    return warning(players, options, MEASURED, spies, (SPIES_AHEAD, RESISTANCE_AHEAD))
