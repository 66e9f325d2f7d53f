"""Resistance's small shared texts: team and card words used inside messages."""

from __future__ import annotations

from typing import Final

from gameflow.core.text import N_, Msg, msg
from gameflow.games.resistance.cards import CARDS
from gameflow.games.resistance.state import FAIL, RESISTANCE, SPIES, SUCCESS

TEAM_TEXT: dict[str, str] = {
    RESISTANCE: N_("a member of the resistance"),
    SPIES: N_("a spy"),
}

CARD_TEXT: dict[str, str] = {
    SUCCESS: N_("Success"),
    FAIL: N_("Fail"),
}

APPROVE: Final = N_("approve")
REJECT: Final = N_("reject")


def team_of(spy: bool) -> str:
    return SPIES if spy else RESISTANCE


def team_msg(spy: bool) -> Msg:
    return msg(TEAM_TEXT[team_of(spy)])


# Msg is immutable: the fixed words are built once, not on every vote.
_CARD_NAMES: Final = {card: msg(spec.name) for card, spec in CARDS.items()}
_MISSION_CARDS: Final = {card: msg(text) for card, text in CARD_TEXT.items()}
_VOTES: Final = {True: msg(APPROVE), False: msg(REJECT)}
NO_ONE: Final = msg(N_("no one"))


def card_name(card: str) -> Msg:
    return _CARD_NAMES[card]


def mission_card(card: str) -> Msg:
    return _MISSION_CARDS[card]


def vote_msg(approve: bool) -> Msg:
    return _VOTES[approve]
