"""The game master's controls. The host plays no role; the bot keeps the books.

Switches that concern tonight (murder-free, the death list) can be set any
time before the night ends; forbidding the murder once there is a death list
(see `may_forbid`),
and what the game master may do never depends on what the traitors have sent
(the host's menu sits next to the TV): a death list put in play after the
traitors have made tonight's choice may still be written until breakfast, else
it is drawn then. The
dagger switch takes effect at the next shield-room draw; recruitment applies
from the next night vote. `final` brings the final round table forward to today
(or to tomorrow when called at night).
"""

from __future__ import annotations

from typing import Final

from gameflow.core.actions import Action
from gameflow.core.events import Event, Kind, announce, tell, to_host
from gameflow.core.legal import ActionSpec, Field, Value
from gameflow.core.result import Accepted, Rejected, reject
from gameflow.core.state import Game
from gameflow.core.text import N_, msg
from gameflow.games.traitors import missions
from gameflow.games.traitors.actions import (
    CallFinal,
    ForbidMurder,
    MurderFree,
    PlayDagger,
    PlayDeathList,
    Recruit,
    Score,
)
from gameflow.games.traitors.state import (
    ANSWER,
    MISSION,
    NIGHT,
    NIGHT_PHASES,
    REVOTE,
    ROUNDTABLE,
    SHIELD_ROOM,
    Traitors,
)

BEFORE_NIGHT_ENDS: Final = (MISSION, SHIELD_ROOM, ROUNDTABLE, REVOTE, NIGHT, ANSWER)
# [decision] The silver a host-scored mission earned, as the host's menu offers
# it (a script may score any whole number up to `missions.MAX_SILVER`).
SILVER_CHOICES: Final = (0, 5, 10, 15, 20, 25, 30, 40, 50, 60, 75, 100)
# A switch for tonight's texts (`_tonight`): refused as no night is left today,
# refused as it is already on, and what everyone is told when it is switched on.
MURDER_FREE: Final = (
    N_("There is no night left today to make murder-free."),
    N_("Tonight is already murder-free."),
    N_("The game master declares tonight murder-free."),
)
DEATH_LIST: Final = (
    N_("There is no night left today for the death list."),
    N_("The death list is already in play tonight."),
    N_("The game master puts the death list in play."),
)


def may_forbid(game: Game, st: Traitors) -> bool:
    """Whether the game master may forbid tonight's murder (the seed's
    exception III, while the death list is in play): once there is a list, on
    the night it is written (from nightfall) and from its publication at
    breakfast to the night its murder comes from it. Never on a day before the
    list is written (issue #32: day 1 with the death list in play offered a
    veto over a list that did not exist yet)."""
    if not _night_ahead(game, st):
        return False
    return bool(st.listed) or (st.death_list_on and game.phase.name in NIGHT_PHASES)


def _night_ahead(game: Game, st: Traitors) -> bool:
    return game.phase.name in BEFORE_NIGHT_ENDS and game.phase.round < st.final_day


def _tonight(
    game: Game, already: bool, new: Traitors, texts: tuple[str, str, str]
) -> Accepted[Game] | Rejected:
    """A switch for tonight (murder-free, the death list), with its `texts`:
    refused when no night is left today and when it is `already` on; else the
    game takes `new` and everyone is told."""
    no_night, again, said = texts
    if not _night_ahead(game, game.rules):
        return reject("no_night", no_night)
    if already:
        return reject("already", again)
    return Accepted(game._replace(rules=new), (announce(msg(said), game.phase.seq),))


def _final_target(game: Game) -> int:
    """The day `final` calls the final round table for: today, or tomorrow
    once today's round table is over."""
    day = game.phase.round
    return day if game.phase.name in (MISSION, SHIELD_ROOM, ROUNDTABLE, REVOTE) else day + 1


def act(game: Game, a: Action) -> Accepted[Game] | Rejected:
    st: Traitors = game.rules
    seq = game.phase.seq
    if isinstance(a, Score):
        return missions.score(game, a)
    if isinstance(a, MurderFree):
        return _tonight(game, st.murder_free, st._replace(murder_free=True), MURDER_FREE)
    if isinstance(a, ForbidMurder):
        if not may_forbid(game, st):
            return reject(
                "no_list", N_("The murder can only be forbidden while the death list is in play.")
            )
        if st.forbid_murder:
            return reject("already", N_("Tonight's murder is already forbidden."))
        new = game._replace(rules=st._replace(forbid_murder=True))
        events = tuple(
            tell(
                game.players[s],
                msg(N_("The game master forbids tonight's murder.")),
                seq,
                secret=True,
            )
            for s in st.traitors()
        )
        return Accepted(new, events)
    if isinstance(a, Recruit):
        new = game._replace(rules=st._replace(recruit=a.allow))
        text = msg(N_("Recruitment allowed.")) if a.allow else msg(N_("Recruitment stopped."))
        return Accepted(new, (to_host(game.host, text, seq),))
    if isinstance(a, PlayDagger):
        new = game._replace(rules=st._replace(dagger_on=a.on))
        text = msg(N_("The dagger is in play.")) if a.on else msg(N_("The dagger is out of play."))
        return Accepted(new, (announce(text, seq), Event(Kind.CHANGED, phase=seq)))
    if isinstance(a, PlayDeathList):
        return _tonight(game, st.death_list_on, st._replace(death_list_on=True), DEATH_LIST)
    if isinstance(a, CallFinal):
        target = _final_target(game)
        if st.final_day <= target:
            return reject("already", N_("The final round table is already the next one."))
        new = game._replace(rules=st._replace(final_day=target))
        text = msg(N_("The game master calls the final round table on day {day}."), day=target)
        return Accepted(new, (announce(text, seq), Event(Kind.CHANGED, phase=seq)))
    raise TypeError(f"not a game-master action: {a!r}")


def legal(game: Game) -> tuple[ActionSpec, ...]:
    """The game master's controls that would be accepted now."""
    st: Traitors = game.rules
    seq = game.phase.seq
    specs: list[ActionSpec] = []
    m = st.mission
    if game.phase.name == MISSION and m is not None and m.kind == "host":
        active: tuple[Value, ...] = tuple(game.players[s] for s in st.seats())
        silver = Field("silver", SILVER_CHOICES)
        specs.append(ActionSpec(Score.kind, seq, (silver, Field("access", active, True))))
    if _night_ahead(game, st):
        if not st.murder_free:
            specs.append(ActionSpec(MurderFree.kind, seq))
        if may_forbid(game, st) and not st.forbid_murder:
            specs.append(ActionSpec(ForbidMurder.kind, seq))
        if not st.death_list_on:
            specs.append(ActionSpec(PlayDeathList.kind, seq))
    specs.append(ActionSpec(Recruit.kind, seq, (Field("allow", (False, True)),)))
    specs.append(ActionSpec(PlayDagger.kind, seq, (Field("on", (False, True)),)))
    if st.final_day > _final_target(game):
        specs.append(ActionSpec(CallFinal.kind, seq))
    return tuple(specs)
