"""The host's view of a game's setup, the same on every channel (issue #32).

`/set` alone (SMS `SET`) lists the game's options with their values and a
line of help each; `SET name` gives one option's help and what it takes;
`/setup` (and SMS `SET` alone, a page at a time) gives the whole setup with a
warning wherever the game's balance table says a side wins more than 65 % at
this table size with these options (the game's `lopsided`, from its
balance.py). The texts are made here once, as messages; each channel renders
and lays them out (Telegram one line each, SMS short pages). Values are shown
in a form `/set` takes back (a duration as `5m`, a yes/no option as the
language's yes or no).
"""

from __future__ import annotations

import json
from typing import Any

from gameflow.core import registry
from gameflow.core.definition import OptionInfo
from gameflow.core.options import compact
from gameflow.core.state import Game
from gameflow.core.text import N_, Msg, msg

LINE = N_("{name} = {value}: {help}")
VALUE = N_("{name} = {value}")
LIST_HEAD = N_("{game}: the settings. Change one with /set NAME VALUE, e.g. /set {example}.")
SETUP_HEAD = N_("{game}, ready to start: {players} players, language {lang}.")
SETUP_TAIL = N_(
    "Change a setting with /set NAME VALUE (/set alone explains each); start with /startgame."
)
USAGE = N_("Use /set NAME VALUE, e.g. /set {example}. /set alone lists the settings.")


def options(game: Game) -> tuple[OptionInfo, ...]:
    """The game's options, in its definition's order."""
    return registry.get(game.kind).options()


def value(game: Game, info: OptionInfo) -> Any:
    """The option's value in `game` (its default when never set)."""
    return game.option(info.name, info.default)


def shown(game: Game, info: OptionInfo) -> Msg | str | int:
    """The option's value as the host reads it and `/set` takes it back."""
    current = value(game, info)
    if isinstance(current, bool):
        return Msg(N_("yes")) if current else Msg(N_("no"))
    if isinstance(current, int | float) and info.limit is not None:
        if info.limit.form == "seconds":
            return compact(float(current))
        return int(current) if current == int(current) else str(current)
    if current == "":
        return '""'
    return str(current)


def line(game: Game, info: OptionInfo) -> Msg:
    """`name = value: what it does`."""
    return msg(LINE, name=info.name, value=shown(game, info), help=Msg(info.help))


def pair(game: Game, info: OptionInfo) -> Msg:
    """`name = value`."""
    return msg(VALUE, name=info.name, value=shown(game, info))


def find(game: Game, name: str) -> OptionInfo | None:
    wanted = name.strip().casefold()
    return next((o for o in options(game) if o.name == wanted), None)


def example(game: Game) -> Msg:
    """A `/set` line that this game takes: its first yes/no option set to
    the other answer, else its first option set to its own value."""
    infos = options(game)
    flag = next((o for o in infos if o.type is bool), None)
    if flag is not None:
        other = not value(game, flag)
        word = Msg(N_("yes")) if other else Msg(N_("no"))
        return msg(N_("{name} {value}"), name=flag.name, value=word)
    first = infos[0]
    return msg(N_("{name} {value}"), name=first.name, value=shown(game, first))


def warning(game: Game) -> Msg | None:
    """The balance table's warning for this table size and these options
    (None: no side wins more than 65 %, or the table has no figure)."""
    lopsided = registry.get(game.kind).lopsided
    if lopsided is None:
        return None
    return lopsided(len(game.players), dict(game.options))


def listing(game: Game) -> list[Msg]:
    """`/set` alone: a head line with an example, the warning if any, then
    every option with its value and help."""
    head = msg(LIST_HEAD, game=Msg(registry.get(game.kind).words.name), example=example(game))
    found = warning(game)
    return [head, *([found] if found is not None else []), *(line(game, o) for o in options(game))]


def setup(game: Game) -> list[Msg]:
    """`/setup`: the whole setup in one message, the warning after the head."""
    words = registry.get(game.kind).words
    head = msg(SETUP_HEAD, game=Msg(words.name), players=len(game.players), lang=game.lang)
    found = warning(game)
    lines = [head, *([found] if found is not None else [])]
    return [*lines, *(pair(game, o) for o in options(game)), Msg(SETUP_TAIL)]


def usage(game: Game) -> Msg:
    return msg(USAGE, example=example(game))


def read(text: str) -> Any:
    """A value as typed: JSON where it is JSON (`90`, `true`, `""`), else the
    text itself (`ja`, `5m`, `Europe/Oslo`), which the core reads
    (gameflow/core/options.py)."""
    try:
        return json.loads(text)
    except ValueError:
        return text
