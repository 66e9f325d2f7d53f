"""Station's reveal at the end (issue #32): what the TV's end screen shows, as
lines every player gets on their own channel.

The full form follows the end screen (gameflow/games/station/tv.py `_end`) from
the same state: the winner, parts and damage, both teams by name, each round's
plan, result, secret actions (sabotage, the trap card and whether it was set)
and what the vote did, and the fair-deal seed. `brief` is the SMS form, one text
of at most 3 segments at 15 players: the winner, the infiltrators (the rest were
loyal), who sabotaged in which rounds, the traps set (as far as the text stays
within that SMS), and the seed; the end screen's link carries the rest. Pure:
the state in, `Msg`s out. `story` is the same, round by round, for the
story page (adapters/story): each round's secret actions apart from its vote.
"""

from __future__ import annotations

from typing import Final

from gameflow.core.definition import Chapter, Part, Story
from gameflow.core.ending import NOBODY as _NOBODY
from gameflow.core.ending import Winners, names, sides
from gameflow.core.state import Game
from gameflow.core.text import N_, Item, Msg, msg
from gameflow.games.station.state import (
    INFILTRATORS,
    LOYAL,
    NOBODY,
    RoundRecord,
    Station,
)

_WINNERS: Final = Winners(
    won={LOYAL: N_("Winners: the loyal crew."), INFILTRATORS: N_("Winners: the infiltrators.")},
    none=N_("The host ended the game: no team won."),
    brief={
        LOYAL: N_("The loyal crew won. Infiltrators: {names}; the rest were loyal."),
        INFILTRATORS: N_("The infiltrators won: {names}; the rest were loyal."),
    },
    brief_none=N_("No team won. Infiltrators: {names}; the rest were loyal."),
)
# What one SMS may hold of the brief: 3 segments of 153 GSM-7 characters, less
# the end screen's link line under it (adapters/status_link.py: its words, at most
# 53 characters in sr, and a link of about 75: a base address and a 43-character token).
BRIEF_BUDGET: Final = 3 * 153 - 130
# The words of each brief line beside its names and numbers, at most, in nb, sr
# or en (with the line's break): the winners and infiltrators, the sabotage,
# the traps, the seed.
_HEAD, _SABOTAGE, _TRAPS, _SEED = 60, 25, 25, 10
_SUCCESS: Final = msg(N_("success"))
_FAILURE: Final = msg(N_("failure"))


def reveal(game: Game, brief: bool) -> tuple[Msg, ...]:
    """The lines of the end's reveal; () before the end or for a game never dealt."""
    st: Station | None = game.rules
    if not game.over or st is None:
        return ()
    return _brief(game, st) if brief else _full(game, st)


def _full(game: Game, st: Station) -> tuple[Msg, ...]:
    loyal, bad = sides(st.infiltrator)
    cfg = st.config
    lines = [
        _WINNERS.head(game),
        msg(
            N_("Parts sent: {parts} of {target}. Damage: {damage} of {limit}."),
            parts=st.parts,
            target=cfg.target,
            damage=st.damage,
            limit=cfg.limit,
        ),
        msg(N_("The loyal crew: {names}."), names=names(game, loyal)),
        msg(N_("The infiltrators: {names}."), names=names(game, bad)),
    ]
    lines.extend(_round(game, rec, cfg.rounds) for rec in st.history)
    lines.append(msg(N_("Fair deal: seed {seed}"), seed=game.seed))
    return tuple(lines)


def _round(game: Game, rec: RoundRecord, rounds: int) -> Msg:
    """One round as the end screen's row: secret actions first, then the vote."""
    return msg(
        N_("Round {round} (plan {plan}): {result}; {events}."),
        round=rec.round,
        plan=rec.plan + 1,
        result=_SUCCESS if rec.success else _FAILURE,
        events=(*_secret(game, rec), *_public(game, rec, rounds)),
    )


def _secret(game: Game, rec: RoundRecord) -> list[Msg]:
    """A round's secret actions: who sabotaged, who held or set the trap card."""
    name = game.names
    acts: list[Msg] = []
    for s, c in enumerate(rec.choices):
        if c is not None and c.sabotage:
            acts.append(msg(N_("{name} sabotaged"), name=name[s]))
    trap = rec.trap
    if trap is not None:
        mine = rec.choices[trap.by] if trap.by < len(rec.choices) else None
        set_ = mine is not None and mine.trap
        acts.append(
            msg(
                N_("{by} set the trap for {victim}")
                if set_
                else N_("{by} held the trap card for {victim}"),
                by=name[trap.by],
                victim=name[trap.victim],
            )
        )
    return acts


def _public(game: Game, rec: RoundRecord, rounds: int) -> list[Msg]:
    """What a round's vote did, and the trap's victim."""
    name = game.names
    acts: list[Msg] = []
    if rec.checked != NOBODY:
        acts.append(msg(N_("{name} was checked"), name=name[rec.checked]))
    elif rec.out != NOBODY:
        acts.append(msg(N_("{name} was voted out"), name=name[rec.out]))
    elif rec.round == rounds:
        acts.append(msg(N_("nobody was checked")))
    else:
        acts.append(msg(N_("nobody was voted out")))
    if rec.hit is not None:
        hit = (
            N_("the trap killed {name}")
            if rec.hit.effect == "killed"
            else N_("the trap injured {name}")
        )
        acts.append(msg(hit, name=name[rec.hit.seat]))
    return acts


