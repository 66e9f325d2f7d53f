"""Missions: silver for the pot and access to the shield room.

Three kinds. *Host-scored*: a mission played in real life; the game master
records the silver won and who earned access (`score`, repeatable until the
phase ends, so a typo can be corrected). Two *built-in* chat missions, one short
reply per player, in which traitors can secretly cost the group silver:

- **relay** ("The silver relay"): everyone hands their bag of silver to another
  player. A clean handover adds RELAY_GAIN to the pot; a traitor may secretly
  drop the bag instead, which costs RELAY_LOSS. Everyone who received at least
  one clean handover enters the shield room. The result names how many bags were
  dropped, never by whom.
- **chests** ("Three chests"): everyone opens chest 1, 2 or 3. One chest holds the
  treasure (drawn, known to nobody): each player opening it adds CHEST_GAIN and
  enters the shield room. Another is cursed, and the traitors are told which: each
  player opening it costs CHEST_LOSS. Traitors may open it themselves, or talk
  others into it.

`missions: "builtin"` alternates relay (odd days) and chests (even days). The
pot never goes below zero.
"""

from __future__ import annotations

from typing import Final

from gameflow.core.events import Event, announce, prompt, tell
from gameflow.core.result import Accepted, Rejected, reject
from gameflow.core.rng import rng_for
from gameflow.core.state import Game
from gameflow.core.text import N_, Msg, msg, nmsg
from gameflow.games.traitors.actions import Reply, Score
from gameflow.games.traitors.state import MISSION, TRAITOR, Mission, Traitors, put

RELAY_GAIN: Final = 10
RELAY_LOSS: Final = 10
CHEST_GAIN: Final = 10
CHEST_LOSS: Final = 10
CHESTS: Final = (1, 2, 3)
MAX_SILVER: Final = 10_000

TITLES: Final = {
    "host": N_("Today's mission is played in real life; the game master scores it."),
    "relay": N_(
        "Mission: the silver relay. Hand your bag of silver to another player. "
        "Every clean handover adds {gain} silver; a dropped bag costs {loss}. "
        "Whoever receives a clean handover enters the shield room."
    ),
    "chests": N_(
        "Mission: three chests. Open chest 1, 2 or 3. The treasure chest adds {gain} "
        "silver per opener and lets them into the shield room; a cursed chest costs "
        "{loss} per opener."
    ),
}


def kind_for(st: Traitors, day: int) -> str:
    chosen = st.config.missions
    if chosen == "builtin":
        return "relay" if day % 2 else "chests"
    return chosen


def new_mission(game: Game, st: Traitors, day: int) -> Mission:
    kind = kind_for(st, day)
    n = len(game.players)
    if kind == "chests":
        rng = rng_for(game.seed, f"traitors/day/{day}/chests")
        cursed, treasure = rng.sample(CHESTS, 2)
        return Mission(kind, (None,) * n, cursed=cursed, treasure=treasure)
    return Mission(kind, (None,) * n)


def intro(game: Game, st: Traitors, seq: int) -> list[Event]:
    m = st.mission
    assert m is not None
    gain, loss = (RELAY_GAIN, RELAY_LOSS) if m.kind == "relay" else (CHEST_GAIN, CHEST_LOSS)
    events = [announce(msg(TITLES[m.kind], gain=gain, loss=loss), seq)]
    if m.kind == "host":
        return events
    for s in st.seats():
        if m.kind == "chests" and st.role[s] == TRAITOR:
            events.append(
                tell(
                    game.players[s],
                    msg(N_("Traitors only: chest {chest} is cursed."), chest=m.cursed),
                    seq,
                    secret=True,
                )
            )
        events.append(prompt(game.players[s], seq))
    return events


