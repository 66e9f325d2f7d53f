"""Werewolf's phases: the deal, the night, the morning, the day and the lynch.

night -> day -> vote (-> revote) -> night. The night's end resolves the wolves'
vote, the doctor's protection and the seer's look (one death at most); the
vote's end lynches one player or nobody. The game ends the moment a side has
won (state.Werewolf.winner), after a morning or after a lynch.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from gameflow.core import campaign
from gameflow.core.events import Event, Kind, announce, prompt, tell
from gameflow.core.phases import enter, over
from gameflow.core.result import Accepted, Rejected, accepted, reject
from gameflow.core.rng import rng_for
from gameflow.core.state import Game
from gameflow.core.text import N_, Msg, msg, nmsg
from gameflow.games.werewolf import pacing, texts
from gameflow.games.werewolf.state import (
    DAY,
    DOCTOR,
    NIGHT,
    NOBODY,
    REVOTE,
    ROLES,
    SEER,
    VILLAGE,
    VILLAGER,
    VOTE,
    WOLF,
    Morning,
    Werewolf,
)

ROLE_CARDS = {
    VILLAGER: N_("You are a VILLAGER. Find the werewolves and lynch them by day."),
    WOLF: N_("You are a WEREWOLF. The pack: {names}. Each night agree on a victim."),
    SEER: N_("You are the SEER. Each night, learn one player's side."),
    DOCTOR: N_("You are the DOCTOR. Each night, protect one player from the werewolves."),
}


def deal(game: Game) -> tuple[str, ...] | None:
    """The roles by seat, from the fixed deal or the seed; None if unusable."""
    n = len(game.players)
    setup: dict[str, Any] = json.loads(game.setup)
    fixed = setup.get("roles")
    if fixed is not None:
        if set(fixed) - set(game.players) or any(r not in ROLES for r in fixed.values()):
            return None
        roles = tuple(fixed.get(p, VILLAGER) for p in game.players)
    else:
        k = int(game.option("wolves")) or pacing.wolf_count(n)
        order = list(range(n))
        rng_for(game.seed, "werewolf/roles").shuffle(order)
        cast = [WOLF] * k + [SEER, DOCTOR]
        roles = tuple(
            cast[order.index(s)] if order.index(s) < len(cast) else VILLAGER for s in range(n)
        )
    wolves = roles.count(WOLF)
    if not 0 < wolves < (n - wolves):
        return None
    return roles


def start(game: Game, now: float) -> Accepted[Game] | Rejected:
    roles = deal(game)
    if roles is None:
        return reject(
            "bad_setup", N_("The werewolves must be at least one and fewer than the rest.")
        )
    try:
        campaign.validate(game)
    except ValueError:
        return reject("bad_setup", N_("Some of this game's settings can't be used."))
    n = len(game.players)
    st = Werewolf(roles=roles, dead=(False,) * n)
    game = game._replace(rules=st, missed=(0,) * n, options=campaign.held_options(game))
    seq = game.phase.seq + 1
    events: list[Event] = [
        announce(
            nmsg(
                "The game has started: {count} players, {n} werewolf among them.",
                "The game has started: {count} players, {n} werewolves among them.",
                roles.count(WOLF),
                count=n,
            ),
            seq,
        )
    ]
    pack = tuple(game.names[s] for s in range(n) if roles[s] == WOLF)
    for s, player in enumerate(game.players):
        card = ROLE_CARDS[roles[s]]
        text = msg(card, names=pack) if roles[s] == WOLF else msg(card)
        events.append(tell(player, text, seq, secret=True))
    return start_night(game, 1, now, events)


def start_night(game: Game, night: int, now: float, events: list[Event]) -> Accepted[Game]:
    st: Werewolf = game.rules
    n = len(st.roles)
    st = st._replace(kills=(NOBODY,) * n, inspect=NOBODY, protect=NOBODY, votes=(), tied=())
    phase, timers = enter(game, NIGHT, night, pacing.seconds_for(game, NIGHT, now), now)
    game = game._replace(rules=st, phase=phase)
    events.append(announce(msg(texts.NIGHT_FALLS, night=night), phase.seq))
    for s in st.living():
        if st.roles[s] in (WOLF, SEER, DOCTOR):
            events.append(prompt(game.players[s], phase.seq))
    events.extend(timers)
    events.append(Event(Kind.CHANGED, phase=phase.seq))
    return accepted(game, tuple(events))


def night_victim(st: Werewolf) -> int:
    """The living wolves' choice: a target a majority of them voted for, else NOBODY."""
    wolves = st.wolves()
    counts = Counter(st.kills[s] for s in wolves if st.kills[s] not in (NOBODY, s))
    if not counts:
        return NOBODY
    target, votes = counts.most_common(1)[0]
    return target if votes * 2 > len(wolves) else NOBODY


