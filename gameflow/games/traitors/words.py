"""The Traitors' words: what the channels and the TV page say of it besides
what its rules say (its definition, `GAME` in __init__.py: gameflow/core/definition.py).

Its words: the titles and headings of its questions on Telegram (the silver
relay, the round table, the night), and what each of the game master's
actions does (`ACTION_HELP`).
"""

from __future__ import annotations

from typing import Final

from gameflow.core.campaign import CAMPAIGN_HELP
from gameflow.core.definition import Words
from gameflow.core.legal import ActionSpec
from gameflow.core.state import Game
from gameflow.core.text import N_, Msg
from gameflow.games.traitors.tv import SCREEN_TEXTS

# One line on each option (docs/rules/traitors.md has the details).
OPTION_HELP: Final = {
    "table_talk": N_(
        "a fast game's players talk to the whole table through the bot (a campaign's always may)"
    ),
    **CAMPAIGN_HELP,
    "missions": N_("who runs the day's mission: host (you), or built in: builtin, relay or chests"),
    "dagger": N_("the dagger is in play"),
    "dagger_with_shield": N_(
        "the dagger lies in the shield's box (whoever wins the shield holds it)"
    ),
    "second_tie_excludes_all": N_("a re-vote that ties again excludes every player it was over"),
    "recruit": N_("the traitors may recruit a loyal player instead of murdering"),
    "death_list": N_("the death list is in play"),
    "final_day": N_("the day of the final round table; 0: by the table size"),
    "traitors": N_("how many traitors; 0: as the rules' table says"),
    "death_list_size": N_("how many names the death list holds"),
    "plea_seconds": N_("how long a tied player has for their plea"),
    "campaign_breakfast": N_("campaign: breakfast, the clock time the night ends"),
    "campaign_shield_room": N_(
        "campaign: the clock time the mission ends and the shield room opens"
    ),
    "campaign_roundtable": N_("campaign: the clock time the round table opens"),
    "campaign_roundtable_end": N_("campaign: the clock time the round table closes"),
    "campaign_night": N_("campaign: the clock time the night begins"),
    "campaign_revote": N_("campaign: how long a re-vote lasts"),
    "campaign_end_vote": N_("campaign: how long the final's end vote lasts"),
    "campaign_first_mission": N_(
        "campaign: how long day 1's mission needs at the start, else day 1 is tomorrow"
    ),
    "fast_mission": N_("how long the mission lasts (when pacing is fast)"),
    "fast_shield_room": N_("how long the shield room lasts (when pacing is fast)"),
    "fast_roundtable": N_("how long the round table lasts (when pacing is fast)"),
    "fast_revote": N_("how long a re-vote lasts (when pacing is fast)"),
    "fast_night": N_("how long the night lasts (when pacing is fast)"),
    "fast_end_vote": N_("how long the final's end vote lasts (when pacing is fast)"),
    "reminder_before": N_("how long before a deadline the reminder goes (when pacing is fast)"),
    "auto_advance": N_("a phase ends early once everyone has answered (when pacing is fast)"),
}


# The game master's actions: what each one does, one line each (Telegram's /gm
# and the console; docs/rules/traitors.md "The game master").
ACTION_HELP: Final = {
    "score": N_(
        "Records today's real-life mission: the silver it earned for the pot and "
        "who enters the shield room. You can score again until the mission ends."
    ),
    "murder_free": N_(
        "Nobody is murdered tonight; the whole table is told at once. It cannot be taken back."
    ),
    "forbid_murder": N_(
        "Vetoes tonight's murder while the death list is in play; only the traitors are told."
    ),
    "death_list_on": N_(
        "Tonight the traitors write a death list; it is published at breakfast "
        "and the next night's murder must come from it."
    ),
    "recruit": N_(
        "Allows or stops recruitment: tempting a loyal player, and forcing one by a "
        "lone traitor, from the next night."
    ),
    "dagger": N_("Puts the dagger in or out of play from the next shield room; the table is told."),
    "final": N_("Brings the final round table forward: today, or tomorrow when called at night."),
}


def _title(game: Game, spec: ActionSpec) -> Msg | None:
    """The mission's second question, the three chests, has a title of its own."""
    if spec.kind == "mission" and spec.field("chest") is not None:
        return Msg(N_("Three chests: open one."))
    return None


