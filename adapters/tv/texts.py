"""Every text the TV page shows, as English gettext msgids (domain `tv`).

Templates name texts by key (`t("round_of", round=2, rounds=6)`); the msgids
live here so Babel extracts them from one place into
`gameflow/i18n/locales/<lang>/LC_MESSAGES/tv.po`. Plural texts are small
functions, since `nmsg` needs its two literals at the call site.
"""

from __future__ import annotations

from gameflow.core.text import N_, Msg, nmsg

TEXTS: dict[str, str] = {
    # page frame
    "page_title": N_("Muldvarp – main screen"),
    "link_gone": N_("This TV link is not valid (any more). Ask the host for a new one."),
    "paused": N_("Paused"),
    # the Resistance's team on its end screen (the game's name is its definition's)
    "resistance": N_("Resistance"),
    # lobby
    "join_code": N_("Join code"),
    "scan_to_join": N_("Scan to join on Telegram"),
    "sms_join": N_("No Telegram? Join by SMS:"),
    # TRANSLATORS: what a player texts to join. Keep {code} as it is; the
    # first word must be this language's SMS join word (docs/sms.md: JOIN,
    # DELTA, UĐI), and the last is a stand-in for the player's own name.
    "sms_join_text": N_("JOIN {code} name"),
    "sms_to": N_("to {number}"),
    "awaiting": N_("Waiting for"),
    "waiting_for_host": N_("Waiting for the host to start the game"),
    "nobody_yet": N_("Nobody has joined yet."),
    # phases
    "phase_lobby": N_("Lobby"),
    "phase_mission": N_("Mission"),
    "phase_discussion": N_("Result and discussion"),
    "phase_vote": N_("Vote"),
    "phase_over": N_("Game over"),
    # station: track and counters
    "round_of": N_("Round {round} of {rounds}"),
    "last_round": N_("Last round"),
    "parts": N_("Parts sent"),
    "parts_of": N_("{parts} of {target}"),
    "damage": N_("Damage"),
    "damage_of": N_("{damage} of {limit}"),
    "ready_of": N_("{ready} of {active} ready"),
    "success_mark": N_("success"),
    "failure_mark": N_("failure"),
    # station: plans
    "plan_n": N_("Plan {n}"),
    "outside": N_("Outside"),
    "radio": N_("Radio"),
    "guards": N_("Guards needed"),
    "guards_hidden": N_("secret"),
    "chosen_plan": N_("Chosen plan"),
    # station: result
    "mission_succeeded": N_("The mission succeeded"),
    "mission_failed": N_("The mission failed"),
    "covered_of": N_("{covered} of {needed}"),
    "short": N_("short"),
    "enough": N_("enough"),
    "guards_enough": N_("Enough working guards"),
    "guards_short": N_("Too few working guards"),
    "who_did_what": N_("Who did what"),
    "no_partner": N_("no partner"),
    # station: vote
    "vote_question": N_("Vote: who sits out the next round?"),
    "check_question": N_("Last vote: whom do we check?"),
    "previous_round": N_("Round {round}"),
    "sits_out_now": N_("{name} was voted out and sits out this round."),
    "voted_out": N_("{name} was voted out."),
    "checked": N_("{name} was checked."),
    "nobody_out": N_("Nobody was voted out."),
    "nobody_checked": N_("Nobody was checked."),
    "vote_nobody": N_("Nobody"),
    "blank_votes": N_("Blank and missing votes count for nobody; it takes at least 2 votes."),
    "hit_injured": N_("{name} was injured by a trap."),
    "hit_killed": N_("{name} was killed by a trap."),
    # station: table
    "crew": N_("The crew"),
    "sitting_out": N_("sits out"),
    "dead": N_("dead"),
    "injured": N_("injured"),
    # end
    "loyal_won": N_("The loyal crew won"),
    "infiltrators_won": N_("The infiltrators won"),
    "host_ended": N_("The host ended the game"),
    "loyal": N_("Loyal"),
    "infiltrators": N_("Infiltrators"),
    "rounds": N_("The rounds"),
    "sabotaged": N_("sabotaged"),
    "set_trap": N_("set the trap"),
    "trap_on": N_("trap card: {by} against {victim}"),
    "seed": N_("Fair deal: seed {seed}"),
    # resistance
    "phase_proposal": N_("Team proposal"),
    "phase_team_vote": N_("Team vote"),
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
    # traitors
    "phase_shield_room": N_("Shield room"),
    "phase_roundtable": N_("Round table"),
    "phase_revote": N_("Re-vote"),
    "phase_night": N_("Night"),
    "phase_answer": N_("Night"),
    "phase_end_vote": N_("End or continue?"),
    "day_of": N_("Day {day} of {days}"),
    "day_final": N_("Day {day}: the final day"),
    "silver": N_("{n} silver"),
    "pot": N_("The pot"),
    "mission_relay": N_("Mission: the silver relay"),
    "mission_chests": N_("Mission: three chests"),
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
    # every game
    "players": N_("Players"),
    # a campaign's calendar (adapters/tv/ics.py) and the page's link to it
    # TRANSLATORS: a calendar event: {game} is the game's name, {phase} a
    # phase's name from above ("Vote"); the phase ends at the event's time.
    "ics_summary": N_("{game}: {phase} closes"),
    # TRANSLATORS: the calendar's name in a calendar app; {game} is the game's name.
    "ics_calendar": N_("{game} – deadlines"),
    "ics_link": N_("Add the deadlines to your calendar"),
}


def players_joined(n: int) -> Msg:
    return nmsg("{n} player has joined", "{n} players have joined", n)


def votes_for(n: int) -> Msg:
    return nmsg("{n} vote", "{n} votes", n)


def parts_reward(n: int) -> Msg:
    return nmsg("+{n} part", "+{n} parts", n)


def players(n: int) -> Msg:
    return nmsg("{n} player", "{n} players", n)


def fails(n: int) -> Msg:
    return nmsg("{n} fail", "{n} fails", n)


PLURALS = {
    "players_joined": players_joined,
    "votes": votes_for,
    "parts_reward": parts_reward,
    "players": players,
    "fails": fails,
}
