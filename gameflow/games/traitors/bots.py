"""Traitors bots for simulations: whole games through the core.

Two policies. `reasoning_action` (the balance tables' bots) builds its player's
view (`engine.view(game, player)`) and hands only that to `reason.decide`,
which weighs suspicion from the votes and the reveals (`suspect.py`). `choose`
is the simple, seeded baseline (its docstring lists how it plays).

`play_game` runs a game to its end, ending a phase by its deadline when nobody
has anything left to do; `traitor_win_rates` plays many games per table size:
the figures behind `muldvarp simulate traitors`. Every action goes through
`engine.apply`, and an action the engine refuses is counted (it must stay 0).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from typing import Any, Final, NamedTuple

from gameflow.core import actions as A
from gameflow.core.engine import apply, legal, new_game, view
from gameflow.core.legal import ActionSpec, Value
from gameflow.core.result import Accepted, Rejected
from gameflow.core.rng import rng_for
from gameflow.core.state import Game
from gameflow.games.traitors.actions import EndVote, Force, Murder, Reply, Tempt, Vote
from gameflow.games.traitors.reason import decide, plain
from gameflow.games.traitors.state import TRAITOR, TRAITORS, Traitors

Policy = Callable[[Game, str, ActionSpec, random.Random], A.Action | None]

EPOCH: Final = 1_700_000_000.0
HOST: Final = "host"
MAX_STEPS: Final = 20_000  # a game is a few hundred inputs; this only stops a runaway loop


class Outcome(NamedTuple):
    winner: str | None
    day: int
    pot: int
    share: int
    refused: int
    final_day: int = 0


def _shared(game: Game, label: str, pool: tuple[Value, ...]) -> Value:
    """A choice every bot of a side makes alike, whatever its own options: the
    first of `pool` in an order of all players drawn from the seed and the day."""
    order = rng_for(game.seed, f"bots/{label}/{game.phase.round}").sample(
        sorted(game.players), len(game.players)
    )
    return min(pool, key=lambda v: order.index(str(v)) if str(v) in order else len(order))


def suspicion(game: Game) -> dict[str, int]:
    """Public evidence per player: +1 for every vote against a player who was
    then revealed loyal, -1 for every vote against a revealed traitor."""
    st: Traitors = game.rules
    score: dict[str, int] = {}
    for record in st.history:
        revealed = dict(record.revealed)
        for readings in record.votes:
            for r in readings:
                role = revealed.get(r.target)
                if role is not None:
                    voter = game.players[r.voter]
                    score[voter] = score.get(voter, 0) + (-1 if role == TRAITOR else 1)
    return score


def choose(game: Game, player: str, spec: ActionSpec, rng: random.Random) -> A.Action | None:
    """This bot's action for one of its legal specs (None: it lets this one pass).

    Each bot knows what its player would: its own role and, as a traitor, who the
    other traitors are (the deal tells them; a recruit is told too). The policy is
    plain and seeded:
    - missions (built-in, played by chat): any legal reply; a traitor in the relay
      drops the message half the time;
    - round table: a loyal votes for the candidate the public record makes most
      suspect (who keeps voting out players revealed as loyal; a vote against a
      revealed traitor clears a little); among equals the table's talk settles on one
      (a draw all bots share, so the table votes as one); the traitors blend in and
      vote with the table unless it settles on one of them, then they agree on one
      loyal instead, and lay the dagger when they hold it; a tied player pleads;
    - night: the traitors murder a random loyal (the same one: the first legal target
      in their shared order); when recruiting is allowed they tempt instead a quarter
      of the time; a lone traitor who must force does; a tempted player accepts a
      quarter of the time;
    - the final round table: traitors vote to end, loyals to continue while more than
      three players are left."""
    st: Traitors = game.rules
    seat = game.seat(player)
    traitor = seat >= 0 and st.role[seat] == TRAITOR
    mates = {game.players[s] for s in range(len(game.players)) if st.role[s] == TRAITOR}
    answer = plain(player, spec, rng)
    if answer is not None:
        return answer
    if spec.kind == Reply.kind:  # the relay: the recipient drawn before the drop
        to = rng.choice(spec.options("to"))
        drop = traitor and True in spec.options("drop") and rng.random() < 0.5
        return Reply(player, spec.phase, to=str(to), drop=drop)
    if spec.kind == Vote.kind:
        candidates = spec.options("for")
        doubt = suspicion(game)
        top = max(doubt.get(str(c), 0) for c in candidates)
        talk = _shared(game, "talk", tuple(c for c in candidates if doubt.get(str(c), 0) == top))
        loyal = tuple(c for c in candidates if c not in mates)
        if traitor and (talk in mates or talk == player) and loyal:
            target = _shared(game, "vote", loyal)  # steer away from a fellow traitor
        else:
            target = talk  # the table's talk settles on one of the top suspects
        dagger = traitor and True in spec.options("dagger")
        return Vote(player, spec.phase, str(target), dagger)
    if spec.kind == Tempt.kind:
        if rng.random() < 0.25:
            return Tempt(player, spec.phase, str(_shared(game, "tempt", spec.options("target"))))
        return None
    if spec.kind == Murder.kind:
        targets = tuple(t for t in spec.options("target") if t not in mates)
        return Murder(
            player, spec.phase, str(_shared(game, "murder", targets or spec.options("target")))
        )
    if spec.kind == Force.kind:
        return Force(player, spec.phase, str(_shared(game, "force", spec.options("target"))))
    if spec.kind == EndVote.kind:
        return EndVote(player, spec.phase, traitor or len(st.seats()) <= 3)
    return None  # the death list, host actions: not used by these bots


def reasoning_action(
    game: Game, player: str, spec: ActionSpec, rng: random.Random
) -> A.Action | None:
    """The reasoning bot: it sees `player`'s view only."""
    return decide(view(game, player), player, spec, rng)


