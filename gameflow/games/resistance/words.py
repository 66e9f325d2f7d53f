"""The Resistance's words: what the channels and the TV page say of it besides
what its rules say (its definition, `GAME` in __init__.py: gameflow/core/definition.py).

Its words: a question's title and headings on Telegram, and the plot and
mission cards by name wherever a card is offered (a heading names the card
being given or played, a plot card's one button names it).
"""

from __future__ import annotations

from typing import Final

from gameflow.core.definition import Words
from gameflow.core.text import N_
from gameflow.games.resistance.cards import CARDS
from gameflow.games.resistance.texts import CARD_TEXT

WORDS: Final = Words(
    name=N_("Resistance"),
    aliases=("resistance", "motstand", "motstandsbevegelsen", "otpor"),
    send_labels={"play": N_("Play the card")},
    titles={
        "propose": N_("You lead: pick the team for the mission."),
        "give": N_("You lead: give a plot card to another player."),
        "vote": N_("Vote on the proposed team."),
        "mission": N_("You are on the mission: choose your card."),
        "play": N_("You may play a plot card now."),
        "pass": N_("You may play a plot card now."),
    },
    headings={
        ("give", "card"): N_("Choose the card to give:"),
        ("mission", "card"): N_("Your mission card:"),
    },
    card_headings={
        ("give", "to"): N_("Give {card} to:"),
        ("play", "target"): N_("Play {card} on:"),
    },
    card_buttons=frozenset({"play"}),
    card_names={**{card: spec.name for card, spec in CARDS.items()}, **CARD_TEXT},
)
