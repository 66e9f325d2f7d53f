"""Inline keyboards, drawn only from the core's legal actions.

A button's callback data names the game, the phase (`seq`) and the seat it was
drawn for, the action kind, the field and the value, compactly enough for
Telegram's 64-byte limit:

    op|game|seq|seat|kind|spec-index|field-index|value

`op` is `a` (act now: one tap sends the action), `d` (a step in a draft:
set one field), `s` (send the draft), `r` (restart the draft) or `o` (open a
draft for a kind with several fields). A value is `p<seat>` for a player,
`i<n>` for a number, `T`/`F` for yes/no, `-` for "none", `s<text>` for a word.
The spec index names one spec of the player's open question
(`gameflow.core.question`), so that two specs of one kind (two plot cards to
play) are two different buttons. When a button is pressed, the question is
asked again: a spec that is no longer at that index with that kind, a value
that is no longer among the options, a past phase or another person's button
changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from adapters.telegram.labels import (
    button_label,
    field_heading,
    heading,
    kind_label,
    title,
    value_label,
)
from gameflow.core import actions as A
from gameflow.core.engine import legal
from gameflow.core.legal import ActionSpec, Field, Value
from gameflow.core.question import question
from gameflow.core.state import Game
from gameflow.core.text import N_
from gameflow.i18n import render

__all__ = ["field_heading", "kind_label", "value_label"]

MAX_DATA = 64
SEP = "|"
OPS = frozenset("adsro")
CORE_KINDS = frozenset(a.kind for a in A.CORE_ACTIONS)
PER_ROW = 2
# Fields whose answer is a set of options (a Resistance team, a Traitors death
# list): the spec lists the candidates, the player ticks several and says done.
DONE_TOKEN = "!"


class Unknown:
    """A value token that decodes to nothing in this game (never a legal option)."""


UNKNOWN = Unknown()


@dataclass(frozen=True, slots=True)
class Press:
    """A decoded button press."""

    op: str
    game_id: str
    seq: int
    seat: int
    kind: str = ""
    field: int = -1
    value: str = ""
    spec: int = 0


def encode(
    op: str,
    game_id: str,
    seq: int,
    seat: int,
    kind: str = "",
    field: int = -1,
    value: str = "",
    spec: int = 0,
) -> str:
    parts = (op, game_id, str(seq), str(seat), kind, str(spec), "" if field < 0 else str(field))
    data = SEP.join((*parts, value))
    if len(data.encode("utf-8")) > MAX_DATA:
        raise ValueError(f"callback data over {MAX_DATA} bytes: {data!r}")
    return data


def decode(data: str | None) -> Press | None:
    """The press, or None for data this adapter never made."""
    if not data:
        return None
    parts = data.split(SEP, 7)
    if len(parts) != 8 or parts[0] not in OPS:
        return None
    op, game_id, seq, seat, kind, spec, field, value = parts
    try:
        f = int(field) if field else -1
        return Press(op, game_id, int(seq), int(seat), kind, f, value, int(spec))
    except ValueError:
        return None


def encode_value(game: Game, value: Value) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "T" if value else "F"
    if isinstance(value, int):
        return f"i{value}"
    seat = game.seat(value)
    return f"p{seat}" if seat >= 0 else f"s{value}"


def decode_value(game: Game, token: str) -> Value | Unknown:
    if token == "-":
        return None
    if token in ("T", "F"):
        return token == "T"
    head, rest = token[:1], token[1:]
    try:
        if head == "i":
            return int(rest)
        if head == "p":
            seat = int(rest)
            return game.players[seat] if 0 <= seat < len(game.players) else UNKNOWN
    except ValueError:
        return UNKNOWN
    return rest if head == "s" else UNKNOWN


def option_of(game: Game, field: Field, token: str) -> Value | Unknown:
    """The option `token` stands for, if it is still one of the field's options
    (`True == 1` in Python, so the type must match as well)."""
    value = decode_value(game, token)
    for option in field.options:
        if option == value and type(option) is type(value):
            return option
    return UNKNOWN


# -- labels (labels.py; kept importable from here) ------------------------------------


def rows(
    buttons: Sequence[InlineKeyboardButton], per_row: int = PER_ROW
) -> list[list[InlineKeyboardButton]]:
    return [list(buttons[i : i + per_row]) for i in range(0, len(buttons), per_row)]


# -- keyboards -------------------------------------------------------------------------


def game_specs(specs: Sequence[ActionSpec]) -> tuple[ActionSpec, ...]:
    """The game's own actions (host controls and lobby actions have commands)."""
    return tuple(s for s in specs if s.kind not in CORE_KINDS)


def offered(game: Game, player: str) -> tuple[ActionSpec, ...]:
    """What a keyboard drawn for `player` now offers, in the order its spec
    indexes count: a seat's open question (`gameflow.core.question`), or the
    game master's own actions of the current phase (their /gm keyboard)."""
    if game.seat(player) >= 0:
        q = question(game, player)
        return () if q is None else q.specs
    seq = game.phase.seq
    return tuple(s for s in game_specs(legal(game, player)) if s.phase == seq)


