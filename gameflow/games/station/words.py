"""Station's words: what the channels and the TV page say of it besides
what its rules say (its definition, `GAME` in __init__.py: gameflow/core/definition.py).

The words here are Station's own: a question's title and headings on Telegram,
the jobs and secret actions on a button or in an SMS menu, and the shorter SMS
forms of the texts every player gets every round.
"""

from __future__ import annotations

from typing import Final

from gameflow.core.campaign import CAMPAIGN_HELP
from gameflow.core.definition import Words
from gameflow.core.legal import ActionSpec
from gameflow.core.state import Game
from gameflow.core.text import N_, Msg, msg, nmsg
from gameflow.games.station import texts
from gameflow.games.station.actions import Choose
from gameflow.games.station.counted import counted
from gameflow.games.station.tv import SCREEN_TEXTS

ROUND_CHOICE: Final = N_("Round {round}: make your choice.")

# One line on each option (docs/rules/station.md has the details).
OPTION_HELP: Final = {
    "mission_seconds": N_("how long the mission lasts (when pacing is fast)"),
    "discussion_seconds": N_("how long the result and the discussion last (when pacing is fast)"),
    "vote_seconds": N_("how long the vote lasts (when pacing is fast)"),
    "reminder_before": N_("how long before a deadline the reminder goes (when pacing is fast)"),
    "auto_advance": N_("a phase ends early once everyone has answered"),
    "open_votes": N_("who voted for whom is announced after each vote"),
    "traps": N_("infiltrators may set traps"),
    "infiltrators": N_("how many infiltrators; 0: as the rules' table says"),
    "reveal_guards": N_(
        "after a mission, the guards needed by the played plan only (played) or by all three (all)"
    ),
    "sms_vote_names": N_(
        "an SMS tally names every voter each round (else counts; VOTES gives the names)"
    ),
    "table_talk": N_(
        "a fast game's players talk to the whole table through the bot (a campaign's always may)"
    ),
    "team_talk": N_("the infiltrators talk privately through the bot (TEAM, /team)"),
    **CAMPAIGN_HELP,
    "campaign_mission": N_("campaign: the clock time the mission closes"),
    "campaign_discussion": N_("campaign: the clock time the discussion closes"),
    "campaign_vote": N_("campaign: the clock time the vote closes"),
}


def _title(game: Game, spec: ActionSpec) -> Msg | None:
    if spec.kind == Choose.kind:
        return msg(ROUND_CHOICE, round=game.phase.round)
    return None


def _question(game: Game, spec: ActionSpec) -> tuple[Msg, ...]:
    """A choice's lines: the round, then the round's plans as the player sees them."""
    if spec.kind != Choose.kind:
        return ()
    plans = tuple(
        msg(
            N_("Plan {plan}: reward {reward}, outside {outside}, radio {radio}"),
            plan=i + 1,
            reward=p.reward,
            outside=p.outside,
            radio=p.radio,
        )
        for i, p in enumerate(game.rules.plans)
    )
    return (msg(ROUND_CHOICE, round=game.phase.round), *plans)


