"""Inline keyboards, drawn only from the core's legal actions.

A button's callback data names the game, the phase (`seq`) and the seat it was
drawn for, the action kind, the field and the value, compactly enough for
Telegram's 64-byte limit:

    op|game|seq|seat|kind|field-index|value

`op` is `a` (act now: one tap sends the action), `d` (a step in a draft:
set one field), `s` (send the draft), `r` (restart the draft) or `o` (open a
draft for a kind with several fields). A value is `p<seat>` for a player,
`i<n>` for a number, `T`/`F` for yes/no, `-` for "none", `s<text>` for a word.
When a button is pressed, the same `legal()` is asked again: a value that is no
longer among the options, a past phase or another person's button changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from gameflow.core import actions as A
from gameflow.core.legal import ActionSpec, Field, Value
from gameflow.core.state import Game
from gameflow.core.text import N_
from gameflow.i18n import render

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


def encode(
    op: str, game_id: str, seq: int, seat: int, kind: str = "", field: int = -1, value: str = ""
) -> str:
    data = SEP.join(
        (op, game_id, str(seq), str(seat), kind, "" if field < 0 else str(field), value)
    )
    if len(data.encode("utf-8")) > MAX_DATA:
        raise ValueError(f"callback data over {MAX_DATA} bytes: {data!r}")
    return data


def decode(data: str | None) -> Press | None:
    """The press, or None for data this adapter never made."""
    if not data:
        return None
    parts = data.split(SEP, 6)
    if len(parts) != 7 or parts[0] not in OPS:
        return None
    op, game_id, seq, seat, kind, field, value = parts
    try:
        return Press(op, game_id, int(seq), int(seat), kind, int(field) if field else -1, value)
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


# -- labels ------------------------------------------------------------------------

KIND_LABELS: dict[str, str] = {
    "choose": N_("Send choice"),
    "propose": N_("Propose a team"),
    "give": N_("Give a card"),
    "death_list": N_("Write the death list"),
    "vote": N_("Send vote"),
    "pass": N_("Pass"),
    "plea": N_("Make my plea"),
    "murder_free": N_("Murder without a vote"),
    "forbid_murder": N_("Forbid the murder"),
    "play_death_list": N_("Play the death list"),
    "call_final": N_("Call the final"),
    "leave": N_("Leave the game"),
    "start": N_("Start the game"),
    "pause": N_("Pause"),
    "resume": N_("Resume"),
    "advance_early": N_("Next phase"),
    "end": N_("End the game"),
}

FIELD_HEADINGS: dict[str, str] = {
    "plan": N_("Choose a plan:"),
    "job": N_("Choose your job:"),
    "partner": N_("Choose your partner:"),
    "secret": N_("Secret action:"),
    "for": N_("Your vote:"),
    "target": N_("Choose a target:"),
    "card": N_("Choose a card:"),
    "to": N_("Give it to:"),
    "approve": N_("Approve the team?"),
    "accept": N_("Do you accept?"),
    "end": N_("End the game now?"),
    "chest": N_("Choose a chest:"),
    "drop": N_("Drop:"),
    "team": N_("Pick the team, then tap Done:"),
    "names": N_("Pick the names, then tap Done:"),
    "access": N_("Who gets access? Pick, then tap Done:"),
}

NONE_LABELS: dict[str, str] = {
    "partner": N_("no partner"),
    "secret": N_("No secret action"),
    "for": N_("Nobody"),
    "target": N_("Nobody"),
}

WORDS: dict[str, str] = {
    "outside": N_("outside"),
    "radio": N_("radio"),
    "guard": N_("guard"),
    "sabotage": N_("Sabotage the equipment"),
    "trap": N_("Set the trap"),
}

YES, NO = N_("Yes"), N_("No")
NOTHING = N_("None")


def kind_label(kind: str, lang: str) -> str:
    label = KIND_LABELS.get(kind)
    return render(label, lang) if label else kind.replace("_", " ")


def field_heading(name: str, lang: str) -> str:
    heading = FIELD_HEADINGS.get(name)
    return render(heading, lang) if heading else f"{name}:"


def value_label(game: Game, field: str, value: Value, lang: str) -> str:
    """How an option reads on a button: players by name, words translated."""
    if value is None:
        return render(NONE_LABELS.get(field, NOTHING), lang)
    if isinstance(value, bool) or (field in ("accept", "end", "allow", "on") and value in (0, 1)):
        return render(YES if value else NO, lang)
    if isinstance(value, int):
        return str(value)
    if game.seat(value) >= 0:
        return game.name_of(value)
    word = WORDS.get(value)
    return render(word if word else value, lang)


def rows(
    buttons: Sequence[InlineKeyboardButton], per_row: int = PER_ROW
) -> list[list[InlineKeyboardButton]]:
    return [list(buttons[i : i + per_row]) for i in range(0, len(buttons), per_row)]


# -- keyboards -------------------------------------------------------------------------


def game_specs(specs: Sequence[ActionSpec]) -> tuple[ActionSpec, ...]:
    """The game's own actions (host controls and lobby actions have commands)."""
    return tuple(s for s in specs if s.kind not in CORE_KINDS)


def is_multi(f: Field) -> bool:
    """A set of values (a team, a list of names): the game says so in `legal()`."""
    return f.many


def is_draft(spec: ActionSpec) -> bool:
    """A kind with several fields (or a pick of several options) is filled in
    step by step, in one message."""
    choices = [f for f in spec.fields if len(f.options) > 1 or is_multi(f)]
    return len(choices) > 1 or any(is_multi(f) for f in choices)


def prompt_keyboard(
    game: Game, seat: int, specs: Sequence[ActionSpec], lang: str
) -> InlineKeyboardMarkup:
    """One keyboard for everything the player may do now: a single-field kind
    as one button per option (one tap acts), a kind without fields as one
    button, a kind with several fields as a button that opens its draft."""
    seq = game.phase.seq
    lines: list[list[InlineKeyboardButton]] = []
    for spec in specs:
        if is_draft(spec):
            data = encode("o", game.id, seq, seat, spec.kind)
            lines.append([InlineKeyboardButton(kind_label(spec.kind, lang), callback_data=data)])
            continue
        choice = next((f for f in spec.fields if len(f.options) > 1), None)
        if choice is None:
            # no field or only fixed ones: one tap (fixed values filled in on press)
            data = encode("a", game.id, seq, seat, spec.kind)
            text = kind_label(spec.kind, lang)
            if spec.fields and spec.fields[0].options:
                text = f"{text}: {value_label(game, spec.fields[0].name, spec.fields[0].options[0], lang)}"
            lines.append([InlineKeyboardButton(text, callback_data=data)])
            continue
        index = spec.fields.index(choice)
        buttons = [
            InlineKeyboardButton(
                value_label(game, choice.name, option, lang),
                callback_data=encode(
                    "a", game.id, seq, seat, spec.kind, index, encode_value(game, option)
                ),
            )
            for option in choice.options
        ]
        lines.extend(rows(buttons))
    return InlineKeyboardMarkup(lines)


def prompt_text(game: Game, specs: Sequence[ActionSpec], lang: str) -> str:
    """The question above a generic keyboard: the first field's heading."""
    for spec in specs:
        for f in spec.fields:
            if len(f.options) > 1:
                return field_heading(f.name, lang)
    return render(N_("Your turn:"), lang)