def score(game: Game, a: Score) -> Accepted[Game] | Rejected:
    st: Traitors = game.rules
    m = st.mission
    if game.phase.name != MISSION or m is None:
        return reject("wrong_phase", N_("Missions are scored during the mission."))
    if m.kind != "host":
        return reject("builtin", N_("Today's mission is played by chat and scores itself."))
    if not 0 <= a.silver <= MAX_SILVER:
        return reject("bad_silver", N_("Silver is a whole number from 0 to {max}."), max=MAX_SILVER)
    access: list[int] = []
    for p in a.access:
        s = game.seat(p)
        if s < 0 or not st.active(s):
            return reject("bad_access", N_("Only active players can enter the shield room."))
        if s not in access:
            access.append(s)
    mission = m._replace(silver=a.silver, access=tuple(sorted(access)), scored=True)
    text = msg(
        N_("Mission scored: {silver} silver, shield-room access for {names}."),
        silver=a.silver,
        names=tuple(game.names[s] for s in sorted(access)) or (Msg(N_("nobody")),),
    )
    return Accepted(
        game._replace(rules=st._replace(mission=mission)), (announce(text, game.phase.seq),)
    )


def reply(game: Game, a: Reply, seat: int) -> Accepted[Game] | Rejected:
    st: Traitors = game.rules
    m = st.mission
    if game.phase.name != MISSION or m is None:
        return reject("wrong_phase", N_("Mission replies are sent during the mission."))
    if not st.active(seat):
        return reject("not_active", N_("You are out of the game."))
    if m.kind == "host":
        return reject("host_mission", N_("Today's mission is scored by the game master."))
    if m.replies[seat] is not None:
        return reject("locked", N_("You have already replied."))
    if m.kind == "relay":
        target = game.seat(a.to or "")
        if target < 0 or target == seat or not st.active(target):
            return reject("bad_target", N_("Hand your silver to another active player."))
        if a.drop and st.role[seat] != TRAITOR:
            return reject("not_traitor", N_("Only traitors can drop the silver."))
        fields: tuple[str, ...] = (game.players[target], "drop" if a.drop else "pass")
        text = msg(N_("You hand your silver to {name}."), name=game.names[target])
    else:
        if a.chest not in CHESTS:
            return reject("bad_chest", N_("Open chest 1, 2 or 3."))
        fields = (str(a.chest),)
        text = msg(N_("You open chest {chest}."), chest=a.chest)
    mission = m._replace(replies=put(m.replies, seat, fields))
    return Accepted(
        game._replace(rules=st._replace(mission=mission)),
        (tell(game.players[seat], text, game.phase.seq, secret=True),),
    )


def finish(game: Game, seq: int) -> tuple[Traitors, list[Event]]:
    """Score the mission: the pot (never below zero) and shield-room access."""
    st: Traitors = game.rules
    m = st.mission
    assert m is not None
    if m.kind == "host":
        silver, access = m.silver, m.access
        text = msg(N_("The mission earned {silver} silver."), silver=silver)
    elif m.kind == "relay":
        received: set[int] = set()
        clean = dropped = 0
        for r in m.replies:
            if r is None:
                continue
            if r[1] == "drop":
                dropped += 1
            else:
                clean += 1
                received.add(game.seat(r[0]))
        silver = clean * RELAY_GAIN - dropped * RELAY_LOSS
        access = tuple(sorted(s for s in received if st.active(s)))
        text = msg(
            N_("The relay is over. Bags that arrived: {clean}. Bags dropped: {dropped}."),
            clean=clean,
            dropped=dropped,
        )
    else:
        picks = [int(r[0]) if r is not None else 0 for r in m.replies]
        access = tuple(s for s, c in enumerate(picks) if c == m.treasure and st.active(s))
        cursed = sum(1 for c in picks if c == m.cursed)
        silver = len(access) * CHEST_GAIN - cursed * CHEST_LOSS
        text = nmsg(
            "The treasure was in chest {treasure}. Chest {cursed} was cursed and was opened once.",
            "The treasure was in chest {treasure}. Chest {cursed} was cursed and was opened {n} times.",
            cursed,
            treasure=m.treasure,
            cursed=m.cursed,
        )
    pot = max(0, st.pot + silver)
    st = st._replace(pot=pot, access=access, mission=m._replace(silver=pot - st.pot))
    events = [
        announce(text, seq),
        announce(msg(N_("The pot now holds {pot} silver."), pot=pot), seq),
    ]
    return st, events
