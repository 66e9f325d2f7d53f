"""The one-message choice editor: a kind with several fields, filled in step by step.

Station's mission choice is the model: plan -> job -> partner -> secret action
(only for those who have one) -> «Send valget», all in the one private message,
edited at every tap; once sent, the message shows the locked choice. Every step's
options come from `legal()`: the draft holds only values, and each tap is checked
against the legal spec again before it is taken.

A draft is no game state (nothing happened in the game until «Send valget»)
and the core never sees it, but it must survive a restart and be shared by
every worker (a press may reach any of them): it lives in the game store as
the game's attribute `tg:draft:<seat>` (one open draft per seat, JSON, gone
with the game). A step is read, change, `swap_attr`: if another press changed
the draft in between (two quick taps on a team's names, handled by two
workers), the swap fails and the step is taken again on the newer draft, so
neither tap is lost. The last few update ids a draft took are kept in it, so a
press Telegram delivers twice (after a crash, to another worker) is taken once.
A draft names the message it belongs to and the phase it was drawn in: a press
in another message or phase starts a fresh one.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from adapters.deadline_text import until
from adapters.telegram.keyboards import (
    DONE_TOKEN,
    encode,
    encode_value,
    is_multi,
    rows,
    unrepeated,
)
from adapters.telegram.labels import heading, question_lines, send_label, title, value_label
from gameflow.core import actions as A
from gameflow.core.legal import ActionSpec, Field, Value
from gameflow.core.state import Game
from gameflow.core.text import N_, Msg
from gameflow.i18n import render
from gameflow.replay import parse_step

Key = tuple[int, int]  # (chat id, message id)
DRAFT_ATTR = "tg:draft:"  # + seat (-1: the game master)
KEEP_PRESSES = 8  # update ids remembered per draft, against redelivery


@dataclass(slots=True)
class Draft:
    game_id: str
    seq: int
    seat: int
    kind: str
    values: dict[str, Any] = field(default_factory=dict)  # a list for a multi field
    done: set[str] = field(default_factory=set)  # multi fields the player closed
    chat: int = 0
    message: int = 0
    presses: list[int] = field(default_factory=list)  # the last update ids taken
    spec: int = 0  # the spec's index in the question (two specs may share a kind)

    def belongs(self, key: Key, seq: int, kind: str, spec: int = 0) -> bool:
        return (self.chat, self.message, self.seq, self.kind, self.spec) == (*key, seq, kind, spec)

    def took(self, update_id: int) -> None:
        self.presses = [*self.presses, update_id][-KEEP_PRESSES:]

    def dumps(self) -> str:
        data = {
            "g": self.game_id,
            "q": self.seq,
            "s": self.seat,
            "k": self.kind,
            "v": self.values,
            "d": sorted(self.done),
            "c": self.chat,
            "m": self.message,
            "u": self.presses,
            "i": self.spec,
        }
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def loads(cls, text: str | None) -> Draft | None:
        """The draft stored as `text`, or None (unset, or not a draft of ours)."""
        if not text:
            return None
        try:
            d = json.loads(text)
            return cls(
                str(d["g"]),
                int(d["q"]),
                int(d["s"]),
                str(d["k"]),
                dict(d["v"]),
                set(d["d"]),
                int(d["c"]),
                int(d["m"]),
                [int(u) for u in d["u"]],
                int(d.get("i", 0)),
            )
        except (ValueError, KeyError, TypeError):
            return None


def draft_attr(seat: int) -> str:
    return f"{DRAFT_ATTR}{seat}"


def fixed(f: Field) -> bool:
    return len(f.options) <= 1 and not is_multi(f)


def next_field(spec: ActionSpec, draft: Draft) -> tuple[int, Field] | None:
    """The first field still to choose (fields with one option fill themselves;
    a multi field stays open until the player taps Done)."""
    for i, f in enumerate(spec.fields):
        if is_multi(f):
            if f.name not in draft.done:
                return i, f
        elif not fixed(f) and f.name not in draft.values:
            return i, f
    return None


def pick(draft: Draft, f: Field, value: Value | None, done: bool = False) -> None:
    """Take one tap: set a field, toggle a multi field's option, or close it."""
    if not is_multi(f):
        draft.values[f.name] = value
        return
    chosen: list[Value] = draft.values.setdefault(f.name, [])
    if done:
        draft.done.add(f.name)
    elif value in chosen:
        chosen.remove(value)
    else:
        chosen.append(value)


