"""A simulated SMS player: reads their menus (from legal actions, as the adapter
renders them) and types a random allowed answer the way a person would, with
words and numbers, never with ids."""

from __future__ import annotations

import random

from adapters.sms import grammar as G
from adapters.sms import render as R
from gameflow.core.legal import Value
from gameflow.core.state import Game


def word_for(game: Game, field: G.MenuField, value: Value) -> str | None:
    """A word that names `value` in `field` unambiguously (None if there is none)."""
    lang = game.lang
    if value is None:
        candidates = ["-"]
    elif isinstance(value, int) and not isinstance(value, bool):
        candidates = [str(value)]
    else:
        text = R.label(game, field.name, value, lang)
        candidates = [*text.split(), text.replace(" ", "")]
    for word in candidates:
        if G.pick(field, G.fold(word)) == value:
            return word
    return None


def answer(game: Game, player: str, rng: random.Random) -> str | None:
    """A random legal answer to `player`'s menus as a text, or None without menus."""
    menus = R.menus(game, player)
    if not menus:
        return None
    i = rng.randrange(len(menus))
    menu = menus[i]
    words = [str(i + 1)] if len(menus) > 1 or not menu.fields else []
    if len(menu.fields) == 1 and not menu.fields[0].many and len(menus) == 1:
        f = menu.fields[0]
        if not any(isinstance(o.value, int) for o in f.options):
            return str(rng.randrange(len(f.options)) + 1)
    for f in menu.fields:
        if f.many:
            k = rng.randint(1, len(f.options))
            picked = rng.sample([o.value for o in f.options], k)
        else:
            picked = [rng.choice(f.options).value]
        for value in picked:
            word = word_for(game, f, value)
            assert word is not None, (menu.kind, f.name, value)
            words.append(word)
    return " ".join(words)
