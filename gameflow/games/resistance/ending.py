"""The Resistance's reveal at the end (issue #32): what the TV's end screen
shows, as lines every player gets on their own channel.

The full form follows the end screen (gameflow/games/resistance/tv.py) from the
same state: the winner, both sides by name, each mission's team and result with
who played Fail (`MissionRecord.failed_by`), the plot cards played each mission
and what their secret ones showed to whom, and the fair-deal seed. `brief` is the
SMS form, one text of at most 3 segments at 10 players: the winner, the spies
(the rest were the resistance), who played Fail on which mission, and the seed;
the end screen's link carries the rest. Pure: the state in, `Msg`s out.
`story` is the same, mission by mission, for the story page (adapters/story):
the secret Fail cards and plot cards apart from the proposals, votes and results.
"""

from __future__ import annotations

from typing import Final

from gameflow.core.definition import Chapter, Part, Story
from gameflow.core.ending import Winners, names, sides
from gameflow.core.state import Game
from gameflow.core.text import N_, Item, Msg, msg, nmsg
from gameflow.games.resistance.cards import KEEPING_CLOSE_EYE, OPEN_UP, OVERHEARD_CONVERSATION
from gameflow.games.resistance.state import (
    NOBODY,
    RESISTANCE,
    SPIES,
    MissionRecord,
    Resistance,
    TeamVote,
)
from gameflow.games.resistance.texts import TEAM_TEXT, card_name, mission_card

_WINNERS: Final = Winners(
    won={RESISTANCE: N_("Winners: the resistance."), SPIES: N_("Winners: the spies.")},
    none=N_("The host ended the game: no side won."),
    brief={
        RESISTANCE: N_("The resistance won. Spies: {names}; the rest were the resistance."),
        SPIES: N_("The spies won: {names}; the rest were the resistance."),
    },
    brief_none=N_("No side won. Spies: {names}; the rest were the resistance."),
)
# Plot cards whose play names its target only to the players involved: the
# reveal tells what they showed, from what the players learned.
_SECRET_PLAYS: Final = frozenset({KEEPING_CLOSE_EYE, OVERHEARD_CONVERSATION, OPEN_UP})


def reveal(game: Game, brief: bool) -> tuple[Msg, ...]:
    """The lines of the end's reveal; () before the end or for a game never dealt."""
    st: Resistance | None = game.rules
    if not game.over or st is None:
        return ()
    return _brief(game, st) if brief else _full(game, st)


def _full(game: Game, st: Resistance) -> tuple[Msg, ...]:
    good, spies = sides(st.spy)
    lines = [
        _WINNERS.head(game),
        msg(N_("The resistance: {names}."), names=names(game, good)),
        msg(N_("The spies: {names}."), names=names(game, spies)),
    ]
    plots = _plots(game, st)
    for rec in st.results:
        lines.append(_mission(game, rec))
        if rec.mission in plots:
            lines.append(_plot_line(rec.mission, plots.pop(rec.mission)))
    lines.extend(_plot_line(m, items) for m, items in sorted(plots.items()))
    lines.append(msg(N_("Fair deal: seed {seed}"), seed=game.seed))
    return tuple(lines)


def _mission(game: Game, rec: MissionRecord) -> Msg:
    """One mission: its team, its result, and who played Fail."""
    if rec.failed_by:
        fails = msg(N_("Fail played by {names}"), names=names(game, rec.failed_by))
    elif rec.fails:  # a game saved before the record kept who played it
        fails = nmsg("{n} fail card", "{n} fail cards", rec.fails)
    else:
        fails = msg(N_("no fail card"))
    return msg(
        N_("Mission {mission} ({team}) succeeded; {fails}.")
        if rec.success
        else N_("Mission {mission} ({team}) failed; {fails}."),
        mission=rec.mission,
        team=names(game, rec.team),
        fails=fails,
    )


def _plots(game: Game, st: Resistance) -> dict[int, list[Item]]:
    """Each mission's plot cards: the public plays, then what the secret ones
    (and Establish Confidence, given) showed to whom."""
    out: dict[int, list[Item]] = {}
    for mission, item in (*_plays(game, st), *_learned(game, st)):
        out.setdefault(mission, []).append(item)
    return out


def _plays(game: Game, st: Resistance) -> list[tuple[int, Msg]]:
    """The plot cards played in the open, by mission."""
    name = game.names
    out: list[tuple[int, Msg]] = []
    for use in st.plot_log:
        if use.dealt or use.card in _SECRET_PLAYS:
            continue
        card = card_name(use.card)
        item = (
            msg(N_("{name} played {card}"), name=name[use.by], card=card)
            if use.target == NOBODY
            else msg(
                N_("{name} played {card} on {target}"),
                name=name[use.by],
                card=card,
                target=name[use.target],
            )
        )
        out.append((use.mission, item))
    return out


