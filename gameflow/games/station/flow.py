"""Station's phases: the deal, each round's start, and the end of each phase.

mission -> discussion -> vote, every round. The mission's end computes the
result; the vote's end sends a player out (or, in the last round, checks one and
recomputes), applies the trap, records the round and decides the game.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any, Final

from gameflow.core import campaign
from gameflow.core.events import Event, Kind, announce, prompt, tell
from gameflow.core.phases import enter, over
from gameflow.core.result import Accepted, Rejected, reject
from gameflow.core.rng import rng_for
from gameflow.core.state import Game
from gameflow.core.text import N_, Msg, msg, nmsg
from gameflow.games.station import pacing, texts
from gameflow.games.station.mission import resolve
from gameflow.games.station.staffing import draw_plans
from gameflow.games.station.state import (
    DISCUSSION,
    INFILTRATORS,
    JOBS,
    LOYAL,
    MISSION,
    NOBODY,
    RADIO,
    REVEAL_ALL,
    REVEAL_PLAYED,
    VOTE,
    WORKER_JOBS,
    Config,
    Hit,
    Outcome,
    Plan,
    RoundRecord,
    Station,
    Trap,
)
from gameflow.games.station.tally import last_tally, tally_text, votes_text
from gameflow.games.station.texts import JOB_NAMES, MISSIONS, PROFESSIONS

# players: (rounds, target, damage limit, death cap)
BRACKETS: Final = ((7, (6, 8, 4, 1)), (11, (7, 9, 5, 2)), (15, (8, 10, 6, 3)))


def infiltrator_count(players: int) -> int:
    """The digest's table: 5–6: 2, 7–9: 3, 10–12: 4, 13–15: 5."""
    return 2 if players <= 6 else 3 if players <= 9 else 4 if players <= 12 else 5


def config_for(game: Game) -> Config:
    n = len(game.players)
    rounds, target, limit, cap = next(b for top, b in BRACKETS if n <= top)
    return Config(
        rounds=rounds,
        target=target,
        limit=limit,
        death_cap=cap,
        injury_first=n <= 6,
        mission_seconds=float(game.option("mission_seconds")),
        discussion_seconds=float(game.option("discussion_seconds")),
        vote_seconds=float(game.option("vote_seconds")),
        traps=bool(game.option("traps")),
    )


def start(game: Game, now: float) -> Accepted[Game] | Rejected:
    n = len(game.players)
    setup: dict[str, Any] = json.loads(game.setup)
    fixed_roles = setup.get("roles")
    if fixed_roles is not None:
        unknown = sorted(set(fixed_roles) - set(game.players))
        bad = sorted(r for r in fixed_roles.values() if r not in ("infiltrator", "loyal"))
        if unknown or bad:
            return reject("bad_setup", N_("The fixed deal names unknown players or roles."))
        infiltrator = tuple(fixed_roles.get(p) == "infiltrator" for p in game.players)
    else:
        k = int(game.option("infiltrators")) or infiltrator_count(n)
        if not 0 < k < n / 2:
            return reject("bad_setup", N_("The infiltrators must be fewer than half the players."))
        chosen = set(rng_for(game.seed, "station/roles").sample(range(n), k))
        infiltrator = tuple(i in chosen for i in range(n))
    if game.option("reveal_guards", REVEAL_PLAYED) not in (REVEAL_PLAYED, REVEAL_ALL):
        return reject("bad_setup", N_("The option reveal_guards is played or all."))
    try:
        campaign.validate(game)
    except ValueError:
        return reject("bad_setup", N_("Some of this game's settings can't be used."))
    config = config_for(game)
    st = Station(
        config=config,
        infiltrator=infiltrator,
        professions=tuple(rng_for(game.seed, "station/professions").sample(PROFESSIONS, n)),
        missions=tuple(rng_for(game.seed, "station/missions").sample(MISSIONS, config.rounds)),
        dead=(False,) * n,
        fixture=json.dumps(setup.get("rounds", {}), sort_keys=True),
    )
    game = game._replace(rules=st, missed=(0,) * n, options=campaign.held_options(game))
    seq = game.phase.seq + 1
    events: list[Event] = [
        announce(
            msg(
                N_(
                    "The game has started: {count} players, {rounds} rounds, "
                    "target {target} parts, the station breaks at {limit} damage."
                ),
                count=n,
                rounds=config.rounds,
                target=config.target,
                limit=config.limit,
            ),
            seq,
        )
    ]
    mates = tuple(game.names[i] for i in range(n) if infiltrator[i])
    for i, player in enumerate(game.players):
        job = st.professions[i]
        # The role card names the team's goal (docs/rules/station.md, The end).
        if infiltrator[i]:
            text = msg(
                texts.INFILTRATOR_CARD,
                profession=Msg(job),
                names=mates,
            )
        else:
            text = msg(
                N_(
                    "You are LOYAL crew ({profession}). Goal: {target} parts before the station "
                    "breaks. Find the infiltrators."
                ),
                profession=Msg(job),
                target=config.target,
            )
        events.append(tell(player, text, seq, secret=True))
    return start_round(game, 1, now, events)


