"""The Resistance's words: what the channels and the TV page say of it besides
what its rules say (its definition, `GAME` in __init__.py: gameflow/core/definition.py).

Its words: a question's title and headings on Telegram, and the plot and
mission cards by name wherever a card is offered (a heading names the card
being given or played, a plot card's one button names it).
"""

from __future__ import annotations

from typing import Final

from gameflow.core.campaign import CAMPAIGN_HELP
from gameflow.core.definition import Words
from gameflow.core.text import N_
from gameflow.games.resistance.cards import CARDS
from gameflow.games.resistance.texts import CARD_TEXT
from gameflow.games.resistance.tv import SCREEN_TEXTS

# One line on each option (docs/rules/resistance.md has the details).
OPTION_HELP: Final = {
    "proposal_seconds": N_("how long the leader has to propose a team (when pacing is fast)"),
    "vote_seconds": N_("how long the vote on the team lasts (when pacing is fast)"),
    "mission_seconds": N_("how long the mission lasts (when pacing is fast)"),
    "reminder_before": N_("how long before a deadline the reminder goes (when pacing is fast)"),
    "auto_advance": N_("a phase ends early once everyone has answered"),
    "plot_cards": N_("the plot cards are in play"),
    "plot_deck": N_("which plot cards are dealt: auto (by the table size), full or reduced"),
    "heroes": N_("the hero add-on is in play"),
    "hero_cards": N_('your own hero cards, one per line; "" for the shipped list'),
    "spies": N_("how many spies; 0: as the rules' table says"),
    "double_fail": N_("mission 4 needs two fail cards at 7 or more players"),
    "max_rejections": N_("rejected teams in a row that win the game for the spies"),
    "table_talk": N_(
        "a fast game's players talk to the whole table through the bot (a campaign's always may)"
    ),
    "team_talk": N_("the spies talk privately through the bot (TEAM, /team)"),
    **CAMPAIGN_HELP,
    "campaign_proposal_1": N_("campaign: the clock time the day's first proposal closes"),
    "campaign_vote_1": N_("campaign: the clock time the day's first vote closes"),
    "campaign_proposal_2": N_("campaign: the clock time the day's second proposal closes"),
    "campaign_vote_2": N_("campaign: the clock time the day's second vote closes"),
    "campaign_proposal_3": N_("campaign: the clock time the day's third proposal closes"),
    "campaign_vote_3": N_("campaign: the clock time the day's third vote closes"),
    "campaign_mission": N_("campaign: the clock time the mission closes"),
}

# The TV screen's own labels, by key (its template's and tv.py's `t(key)`),
# beside the page's (adapters/tv/texts.py).
TV_TEXTS: Final = {
    "resistance": N_("Resistance"),
    "mission_n": N_("Mission {n}"),
    "two_fails": N_("2 fails needed"),
    "leader": N_("Leader"),
    "vote_track": N_("Rejected teams"),
    "leader_picks": N_("{leader} picks a team of {size}"),
    "vote_on_team": N_("Vote on the team: approve or reject"),
    "team_on_mission": N_("The team is on the mission"),
    "proposed_team": N_("Team"),
    "opinion_makers": N_("Opinion makers"),
    "approve": N_("approves"),
    "reject": N_("rejects"),
    "team_approved": N_("Team approved ({yes} of {count})"),
    "team_rejected": N_("Team rejected ({yes} of {count})"),
    "vetoed_by": N_("vetoed by {name}"),
    "mission_n_ok": N_("Mission {n} succeeded"),
    "mission_n_failed": N_("Mission {n} failed"),
    "spotlight": N_("In the spotlight"),
    "plot_cards": N_("Plot cards in play"),
    "resistance_won": N_("The resistance won"),
    "spies_won": N_("The spies won"),
    "spies": N_("Spies"),
}


WORDS: Final = Words(
    name=N_("Resistance"),
    aliases=("resistance", "motstand", "motstandsbevegelsen", "otpor"),
    keyword=N_("RESISTANCE"),
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
    tv_texts={**TV_TEXTS, **SCREEN_TEXTS},
    kind_labels={
        "propose": N_("Propose a team"),
        "give": N_("Give a card"),
        "pass": N_("Pass"),
        "mission": N_("Mission"),
        "play": N_("Play a card"),
    },
    field_headings={
        "approve": N_("Approve the team?"),
    },
    sms_kind_names={
        "propose": N_("Propose a team"),
        "give": N_("Give a card"),
        "mission": N_("Mission card"),
        "pass": N_("Pass"),
    },
    sms_field_names={
        "approve": N_("Approve the team"),
        "mission.card": N_("Mission card"),
        "give.to": N_("Give it to"),
    },
)
