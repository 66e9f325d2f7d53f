"""Every text the TV page shows, as English gettext msgids (domain `tv`).

Templates name texts by key (`t("round_of", round=2, rounds=6)`); the msgids
of the page's own live here so Babel extracts them from one place into
`gameflow/i18n/locales/<lang>/LC_MESSAGES/tv.po`; a game's screen has its own
labels (its definition's `Words.tv_texts`, in the game's domain). Plural texts are small
functions, since `nmsg` needs its two literals at the call site.
"""

from __future__ import annotations

from gameflow.core.text import N_, Msg, nmsg

TEXTS: dict[str, str] = {
    # page frame
    "page_title": N_("Muldvarp – main screen"),
    "link_gone": N_("This TV link is not valid (any more). Ask the host for a new one."),
    "paused": N_("Paused"),
    # lobby
    "join_code": N_("Join code"),
    "scan_to_join": N_("Scan to join on Telegram"),
    "sms_join": N_("No Telegram? Join by SMS:"),
    # TRANSLATORS: what a player texts to join. Keep {code} as it is; the
    # first word must be this language's SMS join word (docs/sms.md: JOIN,
    # DELTA, UĐI), and the last is a stand-in for the player's own name.
    "sms_join_text": N_("JOIN {code} name"),
    "sms_to": N_("to {number}"),
    # TRANSLATORS: under the QR code; {bot} is the bot's Telegram username
    # (@MuldvarpBot), for a player whose phone cannot scan the code.
    "bot_search": N_("or find {bot} in Telegram"),
    "awaiting": N_("Waiting for"),
    "waiting_for_host": N_("Waiting for the host to start the game"),
    "nobody_yet": N_("Nobody has joined yet."),
    # the phases every game has (a game names its own: its Words.tv_texts);
    # the page's header and a calendar event name them
    "phase_lobby": N_("Lobby"),
    "phase_over": N_("Game over"),
    # every game
    "players": N_("Players"),
    "ready_of": N_("{ready} of {active} ready"),
    "vote_nobody": N_("Nobody"),
    "host_ended": N_("The host ended the game"),
    # the end: the seed that dealt the game, which anyone can replay
    "fair_deal": N_("Fair deal: seed {seed}"),
    # a campaign's clock (adapters/tv/schedule.py): the running phase's close
    # as a clock time in the game's zone, and each window of the day's schedule
    "until": N_("until {time}"),
    # TRANSLATORS: {day} is a weekday's name ("Monday"), {time} a clock time.
    "until_day": N_("until {day} {time}"),
    "schedule": N_("The day's schedule"),
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