def start_round(game: Game, r: int, now: float, events: list[Event]) -> Accepted[Game]:
    """Deal round `r`: plans, private guard cards, the trap card; prompt the active.

    One generator per round makes every draw in a fixed order (plans, cards,
    trap); the plans are drawn even when the script fixes them, so fixing one
    thing never shifts another draw.
    """
    st: Station = game.rules
    n = len(game.players)
    fixed: dict[str, Any] = json.loads(st.fixture).get(str(r), {}) if st.fixture != "{}" else {}
    alive = [s for s in range(n) if not st.dead[s]]
    rng = rng_for(game.seed, f"station/round/{r}")
    plans = draw_plans(rng, len(alive), table=n)
    if "plans" in fixed:
        plans = tuple(Plan(**p) for p in fixed["plans"])
    active = [s for s in alive if not (s == st.out and r == st.out_round)]
    order = list(active)
    rng.shuffle(order)
    cards = [NOBODY] * n
    for i, s in enumerate(order):
        cards[s] = i % len(plans)
    trap = _draw_trap(rng, st, r, active)
    if "trap" in fixed:
        t = fixed["trap"]
        trap = None if t is None else Trap(game.seat(t["by"]), game.seat(t["victim"]), t["job"])
    st = st._replace(
        plans=plans,
        cards=tuple(cards),
        trap=trap,
        active_seats=tuple(active),
        choices=(None,) * n,
        votes=(None,) * n,
        outcome=None,
        before=(st.parts, st.damage),
    )
    seconds, st = pacing.mission(game, st, now)
    phase, timers = enter(game, MISSION, r, seconds, now)
    seq = phase.seq
    title = Msg(st.missions[(r - 1) % len(st.missions)])
    events.append(
        announce(
            msg(
                texts.ROUND_OF,
                round=r,
                rounds=st.config.rounds,
                mission=title,
            ),
            seq,
        )
    )
    for s in active:
        player = game.players[s]
        p = cards[s]
        guards = plans[p].guards
        text = nmsg(
            "Your card: plan {plan} needs {n} guard.",
            "Your card: plan {plan} needs {n} guards.",
            guards,
            plan=p + 1,
            guards=guards,
        )
        events.append(Event(Kind.TELL, player, text, seq, None, True))
        if trap is not None and trap.by == s:
            events.append(
                tell(
                    player,
                    msg(
                        texts.TRAP_CARD,
                        victim=game.names[trap.victim],
                        job=Msg(JOB_NAMES[trap.job]),
                    ),
                    seq,
                    secret=True,
                )
            )
        events.append(Event(Kind.PROMPT, player, None, seq))
    events.extend(timers)
    events.append(Event(Kind.CHANGED, None, None, seq))
    return Accepted(game._replace(rules=st, phase=phase), tuple(events))


def _draw_trap(rng: random.Random, st: Station, r: int, active: list[int]) -> Trap | None:
    """From round 2, one random active infiltrator gets a trap card, while a hit
    can still injure or kill someone."""
    cfg = st.config
    if not cfg.traps or r < 2:
        return None
    if not ((cfg.injury_first and not st.injury_used) or st.deaths < cfg.death_cap):
        return None
    setters = [s for s in active if st.infiltrator[s]]
    victims = [s for s in active if not st.infiltrator[s]]
    if not setters or not victims:
        return None
    by, victim = rng.choice(setters), rng.choice(victims)
    job = RADIO if (st.injured == victim and st.injured_round == r) else rng.choice(WORKER_JOBS)
    return Trap(by, victim, job)


