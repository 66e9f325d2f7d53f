"""What a Traitors player can make of the public record: suspicion per player.

Read from a player's view (`engine.view(game, player)`) only. The known roles
are the banished players' revealed roles and the murdered (the traitors never
murder one of their own, so a murdered player was loyal). Then every vote read
out at a round table weighs on its voter:
- a vote for a player later shown loyal counts against the voter, a vote for a
  shown traitor for them (the traitors steer votes onto the loyal);
- voting with a shown traitor (the same target in the same vote) counts against
  the voter, being voted for by a shown traitor for the target.

`Suspicion.chance` turns the scores into a chance of being a traitor for each
unknown active player, spreading the traitors a player can expect to remain
(the digest's usual count for the table size, less the traitors shown, plus a
little for each murder-free night after a traitor fell: maybe a recruit; the
loyal are never told the count) over them by their scores.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Final, NamedTuple

from gameflow.games.traitors.options import traitor_count
from gameflow.games.traitors.state import ACTIVE, LOYAL, MURDERED, TRAITOR

FOR_LOYAL: Final = 1.0  # voted for a player shown loyal
FOR_TRAITOR: Final = -1.5  # voted for a shown traitor
WITH_TRAITOR: Final = 0.6  # voted as a shown traitor did
BY_TRAITOR: Final = -0.6  # was voted for by a shown traitor
RECRUIT: Final = 0.25  # expected recruits per murder-free night after a traitor fell
SHARPNESS: Final = 0.9  # how strongly a score point moves the chance


class Suspicion(NamedTuple):
    score: dict[str, float]  # active players of unknown role
    known: dict[str, str]  # player -> role, as the public record shows
    expected: float  # traitors a loyal can expect to remain

    def chance(self, exclude: frozenset[str] = frozenset()) -> dict[str, float]:
        """Each unknown active player's chance of being a traitor (`exclude`:
        players the viewer knows are loyal, such as themselves)."""
        pool = {p: s for p, s in self.score.items() if p not in exclude}
        if not pool:
            return {}
        top = max(pool.values())
        w = {p: math.exp(SHARPNESS * (s - top)) for p, s in pool.items()}
        total = sum(w.values())
        return {p: min(0.97, self.expected * x / total) for p, x in w.items()}

    def none_left(self, exclude: frozenset[str] = frozenset()) -> float:
        """The chance that no traitor remains among the active (but `exclude`)."""
        out = 1.0
        for p in self.chance(exclude).values():
            out *= 1.0 - p
        return out


def _rounds(t: Mapping[str, Any]) -> list[list[Mapping[str, Any]]]:
    out: list[list[Mapping[str, Any]]] = [list(v) for d in t["history"] for v in d["votes"]]
    out.extend(list(v) for v in t["votes"])
    return out


def suspicion(view: Mapping[str, Any]) -> Suspicion:
    t = view["traitors"]
    known: dict[str, str] = {}
    active: list[str] = []
    for seat in t["table"]:
        if "role" in seat:
            known[seat["id"]] = seat["role"]
        elif seat["status"] == MURDERED:
            known[seat["id"]] = LOYAL
        if seat["status"] == ACTIVE:
            active.append(seat["id"])
    score = {p: 0.0 for p in active if p not in known}
    for votes in _rounds(t):
        traitor_targets = {r["for"] for r in votes if known.get(r["voter"]) == TRAITOR}
        for r in votes:
            voter, target = r["voter"], r["for"]
            if voter not in score:
                continue
            role = known.get(target)
            if role == LOYAL:
                score[voter] += FOR_LOYAL
            elif role == TRAITOR:
                score[voter] += FOR_TRAITOR
            if target in traitor_targets:
                score[voter] += WITH_TRAITOR
        for target in traitor_targets:
            if target in score:
                score[target] += BY_TRAITOR
    shown = sum(1 for r in known.values() if r == TRAITOR)
    fell = False
    recruits = 0.0
    for day in t["history"]:
        if fell and day["murdered"] is None:
            recruits += RECRUIT
        fell = fell or any(r == TRAITOR for r in day["revealed"].values())
    usual = traitor_count(len(t["table"]))
    expected = max(0.2, usual - shown) + recruits  # the host may have dealt more
    return Suspicion(score, known, expected)


__all__ = ["Suspicion", "suspicion"]
