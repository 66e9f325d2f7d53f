"""Traitors bots that reason, deciding from their own player's view only.

`decide(view, player, spec, rng)` answers one legal spec from
`engine.view(game, player)`: the public table and record, the player's role, and
for a traitor the other traitors. The suspicion it weighs is `suspect.py`'s.

- The loyal vote for the player they suspect most (the public suspicion plus a
  private hunch: people at a table do not all read it alike), lay the dagger
  on that player, and at the final round table vote to end only once they
  judge it likelier than not that no traitor remains.
- The traitors see the table through the loyal's eyes (the same public
  suspicion). At the round table they all vote for the loyal the table
  suspects most, so they blend into the table's leaning; when the table leans
  on one of them so clearly that the vote is lost anyway, the others vote
  with the table too rather than be seen defending a traitor. At night they
  murder the loyal the table trusts most (the suspected loyal are worth more
  alive, as the next banishments), tempt that player instead half of the times
  they may, and force the most trusted loyal when they must. At the final round
  table they vote to end.
- Missions: any legal reply, a traitor in the relay drops the message half the
  time; a tempted loyal accepts a quarter of the time.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, Final, NamedTuple

from gameflow.core import actions as A
from gameflow.core.legal import ActionSpec
from gameflow.games.traitors.actions import (
    NIGHT_KINDS,
    Answer,
    EndVote,
    Force,
    Murder,
    Plea,
    Reply,
    Tempt,
    Vote,
)
from gameflow.games.traitors.state import TRAITOR
from gameflow.games.traitors.suspect import Suspicion, suspicion


class Style(NamedTuple):
    hunch: float = 0.3  # the spread of a loyal's private reading of the table
    end_at: float = 0.5  # a loyal votes to end once no traitor remaining is this likely
    lost: float = 0.0  # a mate this far ahead of every loyal on suspicion is lost
    tempt: float = 0.5  # the traitors tempt (rather than murder) when they may
    accept: float = 0.25  # a tempted loyal accepts
    drop: float = 0.5  # a traitor in the relay drops the message


STYLE: Final = Style()


def _order(view: Mapping[str, Any], label: str) -> dict[str, int]:
    """An order of all players that every bot of a side draws alike (their talk
    settles ties): seeded by the game's public seed digest, the day and `label`."""
    ids = sorted(p["id"] for p in view["players"])
    rng = random.Random(f"{view['seed_sha256']}/{label}/{view['round']}")
    return {p: i for i, p in enumerate(rng.sample(ids, len(ids)))}


def _pick(
    view: Mapping[str, Any], label: str, pool: Sequence[str], key: Mapping[str, float]
) -> str:
    """The highest of `pool` by `key`, ties settled by the shared order."""
    order = _order(view, label)
    return max(pool, key=lambda p: (key.get(p, 0.0), -order.get(p, 0)))


def plain(
    player: str, spec: ActionSpec, rng: random.Random, style: Style = STYLE
) -> A.Action | None:
    """The inputs every Traitors bot answers alike, the simple ones too, as
    they need no reading of the table: any legal chest, a plea of loyalty, a
    tempted player's yes at `style.accept` (None: not one of these)."""
    if spec.kind == Reply.kind and spec.field("chest") is not None:
        return Reply(player, spec.phase, chest=int(rng.choice(spec.options("chest")) or 0))
    if spec.kind == Plea.kind:
        return Plea(player, spec.phase, "I am loyal.")
    if spec.kind == Answer.kind:
        return Answer(player, spec.phase, rng.random() < style.accept)
    return None


def decide(
    view: Mapping[str, Any],
    player: str,
    spec: ActionSpec,
    rng: random.Random,
    style: Style = STYLE,
) -> A.Action | None:
    """This player's answer to `spec` (None: let it pass)."""
    you = view["you"]
    traitor = you["role"] == TRAITOR
    mates = frozenset(you.get("traitors", ()))
    kind = spec.kind
    answer = plain(player, spec, rng, style)
    if answer is not None:
        return answer
    if kind == Reply.kind:  # the relay
        to = spec.options("to")
        if not to:
            return None  # nobody left to pass the message to
        drop = traitor and True in spec.options("drop") and rng.random() < style.drop
        return Reply(player, spec.phase, to=str(rng.choice(to)), drop=drop)
    s = suspicion(view)
    if kind == Vote.kind:
        pool = [str(c) for c in spec.options("for")]
        target = _vote(view, s, pool, player, traitor, mates, rng, style)
        return Vote(player, spec.phase, target, True in spec.options("dagger"))
    if kind == EndVote.kind:
        if traitor:
            return EndVote(player, spec.phase, True)
        return EndVote(player, spec.phase, s.none_left(frozenset({player})) >= style.end_at)
    if kind in NIGHT_KINDS:
        return _night(view, s, spec, player, mates, rng, style)
    return None  # the death list, host actions: not used by these bots


def _vote(
    view: Mapping[str, Any],
    s: Suspicion,
    pool: list[str],
    player: str,
    traitor: bool,
    mates: frozenset[str],
    rng: random.Random,
    style: Style,
) -> str:
    """The table talks the vote through: everyone leans on the most suspected
    candidate (ties settled by the talk: a shared order), a loyal with a little
    hunch of their own. A traitor votes with the table, but if the table leans
    on themselves or a mate by less than `lost`, they all vote for the
    loyal the table suspects most instead."""
    candidates = [str(c) for c in view["traitors"].get("vote", {}).get("candidates", pool)]
    order = _order(view, "talk")
    key = {p: s.score.get(p, 0.0) - 1e-3 * order.get(p, 0) for p in candidates}
    if not traitor:
        read = {p: key.get(p, -5.0) + rng.gauss(0.0, style.hunch) for p in pool}
        return max(pool, key=lambda p: read[p])
    pick = max(candidates, key=lambda p: key[p]) if candidates else pool[0]
    loyal = [p for p in pool if p not in mates]
    if pick not in mates or not loyal:
        return pick if pick in pool else max(pool, key=lambda p: key.get(p, 0.0))
    best_loyal = max(loyal, key=lambda p: key.get(p, 0.0))
    if pick != player and key[pick] >= key.get(best_loyal, 0.0) + style.lost:
        return pick  # lost anyway: vote with the table rather than defend a mate
    return best_loyal


def _night(
    view: Mapping[str, Any],
    s: Suspicion,
    spec: ActionSpec,
    player: str,
    mates: frozenset[str],
    rng: random.Random,
    style: Style,
) -> A.Action | None:
    targets = [str(t) for t in spec.options("target") if t not in mates]
    if not targets:
        targets = [str(t) for t in spec.options("target")]
    trust = {p: -s.score.get(p, 0.0) for p in targets}
    target = _pick(view, f"traitors/{spec.kind}", targets, trust)
    offered = {x["kind"] for x in view["you"]["legal"]}
    tempting = random.Random(f"{view['seed_sha256']}/tempt/{view['round']}").random()
    if spec.kind == Tempt.kind:
        return Tempt(player, spec.phase, target) if tempting < style.tempt else None
    if spec.kind == Force.kind:
        return Force(player, spec.phase, _pick(view, "traitors/force", targets, trust))
    if Tempt.kind in offered and tempting < style.tempt:
        return None  # tonight they tempt instead
    forced = (view["you"].get("night_choice") or {}).get("target")
    if forced is None and Force.kind in offered:
        forced = _pick(view, "traitors/force", targets, trust)
    rest = [p for p in targets if p != forced] or targets
    return Murder(player, spec.phase, _pick(view, "traitors/murder", rest, trust))


__all__ = ["STYLE", "Style", "decide", "plain"]
