"""Game scripts: run a script through the core and print the public record.

The contract is ../shared/spec/game-scripts.md. Replay uses a fixed clock
(each step one second later; `advance` jumps to the phase's deadline), forces
automatic advancing off and renders refusals in English, so the same script
always gives byte-identical output.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from gameflow.core import actions as A
from gameflow.core.engine import apply, new_game
from gameflow.core.result import Rejected
from gameflow.core.rules import rules_for
from gameflow.core.state import Game, seed_digest
from gameflow.i18n import render

HOST = "host"
EPOCH = 1_700_000_000.0  # the replay clock's start: any fixed instant will do

_HOST_STEPS: dict[str, type[A.Action]] = {
    "pause": A.Pause,
    "resume": A.Resume,
    "advance_early": A.Advance,
    "end": A.End,
}


class ScriptError(ValueError):
    """The script itself is malformed (not a refused step)."""


def parse_step(game: Game, step: Mapping[str, Any]) -> A.Action:
    """The action a script step stands for; ValueError if it is malformed."""
    if not isinstance(step, Mapping):
        raise ValueError("a step is an object")
    do = step.get("do")
    by = step.get("as")
    phase = step.get("phase")
    if do == "advance":
        return A.Deadline(None, game.phase.seq if phase is None else phase)
    if do in _HOST_STEPS:
        return _HOST_STEPS[do](by, phase)
    action = rules_for(game.kind).parse_step(step)
    if action is None:
        raise ValueError(f"unknown step {do!r}")
    return action


def step_of(game: Game, action: A.Action) -> dict[str, Any]:
    """The script step for `action` (inverse of parse_step), for exports and logs."""
    if isinstance(action, A.Deadline):
        return {"do": "advance", "phase": action.phase}
    for name, cls in _HOST_STEPS.items():
        if type(action) is cls:
            return {"as": action.by, "do": name}
    step = rules_for(game.kind).step_of(action)
    if step is None:
        raise ValueError(f"no step for {action!r}")
    return step


def setup_game(script: Mapping[str, Any], *, auto_advance: bool = False) -> tuple[Game, float]:
    """The started game a script describes, and the replay clock after starting it."""
    kind = script.get("game")
    players = script.get("players")
    if not isinstance(kind, str) or not isinstance(players, list) or not players:
        raise ScriptError("a script needs a game and a list of players")
    options = dict(script.get("options") or {})
    options["auto_advance"] = auto_advance
    try:
        game = new_game(
            kind,
            str(script.get("id", "replay")),
            HOST,
            script.get("seed", 0),
            lang=str(script.get("lang", "en")),
            options=options,
            setup=script.get("setup") or {},
        )
    except (KeyError, ValueError) as exc:
        raise ScriptError(str(exc)) from exc
    now = EPOCH
    for p in players:
        result = apply(game, A.Join(str(p), None, str(p)), now)
        if isinstance(result, Rejected):
            raise ScriptError(f"player {p!r}: {render(result.message, 'en')}")
        game = result.state
    result = apply(game, A.Start(HOST), now)
    if isinstance(result, Rejected):
        raise ScriptError(render(result.message, "en"))
    return result.state, now


def run(script: Mapping[str, Any]) -> tuple[Game, list[dict[str, Any]]]:
    """Play a script; returns the final game and the refused steps."""
    game, now = setup_game(script)
    rejected: list[dict[str, Any]] = []
    steps: Iterable[Any] = script.get("steps") or []
    for i, step in enumerate(steps):
        now += 1.0
        try:
            action = parse_step(game, step)
        except ValueError as exc:
            rejected.append({"step": i, "error": str(exc), "code": "malformed"})
            continue
        if isinstance(action, A.Deadline) and game.phase.deadline is not None:
            now = max(now, game.phase.deadline)
        at = step.get("at")
        if isinstance(at, int | float) and not isinstance(at, bool):
            now = float(at)
        result = apply(game, action, now)
        if isinstance(result, Rejected):
            rejected.append({"step": i, "error": render(result.message, "en"), "code": result.code})
        else:
            game = result.state
    return game, rejected


def record(game: Game, rejected: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"game": game.kind, "over": game.over, "winner": game.winner}
    out.update(rules_for(game.kind).record(game))
    out["rejected"] = rejected
    out["version"] = game.version
    out["seed_sha256"] = seed_digest(game.seed)
    return out


def replay_text(text: str) -> str:
    """The replay's JSON output for a script given as JSON text."""
    try:
        script = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScriptError(f"not JSON: {exc}") from exc
    if not isinstance(script, dict):
        raise ScriptError("a script is a JSON object")
    game, rejected = run(script)
    return json.dumps(record(game, rejected), ensure_ascii=False, indent=1) + "\n"
