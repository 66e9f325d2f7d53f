"""Engine benchmark: actions applied per second, whole 15-player Station games
replayed per second, and whole 5-player Resistance games (random bots) per
second, on one core.

Not a test: it prints figures (see docs/performance.md). Run it with
`.venv/bin/python bench/engine.py [--games N] [--repeat R] [--aigamedev DIR]`.

Method: play N full 15-player games once with a seeded random policy that picks
from the legal actions (plus the deadlines), recording every accepted action and
its time. Then replay the recorded streams through `gameflow.core.engine.apply`
R times and keep the best run (the least disturbed by the rest of the machine).
Only the replay is timed: that is the cost of the core itself.

`--compiled` measures the core as the production image runs it, compiled by
mypyc (built once per version of the sources, see bench/compiled.py).

Resistance is measured twice, for the base game (plot cards off, as
aigamedev/resistance plays it) and with plot cards (the default for 5-10
players): the replay of recorded games (the core alone), and whole games played
live by random bots that choose among `legal()` (new game, joins, start, and
every input to the end): the like-for-like figure for the goal, which is what
aigamedev/resistance does with its RandomBot. `--aigamedev DIR` (a checkout of
github.com/aigamedev/resistance) times that engine in the same run, its runs
alternating with ours, so the ratio holds however busy the machine is.
"""

from __future__ import annotations

import argparse
import gc
import platform
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import bench.compiled as compiled

if compiled.site():  # --compiled: the core as the production image runs it
    sys.path.insert(0, str(compiled.site()))

from gameflow.core import actions as A
from gameflow.core.engine import apply, new_game
from gameflow.core.legal import ActionSpec
from gameflow.core.result import Rejected
from gameflow.core.state import Game
from gameflow.games.resistance import bots as resistance_bots
from gameflow.games.station.actions import Choose, Vote

Stream = list[tuple[A.Action, float]]


def record_game(seed: int, players: int = 15) -> tuple[Game, Stream]:
    """Start a game and play it to the end with a seeded random legal policy."""
    rng = random.Random(seed)
    ids = [f"p{i}" for i in range(players)]
    game = new_game("station", f"bench{seed}", "host", seed, options={"auto_advance": True})
    now = 1_700_000_000.0
    for p in ids:
        game = _ok(apply(game, A.Join(p, None, p.upper()), now))
    game = _ok(apply(game, A.Start("host"), now))
    stream: Stream = []
    # the Resistance bots' loop knows the core alone: any game plays by it
    resistance_bots.play_game(game, _pick, rng, lambda action, now: stream.append((action, now)))
    return game, stream


def _pick(game: Game, p: str, spec: ActionSpec, rng: random.Random) -> A.Action | None:
    kind, fields = spec.kind, {f.name: f.options for f in spec.fields}
    if kind == Choose.kind:
        secret = rng.choice(fields["secret"])
        partner = rng.choice(fields["partner"]) if rng.random() < 0.6 else None
        return Choose(
            p,
            None,
            int(str(rng.choice(fields["plan"]))),
            str(rng.choice(fields["job"])),
            None if partner is None else str(partner),
            secret == "sabotage",
            secret == "trap",
        )
    if kind == Vote.kind:
        target = rng.choice(fields["for"])
        return Vote(p, None, None if target is None else str(target))
    return None


def _ok(result: object) -> Game:
    assert not isinstance(result, Rejected), result
    return result.state  # type: ignore[attr-defined, no-any-return]


def replay(start: Game, stream: Stream) -> Game:
    game = start
    for action, now in stream:
        result = apply(game, action, now)
        game = result.state  # type: ignore[union-attr]
    return game


RESISTANCE_MODES: dict[str, dict[str, object]] = {
    "base game": {"plot_cards": False},
    "plot cards": {},
}


def record_resistance(seed: int, options: dict[str, object]) -> tuple[Game, Stream]:
    """A 5-player Resistance game played once by random bots, recorded."""
    start = resistance_bots.start_game(5, seed, dict(options))
    stream: Stream = []
    resistance_bots.play_game(
        start,
        resistance_bots.random_action,
        random.Random(seed),
        lambda action, now: stream.append((action, now)),
    )
    return start, stream


