"""The console's controls: the host's actions that can apply now, and the
action a submitted control stands for.

Everything comes from `legal(game, host)` (and `away.gone_specs`), the same list the chat commands
and keyboards draw from: the core's (start, pause or resume, advance, end,
removing a lobby player, marking a player gone for good or back) and the game's own game-master actions
(`Rules.host_kinds`). A control without fields is offered only if the core
would accept it right now (a dry run of `apply`), so "Start" is not offered to
a lobby too small to start and "End this phase now" only when everyone is
ready. A field answered in words (the clock time a campaign window moves to)
is typed in; option values and the language stay with the chat commands.
Muting a player's talk is no game action: its controls (`talk_controls`)
go through service/talk.py as the chat's /mute does. A submitted control is
turned into the core action through the game's script-step parser
(`gameflow.replay.parse_step`), never by building a game's classes here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from adapters.console.texts import TEXTS
from adapters.tv.texts import TEXTS as TV_TEXTS
from gameflow.core import actions as A
from gameflow.core import registry
from gameflow.core.away import gone_specs
from gameflow.core.engine import apply, legal
from gameflow.core.legal import ActionSpec, Value
from gameflow.core.result import Rejected
from gameflow.core.state import Game
from gameflow.i18n import render
from gameflow.replay import parse_step
from service import talk
from service.games import GameService

CORE_KINDS = (
    A.Start.kind,
    A.Kick.kind,
    A.Pause.kind,
    A.Resume.kind,
    A.Advance.kind,
    A.MoveWindow.kind,
    A.Gone.kind,
    A.NotGone.kind,
    A.End.kind,
)
FREE_LENGTH = 16  # a free field's words (a clock time) are short
# The host mutes and unmutes a player's talk through the bot: no game action
# but service/talk.py's, as the chat's /mute and MUTE NAME.
TALK_KINDS = ("talk_mute", "talk_unmute")


class Option(NamedTuple):
    value: str  # the value as JSON, as the form sends it back
    label: str


class Choice(NamedTuple):
    name: str
    heading: str
    many: bool
    options: tuple[Option, ...]
    free: bool = False  # typed in (a clock time), not picked


class Control(NamedTuple):
    kind: str
    phase: int
    label: str
    help: str
    choices: tuple[Choice, ...]
    danger: bool = False


def _offerable(game: Game, spec: ActionSpec) -> bool:
    """A kind the console draws: the core's listed ones, and the game's own
    game-master actions whose fields all have values to pick."""
    if spec.kind in CORE_KINDS:
        return True
    rules = registry.get(game.kind).rules
    return spec.kind in rules.host_kinds and all(f.options and not f.free for f in spec.fields)


def action_for(game: Game, spec: ActionSpec, values: Mapping[str, Any]) -> A.Action:
    """The core action of `spec` with `values`. ValueError if malformed."""
    step: dict[str, Any] = {"as": game.host, "do": spec.kind, "phase": spec.phase}
    step.update(values)
    return parse_step(game, step)


def applies(game: Game, spec: ActionSpec, now: float) -> bool:
    """A field-less control applies if the core accepts it now; one with
    fields is offered while `legal` lists it (the core checks the values)."""
    if spec.fields:
        return True
    try:
        action = action_for(game, spec, {})
    except ValueError:
        return False
    return not isinstance(apply(game, action, now), Rejected)


def specs_now(game: Game, now: float) -> tuple[ActionSpec, ...]:
    """The host's specs the console offers now."""
    if game.over:
        return ()
    offered = (*legal(game, game.host), *gone_specs(game))  # gone: not in legal(), see away
    return tuple(s for s in offered if _offerable(game, s) and applies(game, s, now))


def value_label(game: Game, field: str, value: Value, lang: str) -> str:
    words = registry.get(game.kind).words
    if isinstance(value, bool):
        own = words.bool_words.get((field, value))
        return render(own or TEXTS["yes" if value else "no"], lang)
    if value is None:
        return render(TEXTS["nothing"], lang)
    if isinstance(value, int):
        return str(value)
    if field == "window" and f"phase_{value}" in TV_TEXTS:  # a campaign window: its phase
        return render(TV_TEXTS[f"phase_{value}"], lang)
    if game.seat(value) >= 0:
        return game.name_of(value)
    own = words.value_labels.get(value) or words.card_names.get(value)
    return render(own, lang) if own else "?"