def _brief(game: Game, st: Station) -> tuple[Msg, ...]:
    """The winners and the infiltrators; who sabotaged in which rounds; the
    traps set, as far as the text stays within one SMS beside the link; the seed."""
    name = game.names
    _, bad = sides(st.infiltrator)
    lines = [_WINNERS.brief_head(game, bad)]
    sabotage: dict[int, list[int]] = {}
    traps: list[Item] = []
    more = _TRAPS
    cost = _cost(_HEAD, [name[s] for s in bad]) + _cost(_SEED, [game.seed])
    for rec in st.history:
        for s, c in enumerate(rec.choices):
            if c is not None and c.sabotage:
                sabotage.setdefault(s, []).append(rec.round)
        trap = rec.trap
        if trap is not None and (c := rec.choices[trap.by]) is not None and c.trap:
            by, victim = name[trap.by], name[trap.victim]
            traps.append(
                msg(N_("{by} for {victim} ({round})"), by=by, victim=victim, round=rec.round)
            )
            more += len(by) + len(victim) + 12  # its words, the round, the comma
    if sabotage:
        items = tuple(
            msg(N_("{name} ({rounds})"), name=name[s], rounds=tuple(r))
            for s, r in sorted(sabotage.items())
        )
        lines.append(msg(N_("Sabotage (rounds): {items}."), items=items))
        cost += _cost(_SABOTAGE, [name[s] for s in sabotage], sum(map(len, sabotage.values())))
    else:
        lines.append(msg(N_("Nobody sabotaged.")))
        cost += _SABOTAGE
    # The seed before the traps: a text cut at its end to fit keeps the seed.
    lines.append(msg(N_("Seed: {seed}."), seed=game.seed))
    if traps and cost + more <= BRIEF_BUDGET:
        lines.append(msg(N_("Traps set (round): {items}."), items=tuple(traps)))
    return tuple(lines)


def _cost(words: int, names: list[str], numbers: int = 0) -> int:
    """At most what a brief line of `words` listing `names` (and `numbers` round
    numbers) takes: its words, each name and its comma, each number and its comma."""
    return words + sum(len(n) + 2 for n in names) + 4 * numbers


def story(game: Game) -> Story | None:
    """The ended game round by round (issue #32, item 6): the end's head lines,
    every player's role and fate, each round's secret actions apart from its
    plan, result, vote and trap, and the seed. None before the end."""
    st: Station | None = game.rules
    if not game.over or st is None:
        return None
    full = _full(game, st)
    rounds = st.config.rounds
    fates: dict[int, list[Msg]] = {}
    for rec in st.history:
        if rec.out != NOBODY:
            fates.setdefault(rec.out, []).append(
                msg(N_("voted out in round {round}"), round=rec.round)
            )
        if rec.hit is not None:
            fate = (
                N_("killed by the trap in round {round}")
                if rec.hit.effect == "killed"
                else N_("injured by the trap in round {round}")
            )
            fates.setdefault(rec.hit.seat, []).append(msg(fate, round=rec.round))
    cast = tuple(
        Part(
            game.names[s],
            msg(N_("infiltrator") if st.infiltrator[s] else N_("loyal crew")),
            st.infiltrator[s],
            tuple(fates.get(s, ())),
        )
        for s in range(len(game.players))
    )
    chapters = tuple(
        Chapter(
            msg(
                N_("Round {round}: {mission}"),
                round=rec.round,
                mission=msg(st.missions[(rec.round - 1) % len(st.missions)]),
            ),
            tuple(_secret(game, rec)),
            (
                msg(
                    N_("Plan {plan} was played: {result}."),
                    plan=rec.plan + 1,
                    result=_SUCCESS if rec.success else _FAILURE,
                ),
                msg(
                    N_("Parts sent: {parts} of {target}. Damage: {damage} of {limit}."),
                    parts=rec.parts,
                    target=st.config.target,
                    damage=rec.damage,
                    limit=st.config.limit,
                ),
                *_votes(game, rec.votes),
                *_public(game, rec, rounds),
            ),
        )
        for rec in st.history
    )
    return Story(full[:2], cast, chapters, game.seed)


def _votes(game: Game, votes: tuple[int | None, ...]) -> list[Msg]:
    """A round's tally, one line per target with its voters, most votes first."""
    by: dict[int, list[str]] = {}
    for voter, target in enumerate(votes):
        if target is not None:
            by.setdefault(target, []).append(game.names[voter])
    return [
        msg(
            N_("Votes for {target}: {voters}."),
            target=_NOBODY if t == NOBODY else game.names[t],
            voters=tuple(v),
        )
        for t, v in sorted(by.items(), key=lambda kv: -len(kv[1]))
    ]
