"""Werewolf bots for `muldvarp simulate werewolf`: whole games through the core.

The reasoning bot (`decide`) is handed its own player's view only
(`engine.view(game, player)`): its role, the pack to a wolf, the seer's
findings to the seer, and what the table saw (the dead's roles, who voted
for whom). How it plays:
- the table's suspicion of a player: +1 for each vote they cast against a
  player then shown a villager, -1 for each against a shown werewolf; the
  village's talk settles on one of the most suspected (one choice the same
  for every bot, from the day and the candidates: the table's talk);
- the seer votes for a werewolf it found, and its finding carries the table
  (a seer's claim) unless the seer is dead;
- the wolves agree on a victim (their night talk) — a player the seer's
  claim or the table's votes make dangerous first — and vote with the
  table unless it names one of them;
- the doctor protects itself, or the night before's choice being barred,
  the most useful other player.
`play_game` and `win_rates` follow the Traitors' (gameflow/games/traitors/bots.py).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterable
from typing import Any, Final

from gameflow.core import actions as A
from gameflow.core.engine import apply, legal, new_game, view
from gameflow.core.legal import ActionSpec, Value
from gameflow.core.result import Rejected
from gameflow.core.state import Game
from gameflow.games.werewolf.actions import Inspect, Kill, Lynch, Protect

Policy = Callable[[Game, str, ActionSpec, random.Random], A.Action]

EPOCH: Final = 1_700_000_000.0
HOST: Final = "host"
MAX_STEPS: Final = 20_000
# How often a wolf votes away from a fellow wolf the table names (else it
# votes with the table, as a wolf that would not stand out does).
STEER: Final = 0.25


def _shared(label: str, day: int, pool: Iterable[Value]) -> Value:
    """One choice every bot makes alike from the same pool: the table's (or
    the pack's) talk settling on one, by a hash of the day and the label."""
    return min(pool, key=lambda v: hashlib.sha256(f"{label}/{day}/{v}".encode()).digest())


def suspicion(ww: dict[str, Any]) -> dict[str, int]:
    shown = {e["id"]: e["role"] for e in ww["table"]}
    score: dict[str, int] = {}
    for day in ww["history"]:
        for voter, target in day.get("votes", {}).items():
            role = shown.get(target)
            if role == "wolf":
                score[voter] = score.get(voter, 0) - 1
            elif role is not None:
                score[voter] = score.get(voter, 0) + 1
    return score


def decide(v: dict[str, Any], player: str, spec: ActionSpec, rng: random.Random) -> A.Action:
    ww, me = v["werewolf"], v["you"]
    day = len(ww["history"])
    options = spec.options("target")
    people = [o for o in options if o is not None]
    pack = set(me.get("pack", ()))
    if spec.kind == Inspect.kind:
        seen = {f["player"] for f in me.get("findings", ())}
        fresh = [p for p in people if p not in seen] or people
        return Inspect(player, spec.phase, str(rng.choice(fresh)))
    if spec.kind == Protect.kind:
        if player in people:
            return Protect(player, spec.phase, player)
        return Protect(player, spec.phase, str(_shared("protect" + player, day, people)))
    doubt = suspicion(ww)
    if spec.kind == Kill.kind:
        # the pack's talk: the most trusted by the table first (the likeliest seer)
        prey = [p for p in people if p not in pack]
        least = min(doubt.get(str(p), 0) for p in prey)
        return Kill(
            player,
            spec.phase,
            str(_shared("kill", day, [p for p in prey if doubt.get(str(p), 0) == least])),
        )
    # the lynch vote
    found = [f["player"] for f in me.get("findings", ()) if f["wolf"] and f["player"] in people]
    if found:
        return Lynch(player, spec.phase, found[0])
    top = max(doubt.get(str(p), 0) for p in people) if people else 0
    talk = _shared("talk", day, [p for p in people if doubt.get(str(p), 0) == top] or [None])
    if pack and talk in pack and rng.random() < STEER:
        # now and then away from a fellow wolf, onto the most suspected other
        others = [p for p in people if p not in pack]
        most = max((doubt.get(str(p), 0) for p in others), default=0)
        pool = [p for p in others if doubt.get(str(p), 0) == most]
        talk = _shared("steer", day, pool) if pool else None
    return Lynch(player, spec.phase, None if talk is None else str(talk))


def reasoning_action(game: Game, player: str, spec: ActionSpec, rng: random.Random) -> A.Action:
    """The reasoning bot: it sees `player`'s view only."""
    return decide(view(game, player), player, spec, rng)


def random_action(game: Game, player: str, spec: ActionSpec, rng: random.Random) -> A.Action:
    """A legal answer at random: the baseline."""
    picked = rng.choice(spec.options("target"))
    target = None if picked is None else str(picked)
    if spec.kind == Kill.kind:
        return Kill(player, spec.phase, target)
    if spec.kind == Lynch.kind:
        return Lynch(player, spec.phase, target)
    if spec.kind == Inspect.kind:
        return Inspect(player, spec.phase, str(target))
    return Protect(player, spec.phase, str(target))


POLICIES: Final[dict[str, Policy]] = {
    "reasoning": reasoning_action,
    "simple": random_action,
    "random": random_action,
}


def start_game(players: int, seed: str, options: dict[str, Any] | None = None) -> Game:
    opts = {"pacing": "fast", "auto_advance": True, **(options or {})}
    game = new_game("werewolf", f"sim{seed}", HOST, seed, lang="en", options=opts)
    for i in range(players):
        result = apply(game, A.Join(f"p{i:02}", None, f"P{i}"), EPOCH)
        assert not isinstance(result, Rejected), result
        game = result.state
    started = apply(game, A.Start(HOST), EPOCH)
    if isinstance(started, Rejected):
        raise ValueError(f"the engine refused the start: {started.code}")
    return started.state


def play_game(game: Game, rng: random.Random, policy: Policy) -> tuple[Game, int]:
    """Play `game` to its end; returns the final state and the refused actions."""
    now, refused = EPOCH, 0
    for _ in range(MAX_STEPS):
        if game.over:
            break
        acted = False
        for p in game.players:
            for spec in legal(game, p):
                now += 1.0
                result = apply(game, policy(game, p, spec, rng), now)
                if isinstance(result, Rejected):
                    refused += 1
                    continue
                game, acted = result.state, True
        if not acted and not game.over:
            now = max(now, game.phase.deadline or now)
            ended = apply(game, A.Deadline(None, game.phase.seq), now)
            assert not isinstance(ended, Rejected), ended
            game = ended.state
    return game, refused


def win_rates(
    counts: Iterable[int],
    games: int,
    seed: str,
    options: dict[str, Any] | None = None,
    bots: str = "reasoning",
    progress: Callable[[int], None] | None = None,
) -> dict[int, tuple[int, int, int]]:
    """Per table size: (village wins, wolf wins, refused bot actions); game i of
    n players is seeded "{seed}/{n}/{i}"."""
    policy = POLICIES[bots]
    out: dict[int, tuple[int, int, int]] = {}
    for n in counts:
        village = wolves = refused = 0
        for i in range(games):
            s = f"{seed}/{n}/{i}"
            end, bad = play_game(start_game(n, s, options), random.Random(s), policy)
            village += end.winner == "village"
            wolves += end.winner == "wolves"
            refused += bad
            if progress is not None:
                progress(1)
        out[n] = (village, wolves, refused)
    return out