def is_multi(f: Field) -> bool:
    """A set of values (a team, a list of names): the game says so in `legal()`."""
    return f.many


def is_free(spec: ActionSpec) -> bool:
    """A spec answered in the player's own words (the Traitors plea): every
    field is free text or fixed."""
    return any(f.free for f in spec.fields) and all(
        f.free or (len(f.options) <= 1 and not f.many) for f in spec.fields
    )


def is_draft(spec: ActionSpec) -> bool:
    """A kind with several fields (or a pick of several options) is filled in
    step by step, in one message."""
    choices = [f for f in spec.fields if (len(f.options) > 1 or is_multi(f)) and not f.free]
    return len(choices) > 1 or any(is_multi(f) for f in choices)


def choice_of(spec: ActionSpec) -> tuple[int, Field] | None:
    """The one field a keyboard offers inline (one button per option), if any:
    the field with a choice, or a lone field with a single real option (a
    loyal Resistance member's only mission card)."""
    for i, f in enumerate(spec.fields):
        if len(f.options) > 1 and not f.many and not f.free:
            return i, f
    if len(spec.fields) == 1 and len(spec.fields[0].options) == 1:
        f = spec.fields[0]
        if f.options[0] is not None and not f.many and not f.free:
            return 0, f
    return None


def has_choice(spec: ActionSpec) -> bool:
    """Does answering `spec` take a choice (more than one tap)?"""
    return is_draft(spec) or any((len(f.options) > 1 or f.many) and not f.free for f in spec.fields)


def inline_spec(specs: Sequence[ActionSpec]) -> int:
    """Which spec of a keyboard gets its options inline: the first with one
    choice field; the others are one button each (opening an editor when they
    have a choice). -1: none."""
    for i, spec in enumerate(specs):
        if not is_draft(spec) and not is_free(spec) and choice_of(spec) is not None:
            return i
    return -1


def prompt_keyboard(
    game: Game, seat: int, specs: Sequence[ActionSpec], lang: str
) -> InlineKeyboardMarkup:
    """One keyboard for everything the player may do now: the first kind
    with a single choice as one button per option (one tap acts), a kind
    without a choice as one button, any other kind as a button that opens its
    editor in this message. A free-text kind has no button: the text is asked for."""
    seq = game.phase.seq
    lines: list[list[InlineKeyboardButton]] = []
    inline = inline_spec(specs)
    for i, spec in enumerate(specs):
        if is_free(spec):
            continue
        if i == inline:
            index, choice = choice_of(spec) or (0, spec.fields[0])
            buttons = [
                InlineKeyboardButton(
                    value_label(game, choice.name, option, lang),
                    callback_data=encode(
                        "a", game.id, seq, seat, spec.kind, index, encode_value(game, option), i
                    ),
                )
                for option in choice.options
            ]
            lines.extend(rows(buttons))
            continue
        if has_choice(spec):
            data = encode("o", game.id, seq, seat, spec.kind, spec=i)
        else:  # no choice: one tap (fixed values filled in on press)
            data = encode("a", game.id, seq, seat, spec.kind, spec=i)
        lines.append([InlineKeyboardButton(button_label(game, spec, lang), callback_data=data)])
    return InlineKeyboardMarkup(lines)


def prompt_text(
    game: Game, specs: Sequence[ActionSpec], lang: str, context: Sequence[str] = ()
) -> str:
    """The question above a keyboard: what it is about, then the heading of
    the options drawn inline. With the game's context lines for it, those say
    what is asked (under the first kind's title); without, each kind's title."""
    titles: list[str] = []
    for spec in specs:
        line = title(game, spec, lang)
        if line not in titles:
            titles.append(line)
    ours = titles[:1] if context else titles
    inline = inline_spec(specs)
    if inline >= 0:
        spec = specs[inline]
        found = choice_of(spec)
        if found is not None and len(found[1].options) > 1:
            ours.append(heading(game, spec, found[1], lang))
    lines = [ours[0], *context, *ours[1:]] if ours else list(context)
    lines = unrepeated(lines, context)
    return "\n".join(lines) if lines else render(N_("Your turn:"), lang)


def clause(line: str) -> str:
    """A line's opening clause, up to its first colon or question mark."""
    cut = min((i for i in (line.find(":"), line.find("?")) if i >= 0), default=len(line))
    return line[: cut + 1].casefold()


def unrepeated(lines: Sequence[str], context: Sequence[str]) -> list[str]:
    """`lines` without our own lines whose opening a context line of the game
    says again ("Vote: who sits out...", "End the game now?" twice)."""
    said = [c.casefold() for c in context]
    out: list[str] = []
    for line in lines:
        repeated = line not in context and any(c.startswith(clause(line)) for c in said)
        if not repeated and line not in out:
            out.append(line)
    return out