def label_of(game: Game, kind: str, lang: str) -> tuple[str, str]:
    """A control's name and its one line of help."""
    if kind in TALK_KINDS:
        return render(TEXTS[kind], lang), render(TEXTS[f"{kind}_help"], lang)
    if kind in CORE_KINDS:
        help_key = {"advance_early": "advance_help", "move_window": "move_help"}.get(
            kind, f"{kind}_help"
        )
        return render(TEXTS[kind], lang), render(TEXTS[help_key], lang)
    words = registry.get(game.kind).words
    name = words.sms_kind_names.get(kind) or words.kind_labels.get(kind) or kind
    help_text = words.action_help.get(kind) or words.titles.get(kind) or TEXTS["game_help"]
    return render(name, lang), render(help_text, lang)


def controls(game: Game, now: float, lang: str) -> tuple[Control, ...]:
    words = registry.get(game.kind).words
    out = []
    for spec in specs_now(game, now):
        name, line = label_of(game, spec.kind, lang)
        choices = []
        for f in spec.fields:
            heading = (
                words.headings.get((spec.kind, f.name))
                or words.field_headings.get(f.name)
                or TEXTS.get(f"field_{f.name}")
            )
            options = tuple(
                Option(json.dumps(v), value_label(game, f.name, v, lang)) for v in f.options
            )
            shown = render(heading, lang) if heading else ""
            choices.append(Choice(f.name, shown, f.many, options, f.free))
        danger = spec.kind in (A.End.kind, A.Kick.kind, A.Gone.kind)
        out.append(Control(spec.kind, spec.phase, name, line, tuple(choices), danger))
    return (*out, *talk_controls(game, lang))


def talk_controls(game: Game, lang: str) -> tuple[Control, ...]:
    """Mute and unmute a player's talk, while a game with talk through the
    bot (the table's or a team's: service/talk.py `kinds`) runs."""
    if not _talk_open(game):
        return ()
    heading = render(TEXTS["field_target"], lang)
    players = tuple(Option(json.dumps(p), game.name_of(p)) for p in game.players)
    return tuple(
        Control(
            kind,
            game.phase.seq,
            *label_of(game, kind, lang),
            (Choice("target", heading, False, players),),
        )
        for kind in TALK_KINDS
    )


def _talk_open(game: Game) -> bool:
    """Whether the talk controls are offered (and taken) now."""
    return game.running and not game.over and any(talk.kinds(game))


async def talk_control(
    service: GameService, game: Game, kind: str, values: Mapping[str, Sequence[str]], key: str
) -> tuple[str, bool] | None:
    """A submitted talk control applied through service/talk.py `hush_player`,
    once per `key`: the notice and whether it applied; None when `kind` is
    not a talk control (a game action: `build`)."""
    if kind not in TALK_KINDS:
        return None
    sent = values.get("target", ())
    try:
        target = json.loads(sent[0]) if len(sent) == 1 else None
    except ValueError:
        target = None
    if not _talk_open(game) or target not in game.players:
        return render(TEXTS["bad_request"], game.lang), False
    reply = await talk.hush_player(service.store, game, target, kind == "talk_mute", key)
    return render(reply if reply is not None else TEXTS["duplicate"], game.lang), True


def build(
    game: Game, now: float, kind: str, values: Mapping[str, Sequence[str]]
) -> A.Action | None:
    """The action a submitted control stands for, if the control is offered
    now and every value is one it offers (`values`: field -> the JSON values
    sent); None otherwise, and nothing is applied."""
    spec = next((s for s in specs_now(game, now) if s.kind == kind), None)
    if spec is None:
        return None
    chosen: dict[str, Any] = {}
    for f in spec.fields:
        sent = values.get(f.name, ())
        if f.free:  # the words as typed: the core checks them (a clock time)
            if len(sent) != 1 or not sent[0].strip() or len(sent[0]) > FREE_LENGTH:
                return None
            chosen[f.name] = sent[0].strip()
            continue
        try:
            picked = [json.loads(v) for v in sent]
        except ValueError:
            return None
        if any(p not in f.options or isinstance(p, dict | list) for p in picked):
            return None
        if f.many:
            chosen[f.name] = picked
        elif len(picked) == 1:
            chosen[f.name] = picked[0]
        else:
            return None
    try:
        return action_for(game, spec, chosen)
    except ValueError:
        return None