def end_phase(game: Game, now: float) -> Accepted[Game]:
    name = game.phase.name
    if name == MISSION:
        return _end_mission(game, now)
    if name == DISCUSSION:
        return _open_vote(game, now)
    return _end_vote(game, now)


def _score(before: tuple[int, int], outcome: Outcome, plans: tuple[Plan, ...]) -> tuple[int, int]:
    parts, damage = before
    if outcome.success:
        return parts + plans[outcome.plan].reward, damage
    return max(0, parts - 1), damage + 1


def _end_mission(game: Game, now: float) -> Accepted[Game]:
    st: Station = game.rules
    outcome = resolve(st.plans, st.choices, st.trap)
    parts, damage = _score(st.before, outcome, st.plans)
    st = st._replace(outcome=outcome, parts=parts, damage=damage)
    seconds = pacing.seconds(game, DISCUSSION, st.config.discussion_seconds, now)
    phase, timers = enter(game, DISCUSSION, game.phase.round, seconds, now)
    seq = phase.seq
    needed = st.plans[outcome.plan].guards  # the seed reveals the played plan's need
    if outcome.success:
        text = nmsg(
            "Plan {plan} succeeded (it needed {n} guard): {parts} of {target} parts, "
            "damage {damage} of {limit}.",
            "Plan {plan} succeeded (it needed {n} guards): {parts} of {target} parts, "
            "damage {damage} of {limit}.",
            needed,
            plan=outcome.plan + 1,
            parts=parts,
            target=st.config.target,
            damage=damage,
            limit=st.config.limit,
        )
    else:
        # A plan that needs nobody on the radio says nothing of it ("radio 2/0" read
        # as a shortfall); the radio count is still a parameter, as in the other form.
        text = msg(
            N_(
                "Plan {plan} failed: outside {outside}/{outside_needed}, radio {radio}/{radio_needed}, "
                "guards {guards} (it needed {needed}). {parts} of {target} parts, "
                "damage {damage} of {limit}."
            )
            if outcome.radio_needed
            else N_(
                "Plan {plan} failed: outside {outside}/{outside_needed}, "
                "guards {guards} (it needed {needed}). {parts} of {target} parts, "
                "damage {damage} of {limit}."
            ),
            plan=outcome.plan + 1,
            outside=outcome.outside,
            outside_needed=outcome.outside_needed,
            radio=outcome.radio,
            radio_needed=outcome.radio_needed,
            guards=Msg(N_("enough") if outcome.guards_ok else N_("too few")),
            needed=needed,
            parts=parts,
            target=st.config.target,
            damage=damage,
            limit=st.config.limit,
        )
    events = [announce(text, seq)]
    if damage >= st.config.limit and game.phase.round < st.config.rounds:
        events.append(
            announce(msg(N_("The station is destroyed. The game ends after the vote.")), seq)
        )
    events.extend(timers)
    events.append(Event(Kind.CHANGED, phase=seq))
    return Accepted(game._replace(rules=st, phase=phase), tuple(events))


def _open_vote(game: Game, now: float) -> Accepted[Game]:
    st: Station = game.rules
    r = game.phase.round
    phase, timers = enter(
        game, VOTE, r, pacing.seconds(game, VOTE, st.config.vote_seconds, now), now
    )
    seq = phase.seq
    text = vote_question(game, r)
    events: list[Event] = [announce(text, seq)]
    events.extend(prompt(game.players[s], seq) for s in range(len(game.players)) if st.active(s, r))
    events.extend(timers)
    events.append(Event(Kind.CHANGED, phase=seq))
    return Accepted(game._replace(phase=phase), tuple(events))


def vote_winner(votes: tuple[int | None, ...], voters: list[int]) -> int:
    """Most votes wins with at least 2; "Ingen" (NOBODY) is an option like any
    other, a missing vote counts as Ingen, and a tie means nobody."""
    counts = Counter(NOBODY if votes[s] is None else votes[s] for s in voters)
    if not counts:
        return NOBODY
    ranked = counts.most_common(2)
    top, most = ranked[0]
    if most < 2 or (len(ranked) > 1 and ranked[1][1] == most):
        return NOBODY
    return int(top) if top is not None else NOBODY


_SIT_OUT: Final = msg(N_("Vote: who sits out the next round?"))
_CHECK: Final = msg(N_("Last vote: choose one player to check."))