def close_night(game: Game, now: float) -> Accepted[Game]:
    st: Werewolf = game.rules
    night = game.phase.round
    seq = game.phase.seq + 1  # the day's
    events: list[Event] = []
    victim = night_victim(st)
    saved = victim != NOBODY and victim == st.protect
    if st.inspect != NOBODY:
        seer = next(s for s in st.living() if st.roles[s] == SEER)
        is_wolf = st.roles[st.inspect] == WOLF
        st = st._replace(findings=(*st.findings, (night, st.inspect, is_wolf)))
        found = (
            N_("Your vision: {name} is a WEREWOLF.")
            if is_wolf
            else N_("Your vision: {name} is not a werewolf.")
        )
        events.append(
            tell(game.players[seer], msg(found, name=game.names[st.inspect]), seq, secret=True)
        )
    if victim != NOBODY and not saved:
        dead = tuple(True if s == victim else d for s, d in enumerate(st.dead))
        st = st._replace(dead=dead)
        if game.option("reveal_dead", True):
            role = Msg(texts.ROLE_NAMES[st.roles[victim]])
            events.append(
                announce(msg(texts.FOUND_DEAD_ROLE, name=game.names[victim], role=role), seq)
            )
        else:
            events.append(announce(msg(texts.FOUND_DEAD, name=game.names[victim]), seq))
    else:
        events.append(announce(msg(texts.QUIET_NIGHT), seq))
    morning = Morning(night, victim, saved, st.inspect, st.protect)
    st = st._replace(history=(*st.history, morning), last_protected=st.protect)
    game = game._replace(rules=st)
    if st.winner() is not None:
        return finish(game, now, events)
    phase, timers = enter(game, DAY, night, pacing.seconds_for(game, DAY, now), now)
    events.extend(timers)
    events.append(Event(Kind.CHANGED, phase=phase.seq))
    return accepted(game._replace(phase=phase), tuple(events))


def open_vote(
    game: Game, name: str, now: float, events: list[Event], tied: tuple[int, ...] = ()
) -> Accepted[Game]:
    st: Werewolf = game.rules
    st = st._replace(votes=(None,) * len(st.roles), tied=tied)
    phase, timers = enter(game, name, game.phase.round, pacing.seconds_for(game, name, now), now)
    game = game._replace(rules=st, phase=phase)
    if name == VOTE:
        events.append(announce(msg(N_("Vote now: whom does the village lynch?")), phase.seq))
    for s in st.living():
        events.append(prompt(game.players[s], phase.seq))
    events.extend(timers)
    events.append(Event(Kind.CHANGED, phase=phase.seq))
    return accepted(game, tuple(events))


def top_of(votes: tuple[int | None, ...]) -> tuple[int, ...]:
    """The seats with the most votes (none cast: ())."""
    counts = Counter(v for v in votes if v is not None and v != NOBODY)
    if not counts:
        return ()
    most = max(counts.values())
    return tuple(sorted(s for s, c in counts.items() if c == most))


def close_vote(game: Game, now: float) -> Accepted[Game]:
    st: Werewolf = game.rules
    seq = game.phase.seq + 1
    events: list[Event] = []
    top = top_of(st.votes)
    cast = tuple(NOBODY if v is None else v for v in st.votes)
    if len(top) > 1 and game.phase.name == VOTE and game.option("revote", True):
        names = tuple(game.names[s] for s in top)
        events.append(announce(msg(texts.REVOTE, names=names), seq))
        return open_vote(game, REVOTE, now, events, top)
    lynched = top[0] if len(top) == 1 else NOBODY
    last = st.history[-1]._replace(lynched=lynched, votes=cast)
    st = st._replace(history=(*st.history[:-1], last))
    if lynched != NOBODY:
        st = st._replace(dead=tuple(True if s == lynched else d for s, d in enumerate(st.dead)))
        role = Msg(texts.ROLE_NAMES[st.roles[lynched]])
        events.append(announce(msg(texts.LYNCHED, name=game.names[lynched], role=role), seq))
    else:
        events.append(announce(msg(texts.NOBODY_LYNCHED), seq))
    game = game._replace(rules=st)
    if st.winner() is not None:
        return finish(game, now, events)
    return start_night(game, game.phase.round + 1, now, events)


def finish(game: Game, now: float, events: list[Event]) -> Accepted[Game]:
    st: Werewolf = game.rules
    won = st.winner()
    ended = game._replace(phase=over(game, now), winner=won)
    pack = tuple(game.names[s] for s, r in enumerate(st.roles) if r == WOLF)
    text = texts.VILLAGE_WINS if won == VILLAGE else texts.WOLVES_WIN
    seq = ended.phase.seq
    events.append(announce(msg(text, names=pack), seq))
    events.extend((Event(Kind.OVER, phase=seq), Event(Kind.CHANGED, phase=seq)))
    return accepted(ended, tuple(events))


def end_phase(game: Game, now: float) -> Accepted[Game]:
    name = game.phase.name
    if name == NIGHT:
        return close_night(game, now)
    if name == DAY:
        return open_vote(game, VOTE, now, [])
    if name in (VOTE, REVOTE):
        return close_vote(game, now)
    raise ValueError(f"no phase {name!r} in Werewolf")
