"""Resistance bots for simulations and benchmarks.

Three policies, each reading only what a real player could know (role, fellow
spies, what plot cards told them, the public history):
- `reasoning_action`: the bots behind the balance tables. It builds its
  player's view (`engine.view(game, player)`) and hands only that to
  `reason.decide`, which weighs every spy assignment still possible
  (`deduce.py`);
- `simple_action`: the baseline, plain play of its side (spies fail missions
  and back teams with a spy, the resistance avoids players it knows or counts
  as suspect); it reads the state for its own player's role and plot-card
  facts only, and is kept unchanged for the benchmarks' fingerprint;
- `random_action`: a uniformly random legal action (benchmarks, fuzzing).

`play_game` runs a whole game through the core with a seeded policy, and
`spy_win_rates` plays many games per player count: the figures behind
`muldvarp simulate resistance`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from itertools import combinations
from typing import Any, Final

from gameflow.core import actions as A
from gameflow.core.engine import apply, legal, new_game, view
from gameflow.core.legal import ActionSpec
from gameflow.core.result import Rejected
from gameflow.core.state import Game
from gameflow.games.resistance.actions import Give, Mission, Pass, Play, Propose, Vote
from gameflow.games.resistance.cards import (
    IN_THE_SPOTLIGHT,
    KEEPING_CLOSE_EYE,
    NO_CONFIDENCE,
    STRONG_LEADER,
)
from gameflow.games.resistance.reason import decide
from gameflow.games.resistance.state import FAIL, SPIES, SUCCESS, Resistance

Policy = Callable[[Game, str, ActionSpec, random.Random], A.Action | None]
EPOCH: Final = 1_700_000_000.0
_LOBBY: Final = (A.Leave.kind, A.Start.kind)


def random_action(game: Game, player: str, spec: ActionSpec, rng: random.Random) -> A.Action | None:
    """Any legal action, uniformly (a random team of the right size)."""
    kind = spec.kind
    if kind == Vote.kind:  # most inputs: no fields to read
        return Vote(player, None, rng.random() < 0.5)
    if kind == Propose.kind:  # the next most common: one field each, read directly
        st: Resistance = game.rules
        team = rng.sample(spec.options("team"), st.team_size)
        return Propose(player, None, tuple([str(p) for p in team]))
    if kind == Mission.kind:
        return Mission(player, None, str(rng.choice(spec.options("card"))))
    fields = {f.name: f.options for f in spec.fields}
    if kind == Give.kind:
        return Give(player, None, str(rng.choice(fields["card"])), str(rng.choice(fields["to"])))
    if kind == Play.kind:
        if rng.random() < 0.5:
            return None
        target = rng.choice(fields["target"])
        return Play(player, None, str(fields["card"][0]), None if target is None else str(target))
    if kind == Pass.kind:
        return Pass(player)
    return None


def _suspicion(game: Game, seat: int) -> list[float]:
    """The chance this player gives each seat of being a spy. A spy knows the
    spies; a member of the resistance counts the spy sets (without themselves)
    that fit every mission so far (at least as many spies on a team as fails)
    and what plot cards showed them."""
    st: Resistance = game.rules
    n = len(game.players)
    if st.spy[seat]:
        return [1.0 if st.spy[s] else 0.0 for s in range(n)]
    spies, clear = set(), {seat}
    for f in st.knowledge[seat]:
        if f.value in (SPIES, FAIL):
            spies.add(f.about)
        elif f.card != KEEPING_CLOSE_EYE:
            clear.add(f.about)
    fits = [
        c
        for c in combinations([s for s in range(n) if s not in clear], sum(st.spy))
        if spies <= set(c) and all(len(set(r.team) & set(c)) >= r.fails for r in st.results)
    ]
    if not fits:
        return [0.0 if s in clear else 0.5 for s in range(n)]
    count = [0] * n
    for c in fits:
        for s in c:
            count[s] += 1
    return [count[s] / len(fits) for s in range(n)]


def simple_action(game: Game, player: str, spec: ActionSpec, rng: random.Random) -> A.Action | None:
    st: Resistance = game.rules
    seat = game.seat(player)
    spy = st.spy[seat]
    score = _suspicion(game, seat)
    fields = {f.name: f.options for f in spec.fields}
    if spec.kind == Propose.kind:
        others = [s for s in range(len(game.players)) if s != seat]
        rng.shuffle(others)
        # the resistance takes the least suspect; a spy takes resistance players along
        others.sort(key=lambda s: score[s])
        team = [seat, *others[: st.team_size - 1]]
        return Propose(player, None, tuple(game.players[s] for s in team))
    worst = max(score[s] for s in st.team) if st.team else 0.0
    if spec.kind == Vote.kind:
        if spy:
            return Vote(player, None, worst > 0 or rng.random() < 0.2)
        last = st.rejections + 1 >= st.config.max_rejections
        best = sorted(score)[st.team_size - 1]
        return Vote(player, None, last or worst <= best + 0.01)
    if spec.kind == Mission.kind:
        # a spy hides now and then, but never when the spies need the fail
        hide = len(st.results) - st.failures() < 2 and rng.random() < 0.2
        return Mission(
            player, None, FAIL if spy and FAIL in fields["card"] and not hide else SUCCESS
        )
    if spec.kind == Give.kind:
        return Give(player, None, str(rng.choice(fields["card"])), str(rng.choice(fields["to"])))
    if spec.kind == Play.kind:
        card = str(fields["card"][0])
        targets = list(fields["target"])
        if card == NO_CONFIDENCE and (worst > 0) == spy:
            return None
        if card == STRONG_LEADER and rng.random() < 0.5:
            return None
        if card in (IN_THE_SPOTLIGHT, KEEPING_CLOSE_EYE) and spy:
            return None
        target = rng.choice(targets)
        return Play(player, None, card, None if target is None else str(target))
    if spec.kind == Pass.kind:
        return Pass(player)
    return None


def reasoning_action(
    game: Game, player: str, spec: ActionSpec, rng: random.Random
) -> A.Action | None:
    """The reasoning bot: it sees `player`'s view and the host's (public) spy count."""
    return decide(view(game, player), player, spec, rng, spies=int(game.option("spies", 0)))


POLICIES: Final[dict[str, Policy]] = {
    "reasoning": reasoning_action,
    "simple": simple_action,
    "random": random_action,
}


def _ok(result: Any) -> Game:
    assert not isinstance(result, Rejected), result
    state: Game = result.state
    return state


def start_game(players: int, seed: int | str, options: dict[str, Any] | None = None) -> Game:
    opts = {"auto_advance": True, **(options or {})}
    game = new_game("resistance", f"sim{seed}", "host", seed, lang="en", options=opts)
    for i in range(players):
        game = _ok(apply(game, A.Join(f"p{i}", None, f"P{i}"), EPOCH))
    return _ok(apply(game, A.Start("host"), EPOCH))


def play_game(
    game: Game,
    policy: Policy,
    rng: random.Random,
    on_action: Callable[[A.Action, float], None] | None = None,
    limit: int | None = None,
) -> Game:
    """Play `game` to its end (or for `limit` inputs): each player in seat order
    acts on their legal actions; when nobody acts, the phase's deadline fires."""
    now = EPOCH
    done = 0
    while not game.over and (limit is None or done < limit):
        done += 1
        progressed = False
        for p in game.players:
            for spec in legal(game, p):
                if spec.kind in _LOBBY:
                    continue
                action = policy(game, p, spec, rng)
                if action is None:
                    continue
                now += 0.5
                result = apply(game, action, now)
                if not isinstance(result, Rejected):
                    game = result.state
                    progressed = True
                    if on_action is not None:
                        on_action(action, now)
                break
        if not progressed and not game.over:
            now = max(now, game.phase.deadline or now)
            deadline = A.Deadline(None, game.phase.seq)
            game = _ok(apply(game, deadline, now))
            if on_action is not None:
                on_action(deadline, now)
    return game


def spy_win_rates(
    counts: Iterable[int],
    games: int,
    seed: int = 0,
    options: dict[str, Any] | None = None,
    policy: Policy = simple_action,
    progress: Callable[[int], None] | None = None,
) -> dict[int, float]:
    """The spies' share of wins with `policy` bots, per player count (game g of
    every count is seeded `seed + g`). `progress` hears each finished game."""
    out: dict[int, float] = {}
    for n in counts:
        wins = 0
        for g in range(games):
            s = seed + g
            end = play_game(start_game(n, s, options), policy, random.Random(s))
            wins += end.winner == SPIES
            if progress is not None:
                progress(1)
        out[n] = wins / games
    return out


__all__ = [
    "POLICIES",
    "play_game",
    "random_action",
    "reasoning_action",
    "simple_action",
    "spy_win_rates",
    "start_game",
]