def vote_question(game: Game, r: int) -> Msg:
    """What the vote of round `r` decides: announced, and the context of each
    voter's question (the very same line, so a channel can send it once)."""
    st: Station = game.rules
    return _CHECK if r == st.config.rounds else _SIT_OUT


def _end_vote(game: Game, now: float) -> Accepted[Game]:
    st: Station = game.rules
    r = game.phase.round
    cfg = st.config
    n = len(game.players)
    winner = vote_winner(st.votes, [s for s in range(n) if st.active(s, r)])
    last = r == cfg.rounds
    seq = game.phase.seq
    events: list[Event] = []
    if game.option("open_votes", True):
        events.append(announce(votes_text(game, st, r), seq))
    outcome = st.outcome
    assert outcome is not None
    out = checked = NOBODY
    if last:
        checked = winner
        if checked != NOBODY:
            outcome = resolve(st.plans, st.choices, st.trap, checked)
            parts, damage = _score(st.before, outcome, st.plans)
            st = st._replace(outcome=outcome, parts=parts, damage=damage)
            events.append(
                announce(
                    msg(
                        N_(
                            "{name} was checked. The result is recomputed: {parts} parts, "
                            "damage {damage}."
                        ),
                        name=game.names[checked],
                        parts=parts,
                        damage=damage,
                    ),
                    seq,
                )
            )
        else:
            events.append(announce(msg(N_("Nobody was checked.")), seq))
    elif winner != NOBODY:
        out = winner
        st = st._replace(out=out, out_round=r + 1)
        if st.damage >= cfg.limit:  # the game ends after this vote: no next round
            text = msg(N_("{name} is voted out."), name=game.names[out])
            events.append(announce(text, seq))
        else:
            text = msg(texts.SITS_OUT, name=game.names[out])
            events.append(announce(text, seq))
            events.append(
                tell(
                    game.players[out],
                    msg(texts.YOU_SIT_OUT),
                    seq,
                )
            )
    else:
        events.append(announce(msg(N_("Nobody is voted out.")), seq))
    hit: Hit | None = None
    if outcome.hit and st.trap is not None:
        st, hit = _apply_hit(st, st.trap.victim, r)
        if hit is not None:
            name = game.names[hit.seat]
            text = (
                msg(
                    N_("{name} walked into a trap and is injured: no outside job next round."),
                    name=name,
                )
                if hit.effect == "injured"
                else msg(N_("{name} walked into a trap and is dead."), name=name)
            )
            events.append(announce(text, seq))
    record = RoundRecord(
        r,
        outcome.plan,
        outcome.success,
        st.parts,
        st.damage,
        out,
        checked,
        hit,
        st.plans,
        st.choices,
        st.votes,
        outcome,
        st.trap,
    )
    st = st._replace(history=(*st.history, record))
    game = game._replace(rules=st)
    if st.damage >= cfg.limit or last:
        won = LOYAL if (st.damage < cfg.limit and st.parts >= cfg.target) else INFILTRATORS
        ended = game._replace(phase=over(game, now), winner=won)
        # The winner and the reveal of the infiltrators in one line (one SMS segment).
        bad = tuple(game.names[s] for s in range(n) if st.infiltrator[s])
        text = (
            msg(
                N_("The loyal crew wins with {parts} parts sent! The infiltrators were: {names}."),
                parts=st.parts,
                names=bad,
            )
            if won == LOYAL
            else msg(N_("The infiltrators win! They were: {names}."), names=bad)
        )
        events.append(announce(text, ended.phase.seq))
        events.extend(
            (Event(Kind.OVER, phase=ended.phase.seq), Event(Kind.CHANGED, phase=ended.phase.seq))
        )
        return Accepted(ended, tuple(events))
    return start_round(game, r + 1, now, events)


def _apply_hit(st: Station, victim: int, r: int) -> tuple[Station, Hit | None]:
    cfg = st.config
    if cfg.injury_first and not st.injury_used:
        return st._replace(injured=victim, injured_round=r + 1, injury_used=True), Hit(
            victim, "injured"
        )
    if st.deaths < cfg.death_cap and not st.dead[victim]:
        dead = (*st.dead[:victim], True, *st.dead[victim + 1 :])
        return st._replace(dead=dead, deaths=st.deaths + 1), Hit(victim, "killed")
    return st, None


__all__ = ["JOBS", "end_phase", "last_tally", "start", "tally_text", "vote_winner", "votes_text"]