# The TV screen's own labels, by key (its template's and tv.py's `t(key)`),
# beside the page's (adapters/tv/texts.py).
TV_TEXTS: Final = {
    "round_of": N_("Round {round} of {rounds}"),
    "last_round": N_("Last round"),
    "parts": N_("Parts sent"),
    "parts_of": N_("{parts} of {target}"),
    "damage": N_("Damage"),
    "damage_of": N_("{damage} of {limit}"),
    "success_mark": N_("success"),
    "failure_mark": N_("failure"),
    "plan_n": N_("Plan {n}"),
    "outside": N_("Outside"),
    "radio": N_("Radio"),
    "guards": N_("Guards needed"),
    "guards_hidden": N_("secret"),
    "chosen_plan": N_("Chosen plan"),
    "mission_succeeded": N_("The mission succeeded"),
    "mission_failed": N_("The mission failed"),
    "covered_of": N_("{covered} of {needed}"),
    "short": N_("short"),
    "enough": N_("enough"),
    "guards_enough": N_("Enough working guards"),
    "guards_short": N_("Too few working guards"),
    "who_did_what": N_("Who did what"),
    "no_partner": N_("no partner"),
    "vote_question": N_("Vote: who sits out the next round?"),
    "check_question": N_("Last vote: whom do we check?"),
    "previous_round": N_("Round {round}"),
    "sits_out_now": N_("{name} was voted out and sits out this round."),
    "voted_out": N_("{name} was voted out."),
    "checked": N_("{name} was checked."),
    "nobody_out": N_("Nobody was voted out."),
    "nobody_checked": N_("Nobody was checked."),
    "blank_votes": N_("Blank and missing votes count for nobody; it takes at least 2 votes."),
    "hit_injured": N_("{name} was injured by a trap."),
    "hit_killed": N_("{name} was killed by a trap."),
    "crew": N_("The crew"),
    "sitting_out": N_("sits out"),
    "dead": N_("dead"),
    "injured": N_("injured"),
    "loyal": N_("Loyal"),
    "infiltrators": N_("Infiltrators"),
    "rounds": N_("The rounds"),
    "sabotaged": N_("sabotaged"),
    "set_trap": N_("set the trap"),
    "trap_on": N_("trap card: {by} against {victim}"),
    "seed": N_("Fair deal: seed {seed}"),
}


WORDS: Final = Words(
    name=N_("Station"),
    aliases=("station", "stasjon", "stasjonen", "stanica"),
    keyword=N_("STATION"),
    send_labels={"choose": texts.LABELS["send_choice"]},
    titles={"vote": N_("Vote: who sits out the next round?")},
    title_of=_title,
    question_lines=_question,
    headings={("vote", "for"): N_("Vote a player out of the next round:")},
    value_labels={
        **texts.JOB_NAMES,
        "sabotage": texts.LABELS["sabotage"],
        "trap": texts.LABELS["trap"],
    },
    sms_value_words={
        **texts.JOB_NAMES,
        "sabotage": N_("sabotage"),
        "trap": N_("trap"),
    },
    short_forms={
        texts.ROUND_OF: Msg(N_("Round {round}/{rounds}: {mission}.")),
        texts.SITS_OUT: Msg(N_("{name} sits out the next round.")),
        texts.CARD_GUARDS: nmsg(
            "Card: plan {plan} needs {n} guard.", "Card: plan {plan} needs {n} guards.", 1
        ),
        texts.TRAP_CARD: Msg(
            N_(
                "Trap card: {victim}. Partner them on the winning plan, you on guard, they on {job}."
            )
        ),
        texts.INFILTRATOR_CARD: Msg(
            N_(
                "You are an INFILTRATOR ({profession}). Infiltrators: {names}. "
                "Damage the station unseen."
            )
        ),
    },
    # The voted-out player's own «You sit out…» says all the table's «Bo sits out…» does.
    supersedes={texts.YOU_SIT_OUT: texts.SITS_OUT},
    tv_texts={**TV_TEXTS, **SCREEN_TEXTS},
    kind_labels={
        "choose": N_("Send choice"),
    },
    field_headings={
        "plan": N_("Choose a plan:"),
        "job": N_("Choose your job:"),
        "partner": N_("Choose your partner:"),
        "secret": N_("Secret action:"),
    },
    sms_kind_names={
        "choose": N_("choice"),
    },
    sms_field_names={
        "plan": N_("plan"),
        "job": N_("job"),
        "partner": N_("partner"),
        "secret": N_("secret"),
    },
    none_labels={
        "partner": N_("no partner"),
        "secret": N_("No secret action"),
    },
    sms_none_words={"partner": N_("no partner")},
    sms_counted=counted,
)