POLICIES: Final[dict[str, Policy]] = {"reasoning": reasoning_action, "simple": choose}


def _ok(result: Accepted[Game] | Rejected) -> Game:
    if isinstance(result, Rejected):
        raise AssertionError(f"the engine refused a setup step: {result.code}")
    return result.state


def start_game(players: int, seed: int | str, options: dict[str, Any] | None = None) -> Game:
    opts = {"pacing": "fast", "missions": "builtin", "auto_advance": True, **(options or {})}
    game = new_game("traitors", f"sim{seed}", HOST, seed, lang="en", options=opts)
    for i in range(players):
        game = _ok(apply(game, A.Join(f"p{i:02}", None, f"P{i}"), EPOCH))
    return _ok(apply(game, A.Start(HOST), EPOCH))


def play_game(game: Game, rng: random.Random, policy: Policy = choose) -> tuple[Game, int]:
    """Play `game` to its end; returns the final state and the refused actions."""
    now, refused = EPOCH, 0
    for _ in range(MAX_STEPS):
        if game.over:
            break
        acted = False
        for p in game.players:
            for spec in legal(game, p):
                action = policy(game, p, spec, rng)
                if action is None:
                    continue
                now += 1.0
                result = apply(game, action, now)
                if isinstance(result, Rejected):
                    refused += 1
                    continue
                game, acted = result.state, True
                break
        if not acted and not game.over:
            now = max(now, game.phase.deadline or now)
            game = _ok(apply(game, A.Deadline(None, game.phase.seq), now))
    return game, refused


def outcome(game: Game, refused: int) -> Outcome:
    st: Traitors = game.rules
    view_share = st.pot // max(1, len(st.seats())) if game.winner else 0
    return Outcome(game.winner, game.phase.round, st.pot, view_share, refused, st.final_day)


def traitor_win_rates(
    counts: Iterable[int],
    games: int,
    seed: str,
    options: dict[str, Any] | None = None,
    bots: str = "simple",
    progress: Callable[[int], None] | None = None,
) -> dict[int, list[Outcome]]:
    """Every game's outcome with `bots` ("reasoning" or "simple") at every seat,
    per table size; game i of n players is seeded "{seed}/{n}/{i}"."""
    policy = POLICIES[bots]
    out: dict[int, list[Outcome]] = {}
    for n in counts:
        rows = []
        for i in range(games):
            s = f"{seed}/{n}/{i}"
            end, refused = play_game(start_game(n, s, options), random.Random(s), policy)
            rows.append(outcome(end, refused))
            if progress is not None:
                progress(1)
        out[n] = rows
    return out


__all__ = [
    "POLICIES",
    "TRAITORS",
    "Outcome",
    "choose",
    "play_game",
    "reasoning_action",
    "start_game",
    "traitor_win_rates",
]
