"""Werewolf (Varulv, Vukodlaci): villagers, werewolves, a seer and a doctor.

docs/rules/werewolf.md is the project's rules page with every [decision]
this package takes (issue #34).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from gameflow.core import gamemaster
from gameflow.core.actions import Action
from gameflow.core.definition import GameDefinition, Simulator, TvScreen, lazy
from gameflow.core.delegating import Delegating
from gameflow.core.options import Limit
from gameflow.core.result import Accepted, Rejected
from gameflow.core.state import Game
from gameflow.games.werewolf import ending, flow, inputs, pacing, talk, tv, views
from gameflow.games.werewolf.actions import ACTIONS, Inspect, Kill, Lynch, Protect
from gameflow.games.werewolf.state import NIGHT
from gameflow.games.werewolf.words import OPTION_HELP, WORDS


class StepError(ValueError):
    """A script step that is not a well-formed Werewolf action."""


_BY_KIND: Final = {cls.kind: cls for cls in ACTIONS}
# The moderator plays no role by default: the console shows every secret
# (gameflow/core/gamemaster.py).
OPTION_LIMITS: Final[dict[str, Limit]] = {**pacing.LIMITS, gamemaster.OPTION: gamemaster.LIMIT}


class WerewolfRules(Delegating):
    # legal, ask, the views and record: inputs.py and views.py (Delegating)
    kind = "werewolf"
    min_players = 6
    max_players = pacing.MAX_PLAYERS
    host_kinds: tuple[str, ...] = ()
    windows: tuple[tuple[str, str, str], ...] = pacing.WINDOWS
    secret_inputs = True  # the night's inputs (how many came) are a secret
    option_limits: Final[dict[str, Limit]] = OPTION_LIMITS

    def default_options(self) -> dict[str, Any]:
        return {**pacing.DEFAULTS, **gamemaster.option(gamemaster.WATCHES)}

    def start(self, game: Game, now: float) -> Accepted[Game] | Rejected:
        return flow.start(game, now)

    def act(self, game: Game, action: Action, now: float) -> Accepted[Game] | Rejected:
        return inputs.act(game, action)

    def end_phase(self, game: Game, now: float) -> Accepted[Game]:
        return flow.end_phase(game, now)

    def awaiting(self, game: Game) -> tuple[int, ...]:
        return inputs.awaiting(game)

    def ready(self, game: Game) -> bool:
        """Never at night (the Traitors' precedent: its length would tell
        who is awake); a vote once every living player voted."""
        return game.phase.name != NIGHT and not inputs.awaiting(game)

    def expected(self, game: Game) -> tuple[int, ...]:
        return inputs.expected(game)

    def secret_awaiting(self, game: Game) -> bool:
        return game.phase.name == NIGHT

    def parse_step(self, step: Mapping[str, Any]) -> Action | None:
        cls = _BY_KIND.get(str(step.get("do")))
        if cls is None:
            return None
        target = step.get("target")
        if target is not None and not isinstance(target, str):
            raise StepError("a target is a player id or null")
        if target is None and cls in (Inspect, Protect):
            raise StepError("inspect and protect need a target")
        made: Action = cls(step.get("as"), step.get("phase"), target)  # type: ignore[call-arg]
        return made

    def step_of(self, action: Action) -> dict[str, Any] | None:
        if isinstance(action, (Kill, Inspect, Protect, Lynch)):
            return {"as": action.by, "do": action.kind, "target": action.target}
        return None


WEREWOLF: Final = WerewolfRules(inputs, views)

__all__ = ["GAME", "WEREWOLF", "StepError", "WerewolfRules"]

GAME: Final = GameDefinition(
    rules=WEREWOLF,
    words=WORDS,
    option_help={**OPTION_HELP, **gamemaster.HELP},
    team=talk.team,
    silenced=talk.silenced,
    gm_view=views.gm_view,
    reveal=ending.reveal,
    story=ending.story,
    simulator=Simulator("6-18", lazy("gameflow.games.werewolf.balance:simulate")),
    lopsided=lazy("gameflow.games.werewolf.balance:lopsided"),
    tv=TvScreen("gameflow.games.werewolf:tv.html", tv.build),
)
