"""The Resistance: team proposals, votes, secret mission cards and plot cards.

docs/rules/resistance.md (from the public rules digest) is
the project's own rules page with every [decision] this module takes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from gameflow.core import gamemaster
from gameflow.core.actions import Action
from gameflow.core.definition import GameDefinition, Simulator, TvScreen, lazy
from gameflow.core.options import FLAG, Limit, one_of, seconds, span, text
from gameflow.core.phased import Phased, phased_limits, phased_options
from gameflow.core.result import Accepted, Rejected
from gameflow.core.state import Game
from gameflow.games.resistance import ending, flow, inputs, pacing, plots, talk, tv, views
from gameflow.games.resistance.actions import Give, Mission, Pass, Play, Propose, Vote
from gameflow.games.resistance.cards import DECKS
from gameflow.games.resistance.words import OPTION_HELP, WORDS


class StepError(ValueError):
    """A script step that is not a well-formed Resistance action."""


# Each action class and its handler (game, action, seat): one lookup per input.
# (A vote is most inputs; it is handled first, and gets the time: the last
# opinion maker's vote opens the vote to everyone else with a fresh timer.)
_HANDLERS: dict[type[Action], Callable[[Game, Any, int], Accepted[Game] | Rejected]] = {
    Propose: inputs.propose,
    Mission: inputs.mission,
    Give: plots.give,
    Play: plots.play,
    Pass: inputs.pass_,
}


# The most players a table may have: a module constant, since the compiled
# build (mypyc) cannot read a class attribute from inside the class body.
MAX_PLAYERS: Final = 10


class ResistanceRules(Phased):
    # legal, ask, the views and record: inputs.py and views.py (Delegating);
    # start and end_phase: flow.py; expected: inputs.py (Phased)
    kind = "resistance"
    min_players = 5
    max_players = MAX_PLAYERS
    windows: tuple[tuple[str, str, str], ...] = (
        pacing.WINDOWS
    )  # the campaign's clock windows (gameflow.core.campaign)
    # What each option takes (gameflow.core.options): [decision] phases up to a
    # week, spies 0 (by the table) up to fewer than half the most players, up
    # to 20 rejected teams in a row, the host's hero cards up to 4,000 characters.
    option_limits: Final[dict[str, Limit]] = phased_limits(
        {
            "proposal_seconds": seconds(),
            "vote_seconds": seconds(),
            "mission_seconds": seconds(),
            "plot_cards": FLAG,
            "plot_deck": one_of(*DECKS),
            "heroes": FLAG,
            "hero_cards": text(4000),
            "spies": span(0, (MAX_PLAYERS - 1) // 2),
            "double_fail": FLAG,
            "max_rejections": span(1, 20),
        },
        pacing.WINDOWS,
    )

    def default_options(self) -> dict[str, Any]:
        phases = {"proposal_seconds": 180.0, "vote_seconds": 120.0, "mission_seconds": 60.0}
        own = {
            "plot_cards": True,
            "plot_deck": "auto",  # auto | full | reduced
            "heroes": False,
            "hero_cards": "",  # the host's own hero cards, one per line ("" = shipped list)
            "spies": 0,  # 0: by the table in the rules
            "double_fail": True,  # mission 4 needs two fails with 7+ players
            "max_rejections": 5,
        }
        return phased_options(phases, own, pacing.OPTIONS)

    def act(self, game: Game, action: Action, now: float) -> Accepted[Game] | Rejected:
        by, players = action.by, game.players
        seat = players.index(by) if by in players else -1
        if type(action) is Vote:
            return inputs.vote(game, action, seat, now)
        handler = _HANDLERS.get(type(action))
        if handler is None:
            raise TypeError(f"not a Resistance action: {action!r}")
        return handler(game, action, seat)

    # Asked after every input: the module functions themselves, not wrappers.
    awaiting = staticmethod(inputs.awaiting)
    ready = staticmethod(inputs.ready)

    def parse_step(self, step: Mapping[str, Any]) -> Action | None:
        do = step.get("do")
        by = step.get("as")
        phase = step.get("phase")
        if do == Propose.kind:
            team = step.get("team")
            if not isinstance(team, list) or not all(isinstance(p, str) for p in team):
                raise StepError("a team is a list of player ids")
            return Propose(by, phase, tuple(team))
        if do == Vote.kind:
            approve = step.get("approve")
            if not isinstance(approve, bool):
                raise StepError("a team vote needs approve: true or false")
            return Vote(by, phase, approve)
        if do == Mission.kind:
            card = step.get("card")
            if not isinstance(card, str):
                raise StepError("a mission card is success or fail")
            return Mission(by, phase, card)
        if do == Give.kind:
            card, to = step.get("card"), step.get("to")
            if not isinstance(card, str) or not isinstance(to, str):
                raise StepError("give needs a card id and a player id")
            return Give(by, phase, card, to)
        if do == Play.kind:
            card, target, take = step.get("card"), step.get("target"), step.get("take")
            if not isinstance(card, str):
                raise StepError("play needs a card id")
            if target is not None and not isinstance(target, str):
                raise StepError("a target is a player id")
            if take is not None and not isinstance(take, str):
                raise StepError("take is a card id")
            return Play(by, phase, card, target, take)
        if do == Pass.kind:
            return Pass(by, phase)
        return None

    def step_of(self, action: Action) -> dict[str, Any] | None:
        if isinstance(action, Propose):
            return {"as": action.by, "do": "propose", "team": list(action.team)}
        if isinstance(action, Vote):
            return {"as": action.by, "do": "vote", "approve": action.approve}
        if isinstance(action, Mission):
            return {"as": action.by, "do": "mission", "card": action.card}
        if isinstance(action, Give):
            return {"as": action.by, "do": "give", "card": action.card, "to": action.to}
        if isinstance(action, Play):
            step: dict[str, Any] = {"as": action.by, "do": "play", "card": action.card}
            if action.target is not None:
                step["target"] = action.target
            if action.take is not None:
                step["take"] = action.take
            return step
        if isinstance(action, Pass):
            return {"as": action.by, "do": "pass"}
        return None


RESISTANCE: Final = ResistanceRules(inputs, views, flow)

__all__ = [
    "GAME",
    "RESISTANCE",
    "Give",
    "Mission",
    "Pass",
    "Play",
    "Propose",
    "ResistanceRules",
    "StepError",
    "Vote",
]


# The game as one definition: its rules, words, TV screen and the rest
# (gameflow/core/definition.py); gameflow.games registers it.
GAME: Final = GameDefinition(
    rules=RESISTANCE,
    words=WORDS,
    option_help={**OPTION_HELP, **gamemaster.HELP},
    simulator=Simulator("5-10", lazy("gameflow.games.resistance.balance:simulate")),
    lopsided=lazy("gameflow.games.resistance.balance:lopsided"),
    tv=TvScreen("gameflow.games.resistance:tv.html", tv.build),
    reveal=ending.reveal,
    story=ending.story,
    team=talk.team,
)
