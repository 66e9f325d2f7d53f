"""Behaviour fingerprint: one SHA-256 over everything the core shows the world
across many seeded games, so a change made for speed can be checked to change
nothing else.

Not a test and not a benchmark: it prints three digests (Resistance, then with
Station, then with Traitors). Run it before and after a change, or against two
checkouts side by side; equal digests mean equal behaviour on every game played:

    .venv/bin/python bench/fingerprint.py [--root DIR] [--seeds N]

What goes into the digest, step by step:
- Resistance, 5-10 players, plot cards off, on, and with heroes, random and
  simple bots: after every accepted input, `legal()` for every player, the host
  and a stranger; the events of every input; now and then a burst of inputs the
  rules should refuse (their codes and messages, or what was accepted); for the
  first seeds also the snapshot, every view (public, host, each player) and the
  replay record;
- Station, 8-15 players, seeded random legal inputs (bench/engine.py's games):
  the same per input;
- Traitors, whole bot campaigns: the final snapshot and the refusal count.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


class Digest:
    def __init__(self) -> None:
        self.h = hashlib.sha256()

    def put(self, value: object) -> None:
        self.h.update(repr(value).encode())
        self.h.update(b"\n")

    def hexdigest(self) -> str:
        return self.h.hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", default=str(ROOT), help="the checkout whose gameflow to run")
    parser.add_argument("--seeds", type=int, default=20)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))  # bench.engine, for Station's recorded games
    sys.path.insert(0, args.root)

    import gameflow.games
    from gameflow.core import actions as A
    from gameflow.core.codec import encode_game
    from gameflow.core.engine import apply, legal, view
    from gameflow.core.result import Rejected
    from gameflow.core.rules import rules_for
    from gameflow.core.state import HOST_VIEW, Game
    from gameflow.games.resistance import bots as rb
    from gameflow.games.resistance.actions import Give, Mission, Pass, Play, Propose, Vote
    from gameflow.games.traitors import bots as tb

    getattr(gameflow.games, "register_all", lambda: None)()  # the composition root
    print(f"gameflow from {Path(A.__file__).parent.parent}")
    digest = Digest()
    put = digest.put

    def dumped(value: Any) -> str:
        return json.dumps(value, sort_keys=True, default=repr)

    def observe(game: Game, full: bool) -> None:
        for p in (*game.players, game.host, "stranger"):
            put(legal(game, p))
        if full:
            put(encode_game(game))
            put(dumped(view(game, None)))
            put(dumped(view(game, HOST_VIEW)))
            for p in game.players:
                put(dumped(view(game, p)))
            put(dumped(rules_for(game.kind).record(game)))

    def refusable(game: Game, rng: random.Random) -> list[A.Action]:
        ps = game.players
        p = rng.choice(ps)
        seq = game.phase.seq
        return [
            Vote(p, None, True),
            Vote(p, seq + 1, False),
            Propose(p, None, tuple(rng.sample(ps, 2))),
            Propose(p, None, tuple(ps[:3])),
            Mission(p, None, "fail"),
            Mission(p, None, "success"),
            Mission(p, None, "bogus"),
            Pass(p),
            Play(p, None, "strong_leader"),
            Give(p, None, "x", ps[0]),
            A.Deadline(None, seq),
            A.Advance("host"),
            A.Pause("p0"),
        ]

    def resistance(seeds: int) -> None:
        for seed in range(seeds):
            for n in (5, 6, 7, 8, 9, 10):
                for opts in ({"plot_cards": False}, {}, {"heroes": True}):
                    for policy in (rb.random_action, rb.simple_action):
                        if policy is rb.simple_action and n > 7 and seed % 3:
                            continue
                        game = rb.start_game(n, seed, dict(opts))
                        rng, bot = random.Random(seed * 7 + n), random.Random(seed)
                        full = seed < 3
                        now = rb.EPOCH
                        observe(game, full)
                        while not game.over:  # bots.play_game, observed
                            progressed = False
                            for p in game.players:
                                for spec in legal(game, p):
                                    action = policy(game, p, spec, bot)
                                    if action is None:
                                        continue
                                    now += 0.5
                                    if rng.random() < 0.15:
                                        for bad in refusable(game, rng):
                                            r = apply(game, bad, now)
                                            put(r if isinstance(r, Rejected) else r.events)
                                    r = apply(game, action, now)
                                    put((action, r if isinstance(r, Rejected) else r.events))
                                    if not isinstance(r, Rejected):
                                        game, progressed = r.state, True
                                        observe(game, full)
                                    break
                            if not progressed and not game.over:
                                now = max(now, game.phase.deadline or now)
                                r = apply(game, A.Deadline(None, game.phase.seq), now)
                                assert not isinstance(r, Rejected), r
                                put(r.events)
                                game = r.state
                                observe(game, full)
                        put(encode_game(game))

    def station(seeds: int) -> None:
        from bench.engine import record_game

        for seed in range(seeds):
            game, stream = record_game(seed, 8 + seed % 8)
            for action, now in stream:
                r = apply(game, action, now)
                assert not isinstance(r, Rejected), r
                put(r.events)
                game = r.state
                observe(game, seed < 2)
            put(encode_game(game))

    def traitors(seeds: int) -> None:
        for seed in range(seeds):
            end, refused = tb.play_game(tb.start_game(10 + seed % 8, seed), random.Random(seed))
            put((encode_game(end), refused))

    resistance(args.seeds)
    print("resistance", digest.hexdigest())
    station(max(1, args.seeds // 2))
    print("+station  ", digest.hexdigest())
    traitors(max(1, args.seeds * 3 // 10))
    print("+traitors ", digest.hexdigest())


if __name__ == "__main__":
    main()