def _learned(game: Game, st: Resistance) -> list[tuple[int, Msg]]:
    """What the secret plot cards (and Establish Confidence) showed to whom, by mission."""
    name = game.names
    out: list[tuple[int, Msg]] = []
    for seat, facts in enumerate(st.knowledge):
        for f in facts:
            if f.card == KEEPING_CLOSE_EYE:
                item = msg(
                    N_("{name} saw the mission card of {about}: {value}"),
                    name=name[seat],
                    about=name[f.about],
                    value=mission_card(f.value),
                )
            else:
                item = msg(
                    N_("{card}: {name} learned that {about} is {team}"),
                    card=card_name(f.card),
                    name=name[seat],
                    about=name[f.about],
                    team=msg(TEAM_TEXT[f.value]),
                )
            out.append((f.mission, item))
    return out


def _plot_line(mission: int, items: list[Item]) -> Msg:
    return msg(N_("Plot cards, mission {mission}: {items}."), mission=mission, items=tuple(items))


def _brief(game: Game, st: Resistance) -> tuple[Msg, ...]:
    _, spies = sides(st.spy)
    lines = [_WINNERS.brief_head(game, spies)]
    failed: dict[int, list[int]] = {}
    for rec in st.results:
        for s in rec.failed_by:
            failed.setdefault(s, []).append(rec.mission)
    if failed:
        items = tuple(
            msg(N_("{name} ({missions})"), name=game.names[s], missions=tuple(m))
            for s, m in sorted(failed.items())
        )
        lines.append(msg(N_("Fail cards (mission): {items}."), items=items))
    elif not any(rec.fails for rec in st.results):
        lines.append(msg(N_("Nobody played a fail card.")))
    lines.append(msg(N_("Seed: {seed}."), seed=game.seed))
    return tuple(lines)


def story(game: Game) -> Story | None:
    """The ended game mission by mission (issue #32, item 6): the end's head
    line, every player's side, each mission's secret cards (who played Fail,
    what the secret plot cards showed) apart from its proposals, votes, open
    plot cards and result, and the seed. None before the end."""
    st: Resistance | None = game.rules
    if not game.over or st is None:
        return None
    cast = tuple(
        Part(game.names[s], msg(N_("spy") if st.spy[s] else N_("resistance")), st.spy[s])
        for s in range(len(game.players))
    )
    plays, learned = _plays(game, st), _learned(game, st)
    chapters = []
    for rec in st.results:
        m = rec.mission
        secret = [msg(N_("Fail played by {names}"), names=names(game, rec.failed_by))]
        if not rec.failed_by:
            secret = [] if not rec.fails else [nmsg("{n} fail card", "{n} fail cards", rec.fails)]
        secret.extend(item for at, item in learned if at == m)
        fails = (
            nmsg("{n} fail card", "{n} fail cards", rec.fails)
            if rec.fails
            else msg(N_("no fail card"))
        )
        public = [_proposed(game, p) for p in st.proposals if p.mission == m]
        public.extend(item for at, item in plays if at == m)
        public.append(
            msg(
                N_("Mission {mission} ({team}) succeeded; {fails}.")
                if rec.success
                else N_("Mission {mission} ({team}) failed; {fails}."),
                mission=m,
                team=names(game, rec.team),
                fails=fails,
            )
        )
        chapters.append(
            Chapter(msg(N_("Mission {mission}"), mission=m), tuple(secret), tuple(public))
        )
    return Story(_full(game, st)[:1], cast, tuple(chapters), game.seed)


def _proposed(game: Game, rec: TeamVote) -> Msg:
    """One proposal: its leader and team, the votes for and against, a veto."""
    yes = [s for s, v in enumerate(rec.votes) if v is True]
    no = [s for s, v in enumerate(rec.votes) if v is False]
    text = (
        N_("{leader} proposed {team}: approved (for: {yes}; against: {no}).")
        if rec.approved
        else N_("{leader} proposed {team}: rejected (for: {yes}; against: {no}).")
    )
    line = msg(
        text,
        leader=game.names[rec.leader],
        team=names(game, rec.team),
        yes=names(game, yes),
        no=names(game, no),
    )
    if rec.vetoed_by == NOBODY:
        return line
    veto = msg(N_("{name} vetoed the team."), name=game.names[rec.vetoed_by])
    return msg(N_("{line} {veto}"), line=line, veto=veto)
