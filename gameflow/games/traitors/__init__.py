"""The Traitors: loyal players against hidden traitors, one round a day.

docs/rules/traitors.md (from the public rules digest) is the
project's own rules page with every [decision] this module takes. The game
master is the game's host: their controls are game actions listed in
`HOST_KINDS`, and their secret view is `gm_view`, opened explicitly.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from gameflow.core import gamemaster
from gameflow.core.actions import Action
from gameflow.core.definition import GameDefinition, Simulator, TvScreen, lazy
from gameflow.core.delegating import Delegating
from gameflow.core.result import Accepted, Rejected
from gameflow.core.state import Game
from gameflow.games.traitors import ending, flow, inputs, missions, night, roundtable, tv, views
from gameflow.games.traitors.actions import (
    HOST_KINDS,
    NIGHT_KINDS,
    NIGHT_VOTES,
    Answer,
    CallFinal,
    DeathList,
    EndVote,
    ForbidMurder,
    MurderFree,
    PlayDagger,
    PlayDeathList,
    Plea,
    Recruit,
    Reply,
    Score,
    Vote,
)
from gameflow.games.traitors.chat import relay, silenced, table_talk, team
from gameflow.games.traitors.options import DEFAULTS, LIMITS, WINDOWS
from gameflow.games.traitors.state import (
    END_VOTE,
    MISSION,
    NIGHT_PHASES,
    REVOTE,
    ROUNDTABLE,
    SHIELD_ROOM,
    Traitors,
)
from gameflow.games.traitors.views import chat_with, gm_view
from gameflow.games.traitors.words import OPTION_HELP, WORDS

# The game master plays no role by default (the show's): the console shows
# every secret (gameflow/core/gamemaster.py).
OPTION_LIMITS: Final = {**LIMITS, gamemaster.OPTION: gamemaster.LIMIT}


class StepError(ValueError):
    """A script step that is not a well-formed Traitors action."""


def _str(step: Mapping[str, Any], key: str) -> str:
    value = step.get(key)
    if not isinstance(value, str):
        raise StepError(f"{key!r} must be a player id")
    return value


def _bool(step: Mapping[str, Any], key: str, default: bool) -> bool:
    value = step.get(key, default)
    if not isinstance(value, bool):
        raise StepError(f"{key!r} must be true or false")
    return value


def _ids(step: Mapping[str, Any], key: str) -> tuple[str, ...]:
    value = step.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise StepError(f"{key!r} must be a list of player ids")
    return tuple(value)


def _given(step: dict[str, Any], **fields: object) -> dict[str, Any]:
    """`step` with those of `fields` that are set: a script leaves out a
    switch that is off, no chest and no reason (`parse_step` reads them so)."""
    return {**step, **{key: value for key, value in fields.items() if value}}


class TraitorsRules(Delegating):
    # legal, ask, the views and record: inputs.py and views.py (Delegating)
    kind = "traitors"
    min_players = 6
    max_players = 24
    host_kinds = HOST_KINDS
    windows: tuple[tuple[str, str, str], ...] = (
        WINDOWS  # the campaign's clock windows (gameflow.core.campaign)
    )
    # The version counts the night's votes too, and the host's ordinary view
    # holds nothing secret: the engine leaves the version out of it.
    secret_inputs = True
    option_limits = OPTION_LIMITS  # what each option takes (gameflow.core.options)

    def default_options(self) -> dict[str, Any]:
        return {**DEFAULTS, **gamemaster.option(gamemaster.WATCHES)}

    def start(self, game: Game, now: float) -> Accepted[Game] | Rejected:
        return flow.start(game, now)

    def act(self, game: Game, action: Action, now: float) -> Accepted[Game] | Rejected:
        return inputs.act(game, action)

    def end_phase(self, game: Game, now: float) -> Accepted[Game]:
        st: Traitors = game.rules
        name = game.phase.name
        if name == MISSION:
            st, events = missions.finish(game, game.phase.seq)
            return flow.open_shield_room(game._replace(rules=st), now, events)
        if name == SHIELD_ROOM:
            if game.phase.round >= st.final_day and len(st.seats()) <= 2:
                # two players left in the final round: their roles are revealed
                return roundtable.final_reveal(game, now, [])
            return flow.open_table(game, now, [])
        if name in (ROUNDTABLE, REVOTE):
            return roundtable.close(game, now)
        if name in NIGHT_PHASES:
            return night.close(game, now)
        if name == END_VOTE:
            return roundtable.close_end_vote(game, now)
        raise ValueError(f"no phase {name!r} in the Traitors")

    def awaiting(self, game: Game) -> tuple[int, ...]:
        return inputs.awaiting(game)

    def ready(self, game: Game) -> bool:
        """Never at night: the night ends at its deadline however soon the
        traitors (and anyone they asked) are done, or its length would tell.
        The engine asks this for automatic advancing and for the host's early
        advance alike, so neither can end a night."""
        return game.phase.name not in NIGHT_PHASES and not inputs.awaiting(game)

    def expected(self, game: Game) -> tuple[int, ...]:
        return inputs.expected(game)

    def secret_awaiting(self, game: Game) -> bool:
        """At night only traitors (and a tempted or forced player) are awaited:
        the engine must not count or report their missed deadlines."""
        return game.phase.name in views.SECRET_PHASES

    def parse_step(self, step: Mapping[str, Any]) -> Action | None:
        do = step.get("do")
        by = step.get("as")
        phase = step.get("phase")
        if do == "score":
            silver = step.get("silver", 0)
            if not isinstance(silver, int) or isinstance(silver, bool):
                raise StepError("silver is a whole number")
            return Score(by, phase, silver, _ids(step, "access"))
        if do == "mission":
            chest = step.get("chest", 0)
            to = step.get("to")
            if not isinstance(chest, int) or isinstance(chest, bool):
                raise StepError("a chest is 1, 2 or 3")
            if to is not None and not isinstance(to, str):
                raise StepError("'to' must be a player id")
            return Reply(by, phase, to, _bool(step, "drop", False), chest)
        if do == "vote":
            reason = step.get("reason", "")
            if not isinstance(reason, str):
                raise StepError("a reason is text")
            return Vote(by, phase, _str(step, "for"), _bool(step, "dagger", False), reason)
        if do == "plea":
            return Plea(by, phase, str(step.get("text", "")))
        if do in NIGHT_KINDS:
            vote = NIGHT_VOTES[NIGHT_KINDS.index(do)]
            return vote(by, phase, _str(step, "target"))
        if do == "death_list":
            if by == "host" and "names" not in step:
                return PlayDeathList(by, phase)
            return DeathList(by, phase, _ids(step, "names"))
        if do == "answer":
            return Answer(by, phase, _bool(step, "accept", False))
        if do == "end_vote":
            return EndVote(by, phase, _bool(step, "end", True))
        simple: dict[str, type[Action]] = {
            "murder_free": MurderFree,
            "forbid_murder": ForbidMurder,
            "death_list_on": PlayDeathList,
            "final": CallFinal,
        }
        if isinstance(do, str) and do in simple:
            return simple[do](by, phase)
        if do == "recruit":
            return Recruit(by, phase, _bool(step, "allow", True))
        if do == "dagger":
            return PlayDagger(by, phase, _bool(step, "on", True))
        return None

    def step_of(self, action: Action) -> dict[str, Any] | None:
        base: dict[str, Any] = {"as": action.by, "do": action.kind}
        if isinstance(action, Score):
            return {**base, "silver": action.silver, "access": list(action.access)}
        if isinstance(action, Reply):
            to = {} if action.to is None else {"to": action.to}
            return _given({**base, **to}, drop=action.drop, chest=action.chest)
        if isinstance(action, Vote):
            return _given(
                {**base, "for": action.target}, dagger=action.dagger, reason=action.reason
            )
        if isinstance(action, Plea):
            return {**base, "text": action.text}
        if isinstance(action, NIGHT_VOTES):
            return {**base, "target": action.target}
        if isinstance(action, DeathList):
            return {**base, "names": list(action.names)}
        if isinstance(action, Answer):
            return {**base, "accept": action.accept}
        if isinstance(action, EndVote):
            return {**base, "end": action.end}
        if isinstance(action, Recruit):
            return {**base, "allow": action.allow}
        if isinstance(action, PlayDagger):
            return {**base, "on": action.on}
        if isinstance(action, MurderFree | ForbidMurder | PlayDeathList | CallFinal):
            return base
        return None


TRAITORS: Final = TraitorsRules(inputs, views)

__all__ = ["GAME", "TRAITORS", "StepError", "TraitorsRules", "chat_with", "gm_view", "relay"]


# The game as one definition: its rules, words, TV screen and the rest
# (gameflow/core/definition.py); gameflow.games registers it.
GAME: Final = GameDefinition(
    rules=TRAITORS,
    words=WORDS,
    option_help={**OPTION_HELP, **gamemaster.HELP},
    simulator=Simulator("6-24", lazy("gameflow.games.traitors.balance:simulate"), ("final_day",)),
    lopsided=lazy("gameflow.games.traitors.balance:lopsided"),
    tv=TvScreen("gameflow.games.traitors:tv.html", tv.build),
    relay=relay,
    team=team,
    silenced=silenced,
    table_talk=table_talk,
    gm_view=gm_view,
    reveal=ending.reveal,
    story=ending.story,
)