def live_resistance(games: int, options: dict[str, object]) -> float:
    """Time to play `games` whole games with random bots choosing from
    `legal()`: new game, joins, start, and every input to the end."""
    t0 = time.perf_counter()
    for seed in range(games):
        start = resistance_bots.start_game(5, seed, dict(options))
        resistance_bots.play_game(start, resistance_bots.random_action, random.Random(seed))
    return time.perf_counter() - t0


def aigamedev(path: str) -> Callable[[int], float]:
    """A timer for `games` 5-player games of aigamedev/resistance with its
    RandomBot, run from this folder (no logs/ here, so its bots write no log
    files)."""
    import itertools
    import os

    sys.path[:0] = [path, os.path.join(path, "bots")]
    from beginners import RandomBot  # type: ignore[import-not-found]
    from game import Game as AGame  # type: ignore[import-not-found]

    roles = sorted(set(itertools.permutations([True, True, False, False, False])))

    def timed(games: int) -> float:
        here = os.getcwd()
        os.chdir(os.path.dirname(os.path.abspath(__file__)))
        try:
            random.seed(0)
            t0 = time.perf_counter()
            for i in range(games):
                AGame([RandomBot] * 5, roles[i % len(roles)]).run()
            return time.perf_counter() - t0
        finally:
            os.chdir(here)

    return timed


def best_of(repeat: int, games: list[tuple[Game, Stream]]) -> float:
    best = float("inf")
    gc.collect()
    for _ in range(repeat):
        t0 = time.perf_counter()
        for start, stream in games:
            replay(start, stream)
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--aigamedev", help="a checkout of aigamedev/resistance to time too")
    parser.add_argument(
        "--compiled", action="store_true", help="measure the core compiled by mypyc (setup.py)"
    )
    args = parser.parse_args()
    if args.compiled and not compiled.site():
        compiled.use([a for a in sys.argv if a != "--compiled"])
    games = [record_game(seed) for seed in range(args.games)]
    total = sum(len(s) for _, s in games)
    best = best_of(args.repeat, games)
    per_game_ms = best / args.games * 1000
    print(f"python {platform.python_version()} on {platform.machine()}, core {compiled.describe()}")
    print(f"games: {args.games} x 15 players, {total} actions ({total / args.games:.0f} per game)")
    print(f"actions applied per second: {total / best:,.0f}")
    print(f"15-player games replayed per second: {args.games / best:,.1f}")
    print(f"time per 15-player game: {per_game_ms:.2f} ms")
    print(
        f"goal: >= 100,000 actions/s ({total / best / 100_000:.2f}x), "
        f"< 5 ms per game ({5 / per_game_ms:.2f}x headroom)"
    )
    rn = args.games * 5
    floor = aigamedev(args.aigamedev) if args.aigamedev else None
    for mode, options in RESISTANCE_MODES.items():
        rgames = [record_resistance(seed, options) for seed in range(rn)]
        rtotal = sum(len(s) for _, s in rgames)
        replayed = rn / best_of(args.repeat, rgames)
        # The base game alternates with aigamedev's runs (best of each), so a
        # busy moment of the machine can't favour one side of the ratio.
        live_best = floor_best = float("inf")
        gc.collect()
        for _ in range(args.repeat):
            live_best = min(live_best, live_resistance(rn, options))
            if floor is not None and mode == "base game":
                floor_best = min(floor_best, floor(rn))
        live = rn / live_best
        print(
            f"resistance, {mode}: {rn} x 5 players, random bots, {rtotal / rn:.0f} actions "
            f"per game; replayed {replayed:,.0f} games/s ({replayed * rtotal / rn:,.0f} "
            f"actions/s); played live from legal() {live:,.0f} games/s"
        )
        if mode == "base game":
            ratio = f"goal >= 2,400: {live / 2400:.2f}x"
            if floor is not None:
                ratio += (
                    f"; aigamedev/resistance, 5 RandomBots, same run: {rn / floor_best:,.0f} "
                    f"games/s, {live * floor_best / rn:.2f}x"
                )
            if compiled.describe() == "interpreted":
                ratio += " (interpreted; production runs the compiled core: --compiled)"
            print(f"  base game, live (like-for-like with aigamedev): {ratio}")


if __name__ == "__main__":
    from gameflow.games import register_all

    register_all()  # the composition root: the games this process plays

    main()
