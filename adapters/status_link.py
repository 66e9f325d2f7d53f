"""The status link for players at home: the table's main screen on a phone.

A live evening has a TV: the host opens the status page there (the host is
given its link at /new). A campaign (`pacing` = `campaign`: a round a day,
everyone at home) has none, so at the start of one the players get the
status page's link themselves: in the game's Telegram group, or privately to
each player when there is no group; by SMS, to every SMS player. The page is
the public view only (adapters/tv), so the link carries no secret of the game.

Deciding is pure (the composers call `due` in the commit); the link itself is
made at delivery (a fresh TV token is I/O: `TvLink`). [decision] Live games
(`fast` pacing) get no such message: the TV is the table's, and the host has
its link; documented in docs/rules/campaign.md. The campaign's calendar
(`<link>/campaign.ics`, the coming deadlines) follows: on Telegram as a
message of its own, by SMS as the text's second line.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from gameflow.core.campaign import is_campaign
from gameflow.core.state import LOBBY, Game
from gameflow.core.text import N_, Msg, msg

# A fresh TV link for a game (bots.app's Runtime.tv_link), None without a TV.
TvLink = Callable[[Game], Awaitable[str | None]]

STATUS_LINK = N_("Follow the game here (the public status page): {link}")
CALENDAR_LINK = N_("The game's deadlines for your calendar: {link}")


def at_home(game: Game) -> bool:
    """A campaign: the players follow the game from their own phones."""
    return is_campaign(game)


def due(before: Game, after: Game) -> bool:
    """The commit that starts a campaign (the first phase after the lobby)."""
    return before.phase.name == LOBBY and after.phase.name != LOBBY and at_home(after)


def line(link: str) -> Msg:
    return msg(STATUS_LINK, link=link)


def calendar_url(link: str) -> str:
    """The campaign's calendar (adapters/tv/ics.py) next to the status page `link`."""
    return f"{link.rstrip('/')}/campaign.ics"


def calendar_line(link: str) -> Msg:
    """The calendar's line: on Telegram a message of its own after the status
    link; by SMS the line under it in the same text (a segment more, once per
    player and campaign, rather than a second text)."""
    return msg(CALENDAR_LINK, link=calendar_url(link))