def step_values(spec: ActionSpec, values: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in spec.fields:
        if f.name in values:
            out[f.name] = list(values[f.name]) if is_multi(f) else values[f.name]
        elif is_multi(f):
            out[f.name] = []
        elif fixed(f):
            out[f.name] = f.options[0] if f.options else None
    return out


def build_action(
    game: Game, player: str, spec: ActionSpec, values: Mapping[str, Value]
) -> A.Action:
    """The core action for a filled-in spec, through the game's own script-step
    parser (spec field names are its step keys), so no adapter ever builds a
    game's action classes by hand. ValueError if a value is missing or malformed."""
    step: dict[str, Any] = {"as": player, "do": spec.kind, "phase": spec.phase}
    step.update(step_values(spec, values))
    return parse_step(game, step)


def summary(game: Game, spec: ActionSpec, values: Mapping[str, Any], lang: str) -> list[str]:
    lines = []
    for f in spec.fields:
        if f.name in values and not fixed(f):
            head = heading(game, spec, f, lang, values).split(",")[0].split("(")[0]
            head = head.strip().rstrip(":?")
            chosen = values[f.name] if is_multi(f) else [values[f.name]]
            text = ", ".join(value_label(game, f.name, v, lang) for v in chosen)
            lines.append(f"• {head}: {text}")
    return lines


def editor(
    game: Game, spec: ActionSpec, draft: Draft, lang: str, title: str = ""
) -> tuple[str, InlineKeyboardMarkup]:
    """The editor message for `draft`: what is chosen so far, then either the
    next step's options or «Send valget»."""
    lines = [title] if title else []
    lines.extend(summary(game, spec, draft.values, lang))
    seq, seat = draft.seq, draft.seat
    buttons: list[list[InlineKeyboardButton]] = []
    step = next_field(spec, draft)
    if step is not None:
        index, f = step
        lines.append(heading(game, spec, f, lang, draft.values))
        chosen = draft.values.get(f.name, []) if is_multi(f) else []
        buttons = rows(
            [
                InlineKeyboardButton(
                    ("✓ " if option in chosen else "") + value_label(game, f.name, option, lang),
                    callback_data=encode(
                        "d",
                        game.id,
                        seq,
                        seat,
                        spec.kind,
                        index,
                        encode_value(game, option),
                        draft.spec,
                    ),
                )
                for option in f.options
            ]
        )
        if is_multi(f):
            data = encode("d", game.id, seq, seat, spec.kind, index, DONE_TOKEN, draft.spec)
            buttons.append([InlineKeyboardButton(render(N_("Done"), lang), callback_data=data)])
    else:
        data = encode("s", game.id, seq, seat, spec.kind, spec=draft.spec)
        buttons = [[InlineKeyboardButton(send_label(game, spec.kind, lang), callback_data=data)]]
    if draft.values:
        data = encode("r", game.id, seq, seat, spec.kind, spec=draft.spec)
        buttons.append([InlineKeyboardButton(render(N_("Start over"), lang), callback_data=data)])
    return "\n".join(lines), InlineKeyboardMarkup(buttons)


def title_for(
    game: Game,
    spec: ActionSpec,
    lang: str,
    now: float | None = None,
    context: tuple[Msg, ...] = (),
) -> str:
    """The editor's heading: what is asked (the game's context lines for the
    question when it has any), and how long is left as of `now` (the phase's
    start when not given)."""
    if context:
        said = [render(c, lang) for c in context]
        lines = unrepeated([title(game, spec, lang), *said], said)
    elif own := question_lines(game, spec):
        lines = [render(line, lang) for line in own]
    else:
        lines = [title(game, spec, lang)]
    closes = until(game, lang, game.phase.started if now is None else now)
    if closes:
        lines.append(closes)
    return "\n".join(lines)
