"""A player's open question drawn as one Telegram message.

The question (`gameflow.core.question`) is the player's specs of this phase and
the game's context lines for them. One spec with several fields becomes the
step-by-step editor (choice.py); a spec answered in the player's own words
(the Traitors plea) asks for the text, with Telegram's reply field opened for
it; anything else is one keyboard (keyboards.py). Every message says how long
is left, as of when it is drawn.
"""

from __future__ import annotations

from typing import NamedTuple

from telegram import ForceReply, InlineKeyboardMarkup

from adapters.deadline_text import until
from adapters.telegram.choice import Draft, editor, title_for
from adapters.telegram.keyboards import is_draft, is_free, prompt_keyboard, prompt_text
from adapters.telegram.labels import title
from gameflow.core.question import Question
from gameflow.core.state import Game
from gameflow.core.text import N_
from gameflow.i18n import render

WRITE = N_("Write your answer as a message to me (one line).")
WRITE_ALSO = N_("Or write your answer as a message to me (one line).")
PLACEHOLDER = N_("Your words")


class Drawn(NamedTuple):
    text: str
    markup: InlineKeyboardMarkup | ForceReply | None
    free: bool  # only a request for words (no keyboard): the next private message answers


def draw(game: Game, player: str, q: Question, lang: str, now: float) -> Drawn:
    """`player`'s question `q` as a message's text and markup."""
    seat = game.seat(player)
    context = [render(c, lang) for c in q.context]
    specs = q.specs
    if len(specs) == 1 and is_draft(specs[0]):
        spec = specs[0]
        draft = Draft(game.id, q.phase, seat, spec.kind)
        head = title_for(game, spec, lang, now, q.context)
        text, markup = editor(game, spec, draft, lang, head)
        return Drawn(text, markup, False)
    closes = until(game, lang, now)
    free = [s for s in specs if is_free(s)]
    if free and len(free) == len(specs):
        lines = [title(game, free[0], lang), *context, render(WRITE, lang)]
        if closes:
            lines.append(closes)
        reply = ForceReply(input_field_placeholder=render(PLACEHOLDER, lang)[:64])
        return Drawn("\n".join(lines), reply, True)
    lines = prompt_text(game, specs, lang, context).splitlines()
    if free:
        lines.append(render(WRITE_ALSO, lang))
    if closes:
        lines.append(closes)
    return Drawn("\n".join(lines), prompt_keyboard(game, seat, specs, lang), False)
