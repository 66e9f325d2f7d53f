"""The Traitors' balance table: `muldvarp simulate traitors`.

The traitors' win rate per table size with the reasoning bots, the final day
each size played and the mean pot: what docs/balance.md reports and the game's
definition hands the simulator (gameflow/simulate.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gameflow.games.traitors.bots import traitor_win_rates
from gameflow.simulate import _quiet as quiet
from gameflow.simulate import ranged, wilson


def traitors_table(
    counts: Sequence[int],
    games: int,
    seed: str,
    *,
    options: Mapping[str, Any] | None = None,
    bots: str = "reasoning",
    progress: Callable[[int], None] = quiet,
) -> tuple[str, int]:
    """The traitors' win rate per table size (with the final day each size
    played, the mean last day and pot); and the bot actions the engine refused."""
    lines = [
        "| players | final day | games | traitor win % | 95% CI | loyal win % | mean pot |",
        "|---:|---:|---:|---:|---|---:|---:|",
    ]
    refused = 0
    results = traitor_win_rates(counts, games, seed, dict(options or {}), bots, progress)
    for n, rows in results.items():
        wins = sum(1 for r in rows if r.winner == "traitors")
        low, high = wilson(wins, games)
        refused += sum(r.refused for r in rows)
        days = sorted({r.final_day for r in rows})
        lines.append(
            f"| {n} | {'/'.join(str(d) for d in days)} | {games} | {100 * wins / games:.1f} | "
            f"{100 * low:.1f}–{100 * high:.1f} | {100 - 100 * wins / games:.1f} | "
            f"{sum(r.pot for r in rows) / games:.0f} |"
        )
    return "\n".join(lines), refused


def simulate(players: str, games: int, seed: str, **kw: Any) -> int:
    """The table for a range of player counts, printed with the total time
    (`kw`: the command line's options, bots and progress)."""

    def make(counts: list[int], tick: Callable[[int], None]) -> tuple[str, int | None]:
        bots, options = kw["bots"], kw["options"]
        return traitors_table(counts, games, seed, options=options, bots=bots, progress=tick)

    head = ("traitors", "Traitors", 6, 24, players, games, seed)
    return ranged(*head, kw["bots"], kw["options"], kw["progress"], make)
