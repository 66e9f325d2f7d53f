"""The balance simulator: many bot games through the real engine, and their rates.

`muldvarp simulate GAME` plays bot games of one game at every table size and
prints one row per size; every input goes through `engine.apply` exactly as a
table's would, and a phase nobody acts in ends at its deadline.

- **station** (`--players 5-15 --games K --seed S`): the scripted bots of
  `gameflow.games.station.bots` (with the table talk modelled there); the loyal
  win rate with a 95% Wilson interval, mean parts and mean damage. Game i of n
  players is seeded `"{S}/{n}/{i}"`.
- **resistance** (5-10 players): the reasoning bots of
  `gameflow.games.resistance.reason` (or `--bots simple|random`); the spies'
  win rate with plot cards on and off (`--plot-cards both|on|off`). Game g of
  every size is seeded `S + g` (a text seed is hashed first).
- **traitors** (6-24 players): the reasoning bots of
  `gameflow.games.traitors.reason`; the traitors' win rate, the final day each
  size played (`--final-day`, default from the table size) and the mean pot.

Each game's definition names its simulator (gameflow/core/definition.py
`Simulator`), its table in its package's balance.py; this module holds what
they share (the command line, the statistics, the progress line). Resistance
and Traitors take `--option NAME=VALUE` (any option of the game, as a host sets
it); progress goes to stderr on long runs (`--quiet` turns it off). The same
command prints the same table. Everything here is pure except `main` and `run`,
which print (and read the clock once for the total time).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TextIO

from gameflow.core import registry


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval: honest near 0 and 1, unlike the normal one."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    denom = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def _counts(text: str) -> list[int]:
    counts: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.strip().partition("-")
        first = int(lo)
        counts.extend(range(first, int(hi) + 1) if hi else [first])
    return counts


class Progress:
    """Progress of a long run on stderr: one line, rewritten in place on a
    terminal, every tenth of the run otherwise (the table itself goes to stdout)."""

    def __init__(self, total: int, label: str, out: TextIO | None = None) -> None:
        self.total, self.label, self.done = max(1, total), label, 0
        self.out = out if out is not None else sys.stderr
        self.tty = bool(getattr(self.out, "isatty", lambda: False)())
        self._shown = -1

    def __call__(self, games: int = 1) -> None:
        self.done += games
        tenth = 10 * self.done // self.total
        if self.tty:
            self.out.write(f"\r{self.label}: {self.done}/{self.total} games")
        elif tenth != self._shown:
            self._shown = tenth
            self.out.write(f"{self.label}: {self.done}/{self.total} games\n")
        if self.done >= self.total and self.tty:
            self.out.write("\n")
        self.out.flush()


def _quiet(games: int = 1) -> None:
    """No progress (tests, and `--quiet`)."""


def parse_option(text: str) -> tuple[str, Any]:
    """ "final_day=8" -> ("final_day", 8): JSON values (numbers, true/false), else text."""
    name, sep, raw = text.partition("=")
    if not sep or not name.strip():
        raise ValueError(f"an option is NAME=VALUE, not {text!r}")
    try:
        value: Any = json.loads(raw)
    except ValueError:
        value = raw
    return name.strip(), value


def ranged(
    game: str,
    title: str,
    lo: int,
    hi: int,
    players: str,
    games: int,
    seed: str,
    bots: str,
    options: Mapping[str, Any],
    progress: bool,
    make: Callable[[list[int], Callable[[int], None]], tuple[str, int | None]],
    per_count: int = 1,
) -> int:
    """A game's table for a range of player counts (`title` takes `lo` to `hi`
    players): `make(counts, tick)` gives the table and the bot actions the
    engine refused (None: not counted), `per_count` tables of `games` each."""
    import time  # the one clock read, for the report line; the games never see it

    try:
        counts = [int(x) for x in _counts(players or f"{lo}-{hi}")]
    except ValueError as exc:
        print(f"simulate: {exc}")
        return 2
    if not counts or min(counts) < lo or max(counts) > hi or games < 1:
        print(f"simulate: {title} takes {lo} to {hi} players and at least one game")
        return 2
    began = time.perf_counter()
    runs = len(counts) * games * per_count
    tick: Callable[[int], None] = Progress(runs, f"simulate {game}") if progress else _quiet
    text, refused = make(counts, tick)
    print(text)
    told = "" if refused is None else f"bot actions refused: {refused}; "
    extra = "".join(f", {k}={v}" for k, v in sorted(options.items()))
    print(
        f"\n{games} games per player count, seed {seed!r}, {bots} bots{extra}; "
        f"{told}total time {time.perf_counter() - began:.1f} s"
    )
    return 1 if refused else 0


def main(
    game: str,
    players: str,
    games: int,
    seed: str,
    *,
    options: Mapping[str, Any] | None = None,
    bots: str = "reasoning",
    plots: Sequence[bool] = (True, False),
    progress: bool = False,
) -> int:
    """The CLI: print the table and the total time. Exit 2 on bad arguments.
    `options` are the game's own options (Traitors: final_day, recruit, ...).
    Each game's definition holds its simulator (gameflow/core/definition.py)."""
    found = registry.find(game)
    if found is None or found.simulator is None:
        print(f"simulate: no bots for {game!r}")
        return 2
    return found.simulator.run(
        players,
        games,
        seed,
        options=dict(options or {}),
        bots=bots,
        plots=plots,
        progress=progress,
    )


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The `muldvarp simulate` arguments (bots/cli.py hands them to `run`)."""
    p.add_argument("game", choices=[g.kind for g in registry.all_games() if g.simulator])
    p.add_argument(
        "--players", help="a count or a range such as 5-15 (default: the game's whole range)"
    )
    p.add_argument("--games", type=int, default=1000, help="games per player count")
    p.add_argument("--seed", default="0", help="seed of the first game")
    p.add_argument(
        "--bots",
        choices=["reasoning", "simple", "random"],
        default="reasoning",
        help="Resistance and Traitors: the bots at every seat (default: reasoning)",
    )
    p.add_argument(
        "--plot-cards",
        choices=["both", "on", "off"],
        default="both",
        help="Resistance: plot cards on, off, or a table for each (default)",
    )
    p.add_argument(
        "--final-day",
        type=int,
        help="Traitors: the final day (default: from the table size, gameflow/games/traitors/length.py)",
    )
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="any option of the game, as a host sets it (repeatable), e.g. recruit=false",
    )
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")


def _default_players(game: str) -> str:
    sim = registry.get(game).simulator
    return sim.players if sim is not None else ""


def run(args: argparse.Namespace) -> int:
    """`muldvarp simulate`: parse the options and print the table."""
    try:
        options = dict(parse_option(o) for o in args.option)
    except ValueError as exc:
        print(f"simulate: {exc}")
        return 2
    if args.final_day is not None:
        sim = registry.get(args.game).simulator
        if sim is None or "final_day" not in sim.extra or args.final_day < 1:
            print("simulate: --final-day is for Traitors, and at least 1")
            return 2
        options["final_day"] = args.final_day
    plots = {"both": (True, False), "on": (True,), "off": (False,)}[args.plot_cards]
    return main(
        args.game,
        args.players or _default_players(args.game),
        args.games,
        args.seed,
        options=options,
        bots=args.bots,
        plots=plots,
        progress=not args.quiet,
    )
