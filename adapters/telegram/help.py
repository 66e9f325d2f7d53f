"""What the bot says when asked for help, or when it did not understand.

`/help` lists the commands that apply to the sender now: someone in no game
can host or join one; a player can have their question again (and, in a
running game, be away); the host gets the lobby's commands before the start
and the clock's after it; the talk through the bot where the game has it
(the team's line only to a player whose team may confer now); the host's
/console line in the lobby and while the game runs. A command the
bot does not know, or a private message that answers nothing, gets "I didn't
understand that." and then the sender's open question (answer it with its
buttons, or /status), or else the same list. Pure (game and sender in, text out): the handlers reply with it,
in the game's language, or in the user's own when they are in no game. The
games /new takes are the registered ones (`gameflow.core.registry`).
"""

from __future__ import annotations

from adapters.telegram.labels import title
from gameflow.core import registry
from gameflow.core.campaign import is_campaign
from gameflow.core.question import question
from gameflow.core.rules import rules_for
from gameflow.core.state import LOBBY, Game
from gameflow.core.text import N_, Msg, msg
from gameflow.i18n import render
from service import talk

NO_GAME = N_("You are not in a game. What you can do:")
PLAYER = N_("You play in this game. What you can do:")
HOST = N_("You host this game. What you can do:")
NOT_UNDERSTOOD = N_("I didn't understand that.")
OPEN = N_("Your question is open:")
ANSWER = N_("Answer it with the buttons under it, or send /status to get it again.")
MORE = N_("/help: what you can do.")

# TRANSLATORS: {commands} is "/new station, /new resistance or /new traitors".
NEW = N_("{commands}: host a new game.")
JOIN = N_("/join CODE: join a game (or tap the link its host shares).")
STATUS = N_("/status: your current question again.")
AWAY = N_("/away 2027-01-20 (a date) or /away off: away, the defaults answer for you.")
START = N_("/startgame: deal the roles and begin, once everyone is in.")
SET = N_("/set NAME VALUE: change a setting; /lang nb, sr or en: the game's language.")
SETTINGS = N_("/set alone: the settings, /set NAME: one explained; /setup: the whole setup.")
# Talk through the bot (issue #33, service/talk.py).
TALK = N_("Write here without a command to talk to the other players while talk is open.")
TEAM = N_("/team WORDS: talk to your team alone.")
MUTE = N_("/mute NAME, /unmute NAME: stop or restart a player's talk.")
# The host's answer to a player who left, and the run-it-back of a finished
# game, which outlives the game's binding, so it is offered out of a game (issue #32).
GONE = N_("/gone NAME, /back NAME: a player who left (the defaults answer for them), and back.")
AGAIN = N_("/again CODE: a game you hosted, again with the same players.")
KICK = N_("/kick NAME: take a player out of the lobby.")
PAUSE = N_("/pause: stop the clock.")
RESUME = N_("/resume: start the clock again.")
ADVANCE = N_("/advance: end this phase now.")
MOVE = N_("/move WINDOW HH:MM: move a campaign window.")
GM = N_("/gm: the game master's actions now.")
CONSOLE = N_("/console: your game master's console, a private web page (/console new: a new link).")
END = N_("/end: end the game.")
HELP = N_("/help: this list.")


def commands(game: Game | None, who: str | None) -> list[str]:
    """The msgids of the commands that apply to `who` in `game` now."""
    if game is None or who is None or game.over:
        return [NEW, JOIN, AGAIN, HELP]
    table, team = talk.offered(game, who)
    if who == game.host:
        if game.phase.name == LOBBY:
            return [START, SET, SETTINGS, KICK, CONSOLE, END, HELP]
        clock = RESUME if game.phase.paused else PAUSE
        lines = [clock, ADVANCE]
        if is_campaign(game):
            lines.append(MOVE)
        if rules_for(game.kind).host_kinds:  # a game master's own actions
            lines.append(GM)
        lines.append(GONE)
        if any(talk.kinds(game)):
            lines.append(MUTE)  # the game has talk through the bot
        return [*lines, CONSOLE, END, HELP]
    if game.running:
        return [STATUS, AWAY, *([TALK] if table else []), *([TEAM] if team else []), HELP]
    return [STATUS, HELP]


def help_text(game: Game | None, who: str | None, lang: str) -> str:
    """`/help`: who the sender is in the game, then their commands."""
    live = game is not None and who is not None and not game.over
    head = NO_GAME if not live else HOST if game is not None and who == game.host else PLAYER
    return "\n".join(render(_line(line), lang) for line in (head, *commands(game, who)))


def _line(msgid: str) -> Msg | str:
    """A command's line; /new's names every registered game."""
    if msgid != NEW:
        return msgid
    return msg(NEW, commands=registry.one_of(tuple(f"/new {k}" for k in registry.kinds())))


def not_understood(game: Game | None, who: str | None, lang: str, *, private: bool) -> str:
    """The answer to a command or message the bot did not understand: the
    sender's open question if they have one (only in a private chat: a
    group is not told who is still to answer), else what they can do."""
    q = question(game, who) if game is not None and who is not None and private else None
    if game is not None and q is not None and q.specs:
        lines = [
            render(NOT_UNDERSTOOD, lang),
            render(OPEN, lang),
            title(game, q.specs[0], lang),
            render(ANSWER, lang),
            render(MORE, lang),
        ]
        return "\n".join(lines)
    return f"{render(NOT_UNDERSTOOD, lang)}\n{help_text(game, who, lang)}"
