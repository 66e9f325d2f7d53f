"""Station: loyal crew against infiltrators, three plans a round.

docs/rules/station.md (from the public rules digest) is the
project's own rules page with every [decision] this module takes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from gameflow.core import gamemaster
from gameflow.core.actions import Action
from gameflow.core.definition import GameDefinition, Simulator, TvScreen, lazy
from gameflow.core.options import FLAG, Limit, one_of, seconds, span
from gameflow.core.phased import Phased, phased_limits, phased_options
from gameflow.core.result import Accepted, Rejected
from gameflow.core.state import Game
from gameflow.games.station import ending, flow, inputs, pacing, talk, tv, views
from gameflow.games.station.actions import Choose, Vote
from gameflow.games.station.state import REVEAL_ALL, REVEAL_PLAYED
from gameflow.games.station.tally import last_tally
from gameflow.games.station.words import OPTION_HELP, WORDS


class StepError(ValueError):
    """A script step that is not a well-formed Station action."""


# The most players a table may have: a module constant, since the compiled
# build (mypyc) cannot read a class attribute from inside the class body.
MAX_PLAYERS: Final = 15


class StationRules(Phased):
    # legal, ask, the views and record: inputs.py and views.py (Delegating);
    # start and end_phase: flow.py; expected: inputs.py (Phased)
    kind = "station"
    min_players = 5
    max_players = MAX_PLAYERS
    windows: tuple[tuple[str, str, str], ...] = (
        pacing.WINDOWS
    )  # the campaign's clock windows (gameflow.core.campaign)
    # What each option takes (gameflow.core.options): [decision] phases up to a
    # week, infiltrators 0 (by the table) up to fewer than half the most players.
    option_limits: Final[dict[str, Limit]] = phased_limits(
        {
            "mission_seconds": seconds(),
            "discussion_seconds": seconds(),
            "vote_seconds": seconds(),
            "open_votes": FLAG,
            "traps": FLAG,
            "infiltrators": span(0, (MAX_PLAYERS - 1) // 2),
            "reveal_guards": one_of(REVEAL_PLAYED, REVEAL_ALL),
            "sms_vote_names": FLAG,
        },
        pacing.WINDOWS,
    )

    def default_options(self) -> dict[str, Any]:
        phases = {"mission_seconds": 600.0, "discussion_seconds": 180.0, "vote_seconds": 120.0}
        own = {
            "open_votes": True,
            "traps": True,
            "infiltrators": 0,  # 0: by the table in the rules
            # After a mission: the guards needed of the played plan only, as
            # the seed says ("played"), or of all three plans ("all").
            "reveal_guards": "played",
            # By SMS a vote's tally gives the counts, and VOTES the names (an SMS
            # costs per segment); True texts the names every round (docs/sms.md).
            "sms_vote_names": False,
        }
        return phased_options(phases, own, pacing.OPTIONS)

    def act(self, game: Game, action: Action, now: float) -> Accepted[Game] | Rejected:
        seat = game.seat(action.by or "")
        if isinstance(action, Choose):
            return inputs.choose(game, action, seat)
        if isinstance(action, Vote):
            return inputs.vote(game, action, seat)
        raise TypeError(f"not a Station action: {action!r}")

    def awaiting(self, game: Game) -> tuple[int, ...]:
        return inputs.awaiting(game)

    def ready(self, game: Game) -> bool:
        return not inputs.awaiting(game)

    def parse_step(self, step: Mapping[str, Any]) -> Action | None:
        do = step.get("do")
        by = step.get("as")
        phase = step.get("phase")
        if do == Choose.kind:
            plan, job, partner = step.get("plan"), step.get("job"), step.get("partner")
            secret = step.get("secret")
            listed = secret if isinstance(secret, list) else [] if secret is None else [secret]
            if not all(isinstance(s, str) for s in listed):  # a list or an object: refused
                raise StepError("the secret action is sabotage or trap")
            secrets = set(listed)
            if not isinstance(plan, int) or isinstance(plan, bool) or not isinstance(job, str):
                raise StepError("a choice needs a plan number and a job")
            if partner is not None and not isinstance(partner, str):
                raise StepError("a partner is a player id")
            if not secrets <= {"sabotage", "trap"}:
                raise StepError("the secret action is sabotage or trap")
            return Choose(by, phase, plan, job, partner, "sabotage" in secrets, "trap" in secrets)
        if do == Vote.kind:
            target = step.get("for")
            if target is not None and not isinstance(target, str):
                raise StepError("a vote is for a player id or null")
            return Vote(by, phase, target)
        return None

    def step_of(self, action: Action) -> dict[str, Any] | None:
        if isinstance(action, Choose):
            step: dict[str, Any] = {
                "as": action.by,
                "do": "choose",
                "plan": action.plan,
                "job": action.job,
            }
            if action.partner is not None:
                step["partner"] = action.partner
            if action.sabotage and action.trap:
                step["secret"] = ["sabotage", "trap"]
            elif action.sabotage or action.trap:
                step["secret"] = "sabotage" if action.sabotage else "trap"
            return step
        if isinstance(action, Vote):
            return {"as": action.by, "do": "vote", "for": action.target}
        return None


STATION: Final = StationRules(inputs, views, flow)

__all__ = ["GAME", "STATION", "Choose", "StationRules", "StepError", "Vote"]


# The game as one definition: its rules, words, TV screen and the rest
# (gameflow/core/definition.py); gameflow.games registers it.
GAME: Final = GameDefinition(
    rules=STATION,
    words=WORDS,
    option_help={**OPTION_HELP, **gamemaster.HELP},
    simulator=Simulator("5-15", lazy("gameflow.games.station.balance:simulate")),
    lopsided=lazy("gameflow.games.station.balance:lopsided"),
    tv=TvScreen("gameflow.games.station:tv.html", tv.build),
    last_tally=last_tally,
    team=talk.team,
    reveal=ending.reveal,
    story=ending.story,
)
