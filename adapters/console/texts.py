"""Every text the game master's console shows, as English msgids (domain `console`).

The console's page, its controls' one-line help, and the replies of the chat
commands that hand out its link (`/console` on Telegram, `CONSOLE` by SMS,
which import them from here so that the console's texts live in one catalog:
`gameflow/i18n/locales/<lang>/LC_MESSAGES/console.po`).
"""

from __future__ import annotations

from gameflow.core.text import N_

TEXTS: dict[str, str] = {
    "title": N_("Game master's console"),
    "link_gone": N_("This console link is not valid (any more). Send /console for a new one."),
    "mode_gm": N_("You are the game master and play no role: you see every secret."),
    "mode_host": N_("You host and may play: you see only what the table sees."),
    "mode_seated": N_(
        "You chose to watch, but you hold a seat in this game: you see only what the table sees."
    ),
    "mode_blind": N_(
        "You watch and play no role; this game keeps no secret view, so you see what the table sees."
    ),
    "mode_change": N_(
        "Until the start you can change this with the setting game_master: watches or plays."
    ),
    "phase": N_("Phase: {phase}"),
    "round": N_("Round {round}"),
    "paused": N_("Paused"),
    "until": N_("Time left: {left}"),
    "over": N_("The game is over."),
    "lobby": N_("Lobby: {n} joined so far."),
    "ready": N_("Answered: {ready} of {expected}"),
    "awaiting": N_("Still to answer: {names}"),
    "nobody_owes": N_("Nobody owes an answer now."),
    "players": N_("Players"),
    "secrets": N_("Secrets"),
    "roles": N_("Roles"),
    "shield": N_("Shield: {name}"),
    "dagger": N_("Dagger: {name}"),
    "night_votes": N_("Night votes"),
    "vote_line": N_("{voter}: {what} {target}"),
    "force_votes": N_("Votes to force"),
    "pending": N_("Tonight's choice: {what}"),
    "pending_target": N_("Asked tonight: {name}"),
    "pending_murder": N_("Tonight's murder: {name}"),
    "declined": N_("Declined so far: {names}"),
    "death_list": N_("Death list being written: {names}"),
    "recruit_on": N_("Recruitment: allowed"),
    "recruit_off": N_("Recruitment: not allowed"),
    "forbid_on": N_("The murder is forbidden tonight."),
    "may_tempt": N_("The traitors may tempt tonight."),
    "must_force": N_("The traitors must force a player tonight."),
    "tempted": N_("Tempted on day: {days}"),
    "owes": N_("Still owes an input (secret): {names}"),
    "replies": N_("Mission replies"),
    "nothing": N_("nobody"),
    "controls": N_("Controls"),
    "no_controls": N_("Nothing to do right now."),
    "confirm": N_("Yes, do it"),
    "cancel": N_("Cancel"),
    "done": N_("Done: {what}"),
    "duplicate": N_("Already done."),
    "refused": N_("Not done: {why}"),
    "bad_request": N_("That request was not understood; nothing changed."),
    "live_lost": N_("Connection lost, reconnecting…"),
    # the core's host controls: what each one does, one line each
    "start": N_("Start the game"),
    "start_help": N_("Deals the roles to everyone who joined and begins the first phase."),
    "pause": N_("Pause"),
    "pause_help": N_("Stops the clock for everyone until you resume."),
    "resume": N_("Resume"),
    "resume_help": N_("Starts the clock again where it stopped."),
    "advance_early": N_("End this phase now"),
    "advance_help": N_("Everyone has answered: moves on to the next phase at once."),
    "end": N_("End the game"),
    "end_help": N_("Ends the game for everyone now; nobody wins."),
    "kick": N_("Remove a player"),
    "kick_help": N_("Takes a player out of the lobby before the start."),
    "gone": N_("Mark a player gone"),
    "gone_help": N_(
        "For a player who left for good: the game answers for them, as for someone away."
    ),
    "not_gone": N_("Bring a gone player back"),
    "not_gone_help": N_("The player answers for themselves again."),
    "move_window": N_("Move a daily window"),
    "move_help": N_(
        "Moves one of the campaign's daily times; a phase closing at it now closes at the new time."
    ),
    "talk_mute": N_("Mute a player's talk"),
    "talk_mute_help": N_(
        "What they say through the bot is no longer relayed to the others, until you let them talk again."
    ),
    "talk_unmute": N_("Let a player talk again"),
    "talk_unmute_help": N_("What they say through the bot is relayed again."),
    "field_window": N_("Which window:"),
    "field_target": N_("Which player:"),
    "field_clock": N_("New time (HH:MM):"),
    "game_help": N_("The game master's action of this game; it applies at once."),
    "yes": N_("yes"),
    "no": N_("no"),
    # the chat commands that hand out the link
    "link": N_("Your game master's console (keep this link to yourself): {link}"),
    "only_private": N_("Send /console to me in a private chat: the link is yours alone."),
    "only_host": N_("Only the host can open the console."),
    "no_console": N_("The console is not available on this server."),
    "rotated": N_("The old console link no longer works."),
}

# Roles by their ids, for a game whose words do not name them.
ROLE_WORDS: dict[str, str] = {
    "loyal": N_("loyal"),
    "traitor": N_("traitor"),
}
