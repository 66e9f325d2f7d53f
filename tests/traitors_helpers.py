"""Helpers for the Traitors tests: short scripts played through
`gameflow.replay.run` (the same path as `python -m gameflow replay`) with a fixed
deal: ana and bo are the traitors among six players unless a test says otherwise.
`adv` ends the current phase as its deadline would; `to_table` runs the mission
and the shield room, `to_night` the first day up to its night."""

from __future__ import annotations

from typing import Any

from gameflow.core.state import Game
from gameflow.games.traitors.state import Traitors
from gameflow.replay import record, run

P6 = ["ana", "bo", "cy", "dag", "eli", "fia"]
ROLES = {"ana": "traitor", "bo": "traitor"}
adv: dict[str, Any] = {"do": "advance"}
to_table = [adv, adv]


def script(
    steps: list[dict[str, Any]],
    *,
    players: list[str] | None = None,
    roles: dict[str, str] | None = None,
    days: dict[str, Any] | None = None,
    **options: Any,
) -> dict[str, Any]:
    opts = {"pacing": "fast", "missions": "host", "dagger": True, "recruit": True, "final_day": 12}
    opts.update(options)
    return {
        "game": "traitors",
        "players": players or P6,
        "seed": 5,
        "options": opts,
        "setup": {"roles": ROLES if roles is None else roles, "days": days or {}},
        "steps": steps,
    }


def play(steps: list[dict[str, Any]], **kw: Any) -> tuple[Game, dict[str, Any]]:
    game, rejected = run(script(steps, **kw))
    return game, record(game, rejected)


def votes(table: dict[str, str], **extra: Any) -> list[dict[str, Any]]:
    out = []
    for p, q in table.items():
        step: dict[str, Any] = {"as": p, "do": "vote", "for": q}
        step.update(extra.get(p, {}))
        out.append(step)
    return out


def both(do: str, target: str) -> list[dict[str, Any]]:
    """Both traitors of the usual deal (ana and bo) `do` on `target`."""
    return [{"as": t, "do": do, "target": target} for t in ("ana", "bo")]


def codes(rec: dict[str, Any]) -> list[str]:
    return [r["code"] for r in rec["rejected"]]


def st(game: Game) -> Traitors:
    rules: Traitors = game.rules
    return rules


BANISH_DAG = votes({"ana": "dag", "bo": "dag", "cy": "dag", "eli": "dag"})
# from the start to the first night: dag banished at the round table
to_night = [*to_table, *BANISH_DAG, adv]
BANISH_BO = votes({"ana": "cy", "cy": "bo", "dag": "bo", "eli": "bo", "fia": "bo"})
# two days on which ana murders and the loyal are voted out until none is left
LOYALS_GONE: list[dict[str, Any]] = [
    *to_table,
    *votes({"ana": "dag", "bo": "dag", "cy": "dag"}),
    adv,
    {"as": "ana", "do": "murder", "target": "fia"},
    adv,
    *to_table,
    *votes({"ana": "cy", "bo": "cy", "eli": "cy"}),
    adv,
    {"as": "ana", "do": "murder", "target": "eli"},
    adv,
]
# the final round from its start: dag banished, and cy votes to go on
FINAL_GOES_ON: list[dict[str, Any]] = [
    {"as": "host", "do": "final"},
    *to_table,
    *BANISH_DAG,
    adv,
    {"as": "cy", "do": "end_vote", "end": False},
    adv,
]
