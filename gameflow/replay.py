"""Game scripts: run a script through the core and print the public record.

The contract is the public game-script spec (docs/game-scripts.md). Replay uses a fixed clock
(each step one second later; `advance` jumps to the phase's deadline), forces
automatic advancing off and renders refusals in English, so the same script
always gives byte-identical output.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Final

from gameflow.core import actions as A
from gameflow.core.engine import apply, end_when_ready, new_game
from gameflow.core.result import Accepted, Rejected, reject
from gameflow.core.rules import rules_for
from gameflow.core.state import Game, seed_digest
from gameflow.core.text import N_
from gameflow.i18n import render

HOST: Final = "host"
EPOCH: Final = 1_700_000_000.0  # the replay clock's start: any fixed instant will do

_HOST_STEPS: dict[str, type[A.Action]] = {
    "pause": A.Pause,
    "resume": A.Resume,
    "advance_early": A.Advance,
    "end": A.End,
}


# Lobby and settings steps, so that a game's log (lobby included) is a list of
# script steps too: {"as": P, "do": "join", "name": N}, {"as": P, "do": "leave"},
# {"as": host, "do": "kick", "target": P}, {"as": host, "do": "set_option",
# "name": K, "value": V}, {"as": host, "do": "set_language", "lang": L},
# {"as": host, "do": "start"}.
_LOBBY_FIELDS: dict[str, tuple[type[A.Action], str | None, str | None]] = {
    "join": (A.Join, "name", "name"),
    "leave": (A.Leave, None, None),
    "kick": (A.Kick, "target", "target"),
    "gone": (A.Gone, "target", "target"),  # host controls with one field, as kick
    "not_gone": (A.NotGone, "target", "target"),
    "set_option": (A.SetOption, "name", "name"),
    "set_language": (A.SetLanguage, "lang", "lang"),
    "start": (A.Start, None, None),
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
    if do == A.MoveWindow.kind:
        window, clock = step.get("window"), step.get("clock")
        if not isinstance(window, str) or not isinstance(clock, str):
            raise ValueError('a move_window step needs "window" and "clock"')
        return A.MoveWindow(by, phase, window, clock)
    if do == A.Away.kind:
        until = step.get("until")
        if not isinstance(by, str) or not (
            until is None or (isinstance(until, str | float | int) and not isinstance(until, bool))
        ):
            raise ValueError('an away step needs "as" and an "until" date, instant or null')
        return A.Away(by, phase, float(until) if isinstance(until, int) else until)
    if do in _LOBBY_FIELDS:
        return _lobby_action(str(do), step)
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
    if isinstance(action, A.MoveWindow):
        return {"as": action.by, "do": action.kind, "window": action.window, "clock": action.clock}
    if isinstance(action, A.Away):
        return {"as": action.by, "do": action.kind, "until": action.until}
    for name, (cls, key, attr) in _LOBBY_FIELDS.items():
        if type(action) is cls:
            lobby: dict[str, Any] = {"as": action.by, "do": name}
            if key is not None and attr is not None:
                lobby[key] = getattr(action, attr)
            if isinstance(action, A.SetOption):
                lobby["value"] = action.value
            if isinstance(action, A.Start) and action.zone:
                lobby["zone"] = [list(pair) for pair in action.zone]
            return lobby
    step = rules_for(game.kind).step_of(action)
    if step is None:
        raise ValueError(f"no step for {action!r}")
    return step


def _lobby_action(do: str, step: Mapping[str, Any]) -> A.Action:
    cls, key, _attr = _LOBBY_FIELDS[do]
    by = step.get("as")
    if not isinstance(by, str):
        raise ValueError(f'a {do} step needs "as"')
    if cls is A.SetOption:
        name = step.get("name")
        if not isinstance(name, str):
            raise ValueError("set_option needs a name")
        return A.SetOption(by, step.get("phase"), name, step.get("value"))
    if cls is A.Start:
        return A.Start(by, step.get("phase"), zone_of(step.get("zone", ())))
    if key is None:
        return cls(by, step.get("phase"))
    value = step.get(key)
    if not isinstance(value, str):
        raise ValueError(f"a {do} step needs {key!r}")
    return cls(by, step.get("phase"), value)  # type: ignore[call-arg]


def zone_of(value: Any) -> tuple[tuple[float, float], ...]:
    """A start step's (or script's) `"zone"`: [[from_instant, utc_offset], ...]
    in time order (see gameflow.core.clock); ValueError if malformed."""
    if not isinstance(value, list | tuple):
        raise ValueError("zone is a list of [instant, offset] pairs")
    pairs: list[tuple[float, float]] = []
    for pair in value:
        if (
            not isinstance(pair, list | tuple)
            or len(pair) != 2
            or not all(isinstance(x, int | float) and not isinstance(x, bool) for x in pair)
        ):
            raise ValueError("zone is a list of [instant, offset] pairs")
        pairs.append((float(pair[0]), float(pair[1])))
    if pairs != sorted(pairs):
        raise ValueError("zone entries must be in time order")
    return tuple(pairs)


def advance_when_ready(game: Game, now: float) -> Accepted[Game] | Rejected:
    """An `{"do": "advance", "auto": true}` step (written by exports of live
    games): the phase ended by itself when the previous input made everyone
    ready, as it does with automatic advancing on. It was part of that input, so
    unlike a deadline it has no version of its own and no due time."""
    if not game.running:
        return reject("not_started", N_("The game has not started yet."))
    if game.phase.paused:
        return reject("paused", N_("The game is paused."))
    return end_when_ready(game, now)  # as the engine's automatic advancing asks


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
    # Optional, written by exports: the start time, the players' names (and,
    # below, the version counter after the start, lobby inputs included).
    start_at = script.get("at", EPOCH)
    now = float(start_at) if isinstance(start_at, int | float) else EPOCH
    names = script.get("names")
    if not isinstance(names, dict):
        names = {}
    for p in players:
        result = apply(game, A.Join(str(p), None, str(names.get(p, p))), now)
        if isinstance(result, Rejected):
            raise ScriptError(f"player {p!r}: {render(result.message, 'en')}")
        game = result.state
    try:
        zone = zone_of(script.get("zone", ()))  # exports: the game's time zone table
    except ValueError as exc:
        raise ScriptError(str(exc)) from exc
    result = apply(game, A.Start(HOST, None, zone), now)
    if isinstance(result, Rejected):
        raise ScriptError(render(result.message, "en"))
    version = script.get("version")  # exports: the live game's version after its start
    if isinstance(version, int) and not isinstance(version, bool):
        return result.state._replace(version=version), now
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
        if step.get("auto") is True and isinstance(action, A.Deadline):
            result = advance_when_ready(game, now)
        else:
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