# The TV screen's own labels, by key (its template's and tv.py's `t(key)`),
# beside the page's (adapters/tv/texts.py).
TV_TEXTS: Final = {
    "day_of": N_("Day {day} of {days}"),
    "day_final": N_("Day {day}: the final day"),
    "silver": N_("{n} silver"),
    "pot": N_("The pot"),
    "mission_host": N_("Today's mission"),
    "mission_earned": N_("The mission earned {n} silver."),
    "shield_room": N_("The shield room"),
    "shield_access": N_("Access"),
    "roundtable": N_("The round table"),
    "revote": N_("A tie: pleas and a new vote"),
    "candidates": N_("Candidates"),
    "roundtable_hint": N_(
        "Everyone votes on their phone for the player to banish. "
        "The votes are read out when all are in."
    ),
    "night": N_("Night falls. Everyone sleeps."),
    "end_vote": N_("End the game, or banish one more?"),
    "death_list": N_("The death list"),
    "in_the_game": N_("In the game"),
    "murdered": N_("Murdered"),
    "banished": N_("Banished"),
    "traitor": N_("traitor"),
    "faithful": N_("faithful"),
    "traitors_won": N_("The traitors won"),
    "faithful_won": N_("The faithful won"),
    "pot_split": N_("The pot of {pot} silver is split: {share} silver each"),
}


WORDS: Final = Words(
    name=N_("Traitors"),
    aliases=("traitors", "forraedere", "forraederne", "izdajnici"),
    keyword=N_("TRAITORS"),
    send_labels={
        "mission": N_("Hand over the bag"),
        "tempt": N_("Send the letter"),
        "force": N_("Force this player"),
    },
    titles={
        "mission": N_("The silver relay: hand your bag of silver to another player."),
        "vote": N_("Round table: vote to banish a player."),
        "plea": N_("You are tied: the table hears your plea before the re-vote."),
        "murder": N_("Night: choose whom the traitors murder."),
        "tempt": N_("Night: tempt a loyal player to join the traitors."),
        "force": N_("Night: force a loyal player to join you."),
        "death_list": N_("Night: write the death list."),
        "answer": N_("The traitors want you on their side."),
        "end_vote": N_("The final: do you trust everyone left?"),
    },
    title_of=_title,
    headings={
        ("mission", "to"): N_("Hand your bag to:"),
        ("mission", "drop"): N_("Drop the bag instead? (costs the pot 10 silver)"),
        ("mission", "chest"): N_("Choose a chest:"),
        ("vote", "for"): N_("Banish:"),
        ("vote", "dagger"): N_("Lay down the dagger? (this vote counts twice)"),
        ("murder", "target"): N_("Murder:"),
        ("tempt", "target"): N_("Tempt:"),
        ("force", "target"): N_("Force:"),
        ("answer", "accept"): N_("Do you accept?"),
        ("end_vote", "end"): N_("End the game now? Yes: you believe no traitor is left."),
    },
    sms_kind_names={
        "mission": N_("Hand over the bag"),
        "plea": N_("Plea"),
        "murder": N_("Murder"),
        "tempt": N_("Tempt"),
        "force": N_("Force"),
        "death_list": N_("Death list"),
        "answer": N_("Answer"),
        "end_vote": N_("End vote"),
        "score": N_("Score the mission"),
        "murder_free": N_("Murder-free night"),
        "forbid_murder": N_("Forbid the murder"),
        "death_list_on": N_("Play the death list"),
        "recruit": N_("Recruitment"),
        "dagger": N_("Dagger in play"),
        "final": N_("Call the final round table"),
    },
    action_help=ACTION_HELP,
    tv_texts={**TV_TEXTS, **SCREEN_TEXTS},
    kind_labels={
        "death_list": N_("Write the death list"),
        "plea": N_("Make my plea"),
        "murder": N_("Murder"),
        "tempt": N_("Tempt"),
        "force": N_("Force"),
        "answer": N_("Answer"),
        "end_vote": N_("End vote"),
        "mission": N_("Mission"),
        "score": N_("Score the mission"),
        "murder_free": N_("Murder-free night"),
        "forbid_murder": N_("Forbid tonight's murder"),
        "death_list_on": N_("Play the death list"),
        "play_death_list": N_("Play the death list"),
        "recruit": N_("Recruitment"),
        "dagger": N_("Dagger in play"),
        "final": N_("Call the final round table"),
        "call_final": N_("Call the final round table"),
    },
    field_headings={
        "accept": N_("Do you accept?"),
        "end": N_("End the game now?"),
        "chest": N_("Choose a chest:"),
        "drop": N_("Drop the bag?"),
        "silver": N_("Silver the mission earned:"),
        "access": N_("Who gets access? Pick, then tap Done:"),
        "allow": N_("Allow recruitment?"),
        "on": N_("Put the dagger in play?"),
    },
    sms_field_names={
        "chest": N_("Open chest"),
        "accept": N_("Accept the offer"),
        "end": N_("End the game now"),
        "silver": N_("silver"),
        "access": N_("access"),
        "allow": N_("Allow recruitment"),
        "on": N_("Dagger in play"),
        "mission.to": N_("Hand your bag to"),
        "murder.target": N_("Murder"),
        "tempt.target": N_("Tempt"),
        "force.target": N_("Force"),
    },
    # SMS menu entries: "1 Vote + name 2 Vote, with the dagger + name".
    bool_words={
        ("drop", True): N_("drop it"),
        ("drop", False): "",
        ("dagger", True): N_("with the dagger"),
        ("dagger", False): "",
    },
)
