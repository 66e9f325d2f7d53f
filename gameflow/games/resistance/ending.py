"""The Resistance's reveal at the end (issue #32): what the TV's end screen
shows, as lines every player gets on their own channel.

The full form follows the end screen (gameflow/games/resistance/tv.py) from the
same state: the winner, both sides by name, each mission's team and result with
who played Fail (`MissionRecord.failed_by`), the plot cards played each mission
and what their secret ones showed to whom, and the fair-deal seed. `brief` is the
SMS form, one text of at most 3 segments at 10 players: the winner, the spies
(the rest were the resistance), who played Fail on which mission, and the seed;
the end screen's link carries the rest. Pure: the state in, `Msg`s out.
"""

from __future__ import annotations

from typing import Final

from gameflow.core.state import Game
from gameflow.core.text import N_, Msg, msg, nmsg
from gameflow.games.resistance.cards import KEEPING_CLOSE_EYE, OPEN_UP, OVERHEARD_CONVERSATION
from gameflow.games.resistance.state import (
    NOBODY,
    RESISTANCE,
    SPIES,
    MissionRecord,
    Resistance,
)
from gameflow.games.resistance.texts import TEAM_TEXT, card_name, mission_card

# One item of a listed parameter (a name, or a Msg), joined with ", ".
Item = Msg | str | int

_WINNER: Final = {
    RESISTANCE: N_("Winners: the resistance."),
    SPIES: N_("Winners: the spies."),
}
_NO_WINNER: Final = N_("The host ended the game: no side won.")
_BRIEF: Final = {
    RESISTANCE: N_("The resistance won. Spies: {names}; the rest were the resistance."),
    SPIES: N_("The spies won: {names}; the rest were the resistance."),
}
_BRIEF_NO_WINNER: Final = N_("No side won. Spies: {names}; the rest were the resistance.")
_NOBODY: Final = msg(N_("nobody"))
# Plot cards whose play names its target only to the players involved: the
# reveal tells what they showed, from what the players learned.
_SECRET_PLAYS: Final = frozenset({KEEPING_CLOSE_EYE, OVERHEARD_CONVERSATION, OPEN_UP})


def reveal(game: Game, brief: bool) -> tuple[Msg, ...]:
    """The lines of the end's reveal; () before the end or for a game never dealt."""
    st: Resistance | None = game.rules
    if not game.over or st is None:
        return ()
    return _brief(game, st) if brief else _full(game, st)


def _names(game: Game, seats: list[int] | tuple[int, ...]) -> tuple[Item, ...]:
    return tuple(game.names[s] for s in seats) if seats else (_NOBODY,)


def _sides(game: Game, st: Resistance) -> tuple[list[int], list[int]]:
    seats = range(len(game.players))
    return [s for s in seats if not st.spy[s]], [s for s in seats if st.spy[s]]


def _full(game: Game, st: Resistance) -> tuple[Msg, ...]:
    good, spies = _sides(game, st)
    lines = [
        msg(_WINNER[game.winner]) if game.winner in _WINNER else msg(_NO_WINNER),
        msg(N_("The resistance: {names}."), names=_names(game, good)),
        msg(N_("The spies: {names}."), names=_names(game, spies)),
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
        fails = msg(N_("Fail played by {names}"), names=_names(game, rec.failed_by))
    elif rec.fails:  # a game saved before the record kept who played it
        fails = nmsg("{n} fail card", "{n} fail cards", rec.fails)
    else:
        fails = msg(N_("no fail card"))
    return msg(
        N_("Mission {mission} ({team}) succeeded; {fails}.")
        if rec.success
        else N_("Mission {mission} ({team}) failed; {fails}."),
        mission=rec.mission,
        team=_names(game, rec.team),
        fails=fails,
    )


def _plots(game: Game, st: Resistance) -> dict[int, list[Item]]:
    """Each mission's plot cards: the public plays, then what the secret ones
    (and Establish Confidence, given) showed to whom."""
    name = game.names
    out: dict[int, list[Item]] = {}
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
        out.setdefault(use.mission, []).append(item)
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
            out.setdefault(f.mission, []).append(item)
    return out


def _plot_line(mission: int, items: list[Item]) -> Msg:
    return msg(N_("Plot cards, mission {mission}: {items}."), mission=mission, items=tuple(items))


def _brief(game: Game, st: Resistance) -> tuple[Msg, ...]:
    _, spies = _sides(game, st)
    head = _BRIEF.get(game.winner or "", _BRIEF_NO_WINNER)
    lines = [msg(head, names=_names(game, spies))]
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
