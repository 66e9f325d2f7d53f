"""Shorter SMS forms of a few game texts.

SMS costs money per segment (issue #16: at most five a player-round in a
7-player Station game), and what a text says at one moment is read on a small
screen. The game's texts are written for the TV and Telegram; a few that every
player gets every round have a shorter SMS form with the same parameters
(the game's `short_forms`: "Round 2/6: …" for "Round 2 of 6: …"), and a vote's
tally, which there names every voter, is counted by the game's `sms_counted`.
Who voted for whom is then one text away: VOTES (STEMMER, GLASOVI) answers
with the last tally in full (`adapters.sms.inbound`). A campaign, a round a day
with players at home and no table to look around, keeps the names
(`names_in_tally`).
"""

from __future__ import annotations

from gameflow.core import registry
from gameflow.core.events import Event, Kind
from gameflow.core.state import Game
from gameflow.core.text import N_, Msg

# Said once, with the first round's result, where it costs no segment of its own.
HINT = N_("Text VOTES to see who voted for whom.")
NO_TALLY = N_("No vote to show yet.")


def names_in_tally(game: Game) -> bool:
    """Whether `game`'s SMS tallies name the voters: in a campaign, or with the
    option `sms_vote_names`."""
    return bool(game.option("sms_vote_names", False) or game.option("pacing") == "campaign")


# The shorter SMS forms of a game's texts of every round (same parameters,
# fewer words), and the private lines that say all a public one says to their
# recipient (the voted-out player's own «You sit out…» stands for the table's
# «Bo sits out…»): the game's definition holds both, keyed by msgid
# (gameflow/core/definition.py `Words.short_forms`, `Words.supersedes`).


def superseded(events: tuple[Event, ...], who: str) -> frozenset[str]:
    """The msgids of public texts that `who`'s own lines in `events` stand for
    (any game's: a msgid belongs to one game)."""
    supersedes = {k: v for g in registry.all_games() for k, v in g.words.supersedes.items()}
    return frozenset(
        supersedes[e.text.msgid]
        for e in events
        if e.kind is Kind.TELL and e.to == who and e.text is not None and e.text.msgid in supersedes
    )


def form(game: Game, text: Msg) -> Msg:
    """`text` as an SMS says it."""
    words = registry.get(game.kind).words
    if words.sms_counted is not None and not names_in_tally(game):
        counted = words.sms_counted(text)
        if counted is not text:
            return counted
    short = words.short_forms.get(text.msgid)
    if short is None:
        return text
    return short._replace(params=text.params, n=text.n)


def hint(game: Game, events: tuple[Event, ...]) -> Msg | None:
    """The VOTES hint, for the commit that opens the first round's discussion
    (its result: just before the first vote, and a short text) of a game whose
    SMS tallies are counts; None for any other commit."""
    if registry.get(game.kind).last_tally is None or names_in_tally(game):
        return None
    if game.phase.round != 1 or game.phase.name != "discussion":
        return None
    entered = any(e.kind is Kind.CHANGED and e.phase == game.phase.seq for e in events)
    return Msg(HINT) if entered else None


def recap(game: Game) -> Msg:
    """What VOTES answers: the newest vote's tally with every voter's name."""
    last_tally = registry.get(game.kind).last_tally
    found = last_tally(game) if last_tally is not None else None
    return found if found is not None else Msg(NO_TALLY)
