"""`muldvarp demo`: a whole Station game with simulated players, in the terminal.

Until the store, the chat adapters and the TV page land, this is how to see the
game run: the bots of `gameflow.games.station.bots` play through the real engine
(`gameflow.games.station.balance.play`), and every event is printed the way a table would get
it, rendered in the chosen language: public announcements (the TV and the group
chat), each player's private messages (clearly marked), the table talk, and at
the end the reveal of teams and secret actions with the seed that decided the
deal. No credentials, no network; `--delay 0` finishes in well under a second.
`muldvarp demo --tv` (live_demo.py) plays the same game for the same seed and
table size: the same players and the same bots' inputs (BotTable), through the
game service.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

from gameflow.core.engine import view
from gameflow.core.events import Event, Kind
from gameflow.core.state import Game, seed_digest
from gameflow.core.text import Msg
from gameflow.games.station import bots
from gameflow.games.station import reveal as texts
from gameflow.games.station.balance import play
from gameflow.games.station.belief import Talk
from gameflow.games.station.state import Station
from gameflow.i18n import render

PUBLIC = "[TV]     "
TALK = "[talk]   "
PRIVATE = "[private → {name}] "


class Printer:
    """Prints events as they come, with an optional pause between lines."""

    def __init__(
        self, lang: str, delay: float, out: TextIO, sleep: Callable[[float], None]
    ) -> None:
        self.lang = lang
        self.delay = delay
        self.out = out
        self.sleep = sleep

    def line(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()
        if self.delay > 0:
            self.sleep(self.delay)

    def text(self, message: Msg) -> str:
        return render(message, self.lang)

    def events(self, game: Game, events: tuple[Event, ...]) -> None:
        for e in events:
            if e.text is None:
                continue
            if e.kind is Kind.ANNOUNCE:
                self.line(PUBLIC + self.text(e.text))
            elif e.kind is Kind.TELL and e.to is not None:
                mark = PRIVATE.format(name=game.name_of(e.to))
                self.line("    " + mark + self.text(e.text) + (" 🔒" if e.secret else ""))
            elif e.kind is Kind.HOST:
                self.line("    [host] " + self.text(e.text))

    def talk(self, game: Game, t: Talk) -> None:
        for message in bots.say(game, t):
            self.line(TALK + self.text(message))


def reveal(game: Game, lang: str) -> list[str]:
    """The end of game: the winner, teams, each round's secret actions, the seed."""
    st: Station = game.rules
    public = view(game, None)["station"]
    lines = ["", "=" * 60]
    lines.append(render(texts.winner_text(game.winner), lang))
    teams = public.get("teams", {})
    for s, pid in enumerate(game.players):
        lines.append(
            f"  {game.names[s]:<8} {render(texts.team_name(teams.get(pid, '')), lang):<14}"
            f" {render(Msg(st.professions[s]), lang)}"
        )
    for rec in public["history"]:
        secrets = tuple(
            texts.secret_text(game.name_of(c["player"]), c["secret"])
            for c in rec.get("choices", [])
            if c.get("secret")
        )
        lines.append(render(texts.round_text(rec["round"], rec["success"], secrets), lang))
    lines.append(render(texts.seed_text(game.seed, seed_digest(game.seed)), lang))
    return lines


def run_demo(
    players: int = 7,
    seed: str = "demo",
    lang: str = "en",
    delay: float = 0.0,
    *,
    out: TextIO | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> int:
    """Play and print one game; 0 on success, 2 on bad arguments."""
    stream = out if out is not None else sys.stdout
    if not 5 <= players <= 15:
        stream.write("demo: Station takes 5 to 15 players\n")
        return 2
    if lang not in ("nb", "sr", "en"):
        stream.write("demo: choose the language nb, sr or en\n")
        return 2
    printer = Printer(lang, max(0.0, delay), stream, sleep)
    final: list[Game] = []

    def watch(game: Game, events: tuple[Event, ...]) -> None:
        printer.events(game, events)
        final[:] = [game]

    play(players, str(seed), lang=lang, watch=watch, listen=printer.talk)
    for text in reveal(final[-1], lang):
        printer.line(text)
    return 0
