"""The Traitors' balance table: `muldvarp simulate traitors`.

The traitors' win rate per table size with the reasoning bots, the final day
each size played and the mean pot: what docs/balance.md reports and the game's
definition hands the simulator (gameflow/simulate.py). `lopsided` is the
host's warning from the measured tables below (the figures docs/balance.md
shows; issue #32): no simulation when a host asks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from gameflow.core.text import N_, Msg, msg
from gameflow.games.traitors.balance_table import TRAITOR_WIN, TWO_OF_SIX
from gameflow.games.traitors.bots import Outcome, traitor_win_rates
from gameflow.games.traitors.length import default_final_day
from gameflow.games.traitors.options import traitor_count
from gameflow.simulate import ranged, wilson


def traitors_table(results: Mapping[int, Sequence[Outcome]], games: int) -> tuple[str, int]:
    """The traitors' win rate per table size from `traitor_win_rates` (with the
    final day each size played and the mean pot); and the bot actions the
    engine refused."""
    lines = [
        "| players | final day | games | traitor win % | 95% CI | loyal win % | mean pot |",
        "|---:|---:|---:|---:|---|---:|---:|",
    ]
    refused = 0
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
        options = dict(kw["options"] or {})
        results = traitor_win_rates(counts, games, seed, options, kw["bots"], tick)
        return traitors_table(results, games)

    head = ("traitors", "Traitors", 6, 24, players, games, seed)
    return ranged(*head, kw["bots"], kw["options"], kw["progress"], make)


# -- the host's warning --------------------------------------------------------------

LOPSIDED: Final = 65.0  # a side that wins more than this share is warned of
# Settings the tables were measured at; another value has no figure.
MEASURED: Final = {
    "dagger": False,
    "dagger_with_shield": False,
    "death_list": False,
    "second_tie_excludes_all": True,
}
TRAITORS_AHEAD = N_(
    "Lopsided: by the balance table the traitors win about {pct} % of games with "
    "{players} players and {days} days; final_day 0 plays the balanced {fair}."
)
LOYAL_AHEAD = N_(
    "Lopsided: by the balance table the loyal win about {pct} % of games with "
    "{players} players and {days} days; final_day 0 plays the balanced {fair}."
)
RECRUITING_AHEAD = N_(
    "Lopsided: by the balance table the traitors win about {pct} % of games with "
    "{players} players, {days} days and recruitment on (recruit no evens it)."
)
COUNT_AHEAD = N_(
    "Lopsided: by the balance table the traitors win about {pct} % of games with "
    "{players} players and {count} traitors (traitors 0 evens it)."
)


def figure(players: int, days: int, recruit: bool) -> float | None:
    """The traitors' win % for this length: the measured cell; else the
    nearest shorter length's where the traitors win more than 65 % there (a
    longer campaign only favours them more: each day costs the loyal about two
    players), or the nearest longer length's where the loyal do; else None."""
    found = TRAITOR_WIN.get((players, days, recruit))
    if found is not None:
        return found
    measured = sorted(d for n, d, r in TRAITOR_WIN if n == players and r == recruit)
    shorter = [d for d in measured if d < days]
    if shorter and TRAITOR_WIN[(players, shorter[-1], recruit)] > LOPSIDED:
        return TRAITOR_WIN[(players, shorter[-1], recruit)]
    longer = [d for d in measured if d > days]
    if longer and TRAITOR_WIN[(players, longer[0], recruit)] < 100.0 - LOPSIDED:
        return TRAITOR_WIN[(players, longer[0], recruit)]
    return None


def lopsided(players: int, options: Mapping[str, Any]) -> Msg | None:
    """The warning for a table of `players` with `options` when the measured
    tables say a side wins more than 65 % (None: neither does, or there is no
    figure: a size outside 6-24, or a setting the tables did not vary)."""
    if any(options.get(name, default) != default for name, default in MEASURED.items()):
        return None
    if players not in range(6, 25):
        return None
    fair = default_final_day(players)
    days = int(options.get("final_day", 0)) or fair
    recruit = bool(options.get("recruit", False))
    count = int(options.get("traitors", 0))
    params: dict[str, int] = {"players": players, "days": days, "fair": fair}
    if count not in (0, traitor_count(players)):
        pct = TWO_OF_SIX.get(days) if (players, count, recruit) == (6, 2, False) else None
        if pct is None or pct <= LOPSIDED:
            return None
        return msg(COUNT_AHEAD, pct=round(pct), players=players, count=count)
    traitors = figure(players, days, recruit)
    if traitors is None:
        return None
    if traitors > LOPSIDED:
        text = RECRUITING_AHEAD if recruit else TRAITORS_AHEAD
        return msg(text, pct=round(traitors), **params)
    if 100.0 - traitors > LOPSIDED:
        return msg(LOYAL_AHEAD, pct=round(100.0 - traitors), **params)
    return None
