"""The plot deck and the hero cards, as data.

The plot deck is the 15-card deck of the digest (The Resistance, 2nd edition):
each kind with its copies, its timing and its translatable name. The reduced
deck for 5–6 players is a [decision] of the digest; the option `plot_deck`
picks `auto` (reduced for 5–6, full for 7+), `full` or `reduced`.

Hero cards are table challenges without game effect. They are plain text, one
per line, in a per-language file shipped in the package (`heroes/heroes_<lang>.txt`);
the host replaces them with the `hero_cards` option (one card per line).
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Final, NamedTuple

from gameflow.core.text import N_

IMMEDIATE: Final = "immediate"
KEPT: Final = "kept"
PERMANENT: Final = "permanent"

STRONG_LEADER: Final = "strong_leader"
NO_CONFIDENCE: Final = "no_confidence"
KEEPING_CLOSE_EYE: Final = "keeping_close_eye"
IN_THE_SPOTLIGHT: Final = "in_the_spotlight"
OPINION_MAKER: Final = "opinion_maker"
TAKE_RESPONSIBILITY: Final = "take_responsibility"
OVERHEARD_CONVERSATION: Final = "overheard_conversation"
ESTABLISH_CONFIDENCE: Final = "establish_confidence"
OPEN_UP: Final = "open_up"


class PlotCard(NamedTuple):
    id: str
    name: str  # msgid
    copies: int  # in the full deck
    reduced: int  # in the 5–6 player deck
    timing: str
    effect: str  # msgid: the card's text for help screens


PLOT_CARDS: tuple[PlotCard, ...] = (
    PlotCard(
        STRONG_LEADER,
        N_("Strong Leader"),
        2,
        2,
        KEPT,
        N_("At the start of a round, before plot cards are dealt, become the leader."),
    ),
    PlotCard(
        NO_CONFIDENCE,
        N_("No Confidence"),
        3,
        1,
        KEPT,
        N_("Right after a team is approved, veto it: it counts as a rejected team."),
    ),
    PlotCard(
        KEEPING_CLOSE_EYE,
        N_("Keeping a Close Eye on You"),
        2,
        2,
        KEPT,
        N_("During a mission, privately see the mission card of one team member."),
    ),
    PlotCard(
        IN_THE_SPOTLIGHT,
        N_("In the Spotlight"),
        1,
        0,
        KEPT,
        N_("After a team is approved, one team member's mission card is shown to everyone."),
    ),
    PlotCard(
        OPINION_MAKER,
        N_("Opinion Maker"),
        2,
        1,
        PERMANENT,
        N_("You must vote on every team before anyone else, and your vote is shown at once."),
    ),
    PlotCard(
        TAKE_RESPONSIBILITY,
        N_("Take Responsibility"),
        1,
        1,
        IMMEDIATE,
        N_("Take one plot card from another player."),
    ),
    PlotCard(
        OVERHEARD_CONVERSATION,
        N_("Overheard Conversation"),
        2,
        0,
        IMMEDIATE,
        N_("Privately see the team of one of your two neighbours."),
    ),
    PlotCard(
        ESTABLISH_CONFIDENCE,
        N_("Establish Confidence"),
        1,
        0,
        IMMEDIATE,
        N_("The leader's team is shown to you privately."),
    ),
    PlotCard(
        OPEN_UP,
        N_("Open Up"),
        1,
        0,
        IMMEDIATE,
        N_("Show your team privately to a player of your choice."),
    ),
)

CARDS: dict[str, PlotCard] = {c.id: c for c in PLOT_CARDS}
CARD_IDS: tuple[str, ...] = tuple(c.id for c in PLOT_CARDS)

# Kept cards are played in the phase named here; immediate cards needing a
# choice are played in the proposal phase they were dealt in.
PLAY_PHASE: dict[str, str] = {
    STRONG_LEADER: "proposal",
    NO_CONFIDENCE: "mission",
    KEEPING_CLOSE_EYE: "mission",
    IN_THE_SPOTLIGHT: "mission",
}
MISSION_CARDS: Final = (NO_CONFIDENCE, IN_THE_SPOTLIGHT, KEEPING_CLOSE_EYE)
CHOICE_CARDS: Final = (TAKE_RESPONSIBILITY, OVERHEARD_CONVERSATION, OPEN_UP)
# Cards whose use reveals information privately: their plays are never announced.
SECRET_CARDS: Final = (KEEPING_CLOSE_EYE, OVERHEARD_CONVERSATION, ESTABLISH_CONFIDENCE, OPEN_UP)

DECKS: Final = ("auto", "full", "reduced")


def deck_for(players: int, kind: str) -> tuple[str, ...]:
    """The unshuffled deck: `auto` is reduced for 5–6 players, full for 7+."""
    reduced = kind == "reduced" or (kind == "auto" and players <= 6)
    return tuple(c.id for c in PLOT_CARDS for _ in range(c.reduced if reduced else c.copies))


@cache
def shipped_heroes(lang: str) -> tuple[str, ...]:
    """The hero cards shipped for `lang` (English if there is no list for it)."""
    folder = resources.files(__package__).joinpath("heroes")
    path = folder.joinpath(f"heroes_{lang}.txt")
    if not path.is_file():
        path = folder.joinpath("heroes_en.txt")
    return parse_heroes(path.read_text(encoding="utf-8"))


def parse_heroes(text: str) -> tuple[str, ...]:
    """One card per line; blank lines and lines starting with # are skipped."""
    lines = (line.strip() for line in text.splitlines())
    return tuple(line for line in lines if line and not line.startswith("#"))
