"""Werewolf's words: its name, SMS aliases, and the titles, headings and
SMS names of its four questions (gameflow/core/definition.py `Words`)."""

from __future__ import annotations

from typing import Final

from gameflow.core.campaign import CAMPAIGN_HELP
from gameflow.core.definition import Words
from gameflow.core.text import N_
from gameflow.games.werewolf.tv import SCREEN_TEXTS

OPTION_HELP: Final = {
    "night_seconds": N_("how long the night lasts (when pacing is fast)"),
    "day_seconds": N_("how long the day's talk lasts (when pacing is fast)"),
    "vote_seconds": N_("how long the lynch vote (and a re-vote) lasts (when pacing is fast)"),
    "reminder_before": N_("how long before a deadline the reminder goes (when pacing is fast)"),
    "auto_advance": N_("a vote ends early once everyone has voted (a night never does)"),
    "wolves": N_("how many werewolves; 0: as the rules' table says"),
    "reveal_dead": N_("the role of a player killed at night is shown"),
    "revote": N_("a tied lynch vote is voted again among the tied, once"),
    "doctor_repeat": N_("the doctor may protect the same player two nights running"),
    "team_talk": N_("the werewolves talk privately through the bot at night (TEAM, /team)"),
    **CAMPAIGN_HELP,
    "campaign_night": N_("campaign: the clock time the night closes"),
    "campaign_day": N_("campaign: the clock time the day's talk closes"),
    "campaign_vote": N_("campaign: the clock time the lynch vote closes"),
}

WORDS: Final = Words(
    name=N_("Werewolf"),
    aliases=("werewolf", "varulv", "vukodlak", "vukodlaci", "mafija"),
    keyword=N_("WEREWOLF"),
    titles={
        "kill": N_("Whom do the werewolves kill?"),
        "inspect": N_("Whose side do you look at?"),
        "protect": N_("Whom do you protect tonight?"),
        "lynch": N_("Whom does the village lynch?"),
    },
    kind_labels={
        "kill": N_("Kill"),
        "inspect": N_("Look"),
        "protect": N_("Protect"),
        "lynch": N_("Lynch"),
    },
    sms_kind_names={
        "kill": N_("kill"),
        "inspect": N_("look"),
        "protect": N_("protect"),
        "lynch": N_("lynch"),
    },
    tv_texts=SCREEN_TEXTS,
)
