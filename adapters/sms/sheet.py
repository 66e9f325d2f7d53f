"""A player's SMS menu (their "sheet"): the open question as they read it, and
their answer read back against exactly that menu.

The question is a view (`gameflow.core.question`): after every commit the
notifier compares each SMS player's question key with the key of the sheet it
last texted them, and texts the new sheet when they differ. A number a player
types names one entry of that sheet, and each entry stands for exactly one
spec of `legal()` with some of its values already chosen, so two plot cards to
play are two numbers, and "1" on `Approve the team: 1 yes 2 no` is a yes.

Four layouts, picked from the question's shape, never from the game:

- OPTIONS: one spec with one field to choose (a vote, yes/no, a mission card):
  `Vote for: 1 Ana 2 Bo 3 Nobody. Reply with the number.` A word works too.
- ENTRIES: several specs, or one whose single word field is worth a number
  each (giving one of two cards): one numbered line per entry, the fields
  still to fill after a `+`: `1 Give a card: No Confidence + Give it to (name)`,
  answered `1 Ana`.
- LINE: one spec with several fields to fill (Station's choice, a team): the
  one-line forms of docs/sms.md, `2 G ANA`, or `Ana Bo Cato` for a team of 3.
- FREE: the player's own words (the Traitors plea): the next text is the answer.

Every sheet ends with an example that works as written. A team's size is not
in `legal()`; it is found by asking the rules themselves (`apply` on the
first names, which is pure), so the example and the menu say how many names.

The game master's own controls (Traitors) are part of the host's sheet, and
of its key: they change a few times a day.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, NamedTuple, TypeVar

from cachetools import LRUCache

from adapters.sms import grammar as G
from adapters.sms import render as R
from adapters.sms.segments import is_gsm7
from gameflow.core.actions import Action
from gameflow.core.engine import apply, legal
from gameflow.core.legal import ActionSpec, Field, Value
from gameflow.core.question import question
from gameflow.core.result import Accepted
from gameflow.core.rules import rules_for
from gameflow.core.state import Game
from gameflow.core.text import Msg, nmsg
from gameflow.i18n import render
from gameflow.replay import parse_step

V = TypeVar("V", bound=Value)

OPTIONS, ENTRIES, LINE, FREE = "options", "entries", "line", "free"


class Arg(NamedTuple):
    """A field the player types: its options as the grammar reads them."""

    field: G.MenuField
    free: bool = False
    size: int | None = None  # a set of exactly this many names (a team)
    listed: bool = True  # players named in the menu (not simply "anyone else")


class Entry(NamedTuple):
    """One numbered line: one spec, the values it sets, the fields left to type."""

    spec: ActionSpec
    fixed: tuple[tuple[str, Value], ...]
    args: tuple[Arg, ...]


class Sheet(NamedTuple):
    key: str
    style: str
    entries: tuple[Entry, ...]
    context: tuple[Msg, ...] = ()


# -- which sheet ------------------------------------------------------------------------


def _host_specs(game: Game, player: str) -> tuple[ActionSpec, ...]:
    if player != game.host or not game.running:
        return ()
    kinds = rules_for(game.kind).host_kinds
    if not kinds:
        return ()
    seq = game.phase.seq
    return tuple(s for s in legal(game, player) if s.kind in kinds and s.phase == seq)


Parts = tuple[str, tuple[ActionSpec, ...], tuple[Msg, ...]] | None
# (game, version, player) -> (the state worked out for, its parts): a commit's
# composer and the next input's gateway ask again about the same state object.
# Checked by identity: a state of the same version that lost its commit's race
# never answers for another.
_KNOWN: LRUCache[tuple[str, int, str], tuple[Game, Parts]] = LRUCache(maxsize=4096)


def _parts(game: Game, player: str) -> Parts:
    known = _KNOWN.get((game.id, game.version, player))
    if known is not None and known[0] is game:
        return known[1]
    parts = _work_out(game, player)
    _KNOWN[game.id, game.version, player] = (game, parts)
    return parts


def _work_out(game: Game, player: str) -> Parts:
    q = question(game, player)
    host = _host_specs(game, player)
    if q is None and not host:
        return None
    specs = (q.specs if q else ()) + host
    context = q.context if q else ()
    if not host and q is not None:
        return q.key, specs, context
    text = repr((q.key if q else None, host))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:20], specs, context


def key_of(game: Game, player: str) -> str | None:
    """The key of `player`'s sheet (None: nothing to answer): cheap, no layout."""
    parts = _parts(game, player)
    return None if parts is None else parts[0]


def sheet(game: Game, player: str) -> Sheet | None:
    """`player`'s sheet now, or None when nothing is asked of them."""
    parts = _parts(game, player)
    if parts is None:
        return None
    key, specs, context = parts
    style, entries = _layout(game, player, specs)
    return Sheet(key, style, entries, context)


def _choices(spec: ActionSpec) -> list[Field]:
    return [f for f in spec.fields if f.free or f.many or len(f.options) > 1]


def _of_players(game: Game, f: Field) -> bool:
    return any(isinstance(o, str) and game.seat(o) >= 0 for o in f.options)


def _wordish(game: Game, f: Field) -> bool:
    """A field of a few words (yes/no, cards, chests): worth a number each."""
    return not f.many and not f.free and len(f.options) > 1 and not _of_players(game, f)


def _fixed(spec: ActionSpec) -> tuple[tuple[str, Value], ...]:
    return tuple(
        (f.name, f.options[0])
        for f in spec.fields
        if not f.free and not f.many and len(f.options) == 1
    )


def _layout(
    game: Game, player: str, specs: tuple[ActionSpec, ...]
) -> tuple[str, tuple[Entry, ...]]:
    if len(specs) == 1:
        spec = specs[0]
        ch = _choices(spec)
        words = [f for f in ch if _wordish(game, f)]
        if len(ch) == 1 and ch[0].free:
            return FREE, (_entry(game, player, spec, (), ch),)
        if len(ch) == 1 and not ch[0].many:
            return OPTIONS, _flat(game, player, spec, ch[0], ch)
        if not ch:
            return ENTRIES, (_entry(game, player, spec, (), ch),)
        ints = [f for f in words if _has_int(f)]
        if len(words) == 1 and not ints:
            return ENTRIES, _flat(game, player, spec, words[0], ch)
        return LINE, (_entry(game, player, spec, (), ch),)
    entries: list[Entry] = []
    for spec in specs:
        ch = _choices(spec)
        words = [f for f in ch if _wordish(game, f)]
        if len(words) == 1:
            entries.extend(_flat(game, player, spec, words[0], ch))
        else:
            entries.append(_entry(game, player, spec, (), ch))
    return ENTRIES, tuple(entries)


def _flat(
    game: Game, player: str, spec: ActionSpec, over: Field, ch: list[Field]
) -> tuple[Entry, ...]:
    rest = [f for f in ch if f is not over]
    return tuple(_entry(game, player, spec, ((over.name, v),), rest) for v in over.options)


def _entry(
    game: Game,
    player: str,
    spec: ActionSpec,
    chosen: tuple[tuple[str, Value], ...],
    fields: list[Field],
) -> Entry:
    fixed = _fixed(spec) + chosen
    args = tuple(_arg(game, player, spec, f, fixed) for f in fields)
    return Entry(spec, fixed, args)


def _arg(
    game: Game, player: str, spec: ActionSpec, f: Field, fixed: tuple[tuple[str, Value], ...]
) -> Arg:
    field = G.MenuField(
        f.name, tuple(G.Option(v, R._words(game, f.name, v)) for v in f.options), f.many
    )
    if f.free:
        return Arg(field, free=True)
    count = _count(game, player, spec, f, fixed) if f.many else None
    listed = True
    if _of_players(game, f) and not f.many:
        others = {p for p in game.players if p != player}
        listed = {o for o in f.options if o is not None} != others
    return Arg(field, size=count, listed=listed)


def _count(
    game: Game, player: str, spec: ActionSpec, f: Field, fixed: tuple[tuple[str, Value], ...]
) -> int | None:
    """How many names the rules take in set field `f` (a team of 3), found by
    trying the first k names: `apply` is pure, so this asks the one validator
    there is. None when several sizes (or none) are taken."""
    names = [o for o in f.options if o is not None]
    base: dict[str, Any] = {"do": spec.kind, "as": player, "phase": spec.phase, **dict(fixed)}
    for other in spec.fields:
        if other.name not in base and other is not f and other.options and not other.many:
            base[other.name] = other.options[0]
    taken = []
    for k in range(1, len(names) + 1):
        try:
            action = parse_step(game, {**base, f.name: names[:k]})
        except ValueError:
            continue
        if isinstance(apply(game, action, game.phase.started), Accepted):
            taken.append(k)
            if len(taken) > 1:
                return None
    return taken[0] if taken else None


def _has_int(f: Field | G.MenuField) -> bool:
    options = [o.value if isinstance(o, G.Option) else o for o in f.options]
    return any(isinstance(v, int) and not isinstance(v, bool) for v in options)


# -- the text ---------------------------------------------------------------------------


def text(game: Game, sh: Sheet, lang: str) -> str:
    """The sheet as texted: the question's context lines, then the menu."""
    lines = [render(m, lang) for m in sh.context]
    lines.append(menu_text(game, sh, lang))
    return "\n".join(line for line in lines if line)


def menu_text(game: Game, sh: Sheet, lang: str) -> str:
    entries = sh.entries
    if sh.style == FREE:
        return R.t(R.FREE, lang, kind=R.kind_name(game, entries[0].spec.kind, lang))
    if sh.style == OPTIONS:
        spec = entries[0].spec
        name, _ = entries[0].fixed[-1]
        options = " ".join(
            f"{i} {R.label(game, name, e.fixed[-1][1], lang)}" for i, e in enumerate(entries, 1)
        )
        head = R.field_name(name, lang, spec.kind)
        shown = _shown(game, entries[0].fixed[:-1], lang)
        if shown:
            head = f"{R.kind_name(game, spec.kind, lang)} {shown}. {head}"
        return R.t(R.NUMBERED, lang, field=head, options=options)
    if sh.style == LINE:
        e = entries[0]
        fields = ", ".join(_arg_text(game, e.spec.kind, a, lang) for a in e.args)
        return R.t(R.REPLY, lang, fields=fields, example=_example(game, e, lang))
    lines = []
    example = "1"
    for i, e in enumerate(entries, 1):
        line = f"{i} {R.kind_name(game, e.spec.kind, lang)}"
        shown = _shown(game, e.fixed, lang)
        if shown:
            line += f": {shown}"
        if e.args:
            line += " + " + ", ".join(_arg_text(game, e.spec.kind, a, lang) for a in e.args)
            if example == "1":
                example = f"{i} {_example(game, e, lang)}"
        lines.append(line)
    lines.append(R.t(R.PICK, lang, example=example))
    return "\n".join(lines)


def _shown(game: Game, fixed: tuple[tuple[str, Value], ...], lang: str) -> str:
    """The values an entry sets that are worth a word (a card; not "nobody")."""
    words = []
    for name, value in fixed:
        if value is None or (isinstance(value, str) and game.seat(value) >= 0):
            continue
        text = R.label(game, name, value, lang)
        if text:
            words.append(text)
    return ", ".join(words)


def _arg_text(game: Game, kind: str, a: Arg, lang: str) -> str:
    f = a.field
    name = R.field_name(f.name, lang, kind)
    values = [o.value for o in f.options if o.value is not None]
    if a.free:
        return name
    if f.many:
        names = "/".join(R.label(game, f.name, v, lang) for v in values)
        if a.size is not None:
            count = render(nmsg("{n} name", "{n} names", a.size), lang)
            return f"{name} ({count}): {names}"
        return f"{name}: {names}"
    if values and all(isinstance(v, str) and game.seat(v) >= 0 for v in values):
        if a.listed:
            names = "/".join(R.label(game, f.name, v, lang) for v in values)
            return f"{name} ({names}/-)" if f.optional else f"{name} ({names})"
        tail = R.t(R.NAME_OR_NONE, lang) if f.optional else R.t(R.NAME, lang)
        return f"{name} ({tail})"
    if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        ints = sorted(int(v) for v in values if isinstance(v, int))
        run = ints == list(range(ints[0], ints[-1] + 1)) and len(ints) > 2
        return f"{name} {ints[0]}-{ints[-1]}" if run else f"{name} {'/'.join(map(str, ints))}"
    opts = "/".join(R.label(game, f.name, v, lang).upper() for v in values)
    # The options name the field well enough ("OUTSIDE/RADIO/GUARD", not "job …").
    return f"[{opts}]" if f.optional else opts


def _example(game: Game, e: Entry, lang: str) -> str:
    """A valid answer to entry `e`'s fields, written the short way."""
    words: list[str] = []
    for a in e.args:
        f = a.field
        values = [o.value for o in f.options if o.value is not None]
        if a.free:
            words.append("...")
            continue
        if f.optional and not any(isinstance(v, str) and game.seat(v) >= 0 for v in values):
            continue  # secret actions and the like: not in the example
        if not values:
            words.append("-")
            continue
        if f.many:
            for v in values[: a.size or 1]:
                words.append(R.label(game, f.name, v, lang).split()[0])
            continue
        v = _sample(game, values)
        text = R.label(game, f.name, v, lang)
        if isinstance(v, int) or game.seat(str(v)) >= 0:
            words.append(text.split()[0].upper() if text else "-")
        else:
            words.append(_short(text, [R.label(game, f.name, w, lang) for w in values]))
    return " ".join(words)


def _sample(game: Game, values: Sequence[V]) -> V:
    """The value an example shows: for a player, the shortest name of one who
    plays this phase (naming a player who sits out is allowed, but a poor
    example; a name that keeps the text in GSM-7 first); otherwise the second
    option (the first is often a default)."""
    players = [v for v in values if isinstance(v, str) and game.seat(v) >= 0]
    if players and len(players) == len(values):
        playing = set(rules_for(game.kind).expected(game))
        shown = [v for v in players if game.seat(v) in playing] or players
        # A name outside GSM-7 (Đorđe) would make the whole text UCS-2: 2.3x the cost.
        return min(shown, key=lambda v: (not is_gsm7(_name(game, v)), len(_name(game, v))))
    return values[min(1, len(values) - 1)]


def _name(game: Game, player: str) -> str:
    return game.names[game.seat(player)]


def _short(text: str, others: list[str]) -> str:
    """The shortest prefix of `text` no other label starts with."""
    for n in range(1, len(text) + 1):
        head = G.fold(text[:n])
        if sum(G.fold(o).startswith(head) for o in others) == 1:
            return text[:n].upper()
    return text.upper()


# -- the answer -------------------------------------------------------------------------


def read(game: Game, sh: Sheet, player: str, body: str) -> Action | G.Unmatched:
    """The action `body` stands for on sheet `sh`, or why it stands for none."""
    words = G.tokens(body)
    if not words:
        return G.Unmatched("nothing")
    if sh.style == FREE:
        return _action(game, player, sh.entries[0], {sh.entries[0].args[0].field.name: body})
    if len(words) > G.MAX_TOKENS:
        return G.Unmatched("too_long")
    folded = [G.fold(w).strip(".!") or w for w in words]
    if sh.style == OPTIONS:
        return _read_option(game, sh, player, folded)
    if sh.style == LINE:
        return _read_args(game, player, sh.entries[0], folded, body)
    n = _number(folded[0], len(sh.entries))
    if n is not None:
        return _read_args(game, player, sh.entries[n - 1], folded[1:], _after_first(body))
    if len(folded) == 1:  # a word naming one entry: "success", "pass"
        hits = [e for e in sh.entries if not e.args and _names(game, e, folded[0])]
        if len(hits) == 1:
            return _action(game, player, hits[0], {})
    return G.Unmatched("unclear")


def _read_option(game: Game, sh: Sheet, player: str, folded: list[str]) -> Action | G.Unmatched:
    name = sh.entries[0].fixed[-1][0]
    if len(folded) == 1:
        n = _number(folded[0], len(sh.entries))
        if n is not None:
            return _action(game, player, sh.entries[n - 1], {})
    field = G.MenuField(
        name,
        tuple(G.Option(e.fixed[-1][1], R._words(game, name, e.fixed[-1][1])) for e in sh.entries),
    )
    for word in (folded[0], " ".join(folded)) if len(folded) > 1 else (folded[0],):
        value = G.pick(field, word)
        if not isinstance(value, G._Missing) and (len(folded) == 1 or word != folded[0]):
            for e in sh.entries:
                if e.fixed[-1][1] == value:
                    return _action(game, player, e, {})
    return G.Unmatched("unclear", name)


def _read_args(
    game: Game, player: str, e: Entry, folded: list[str], raw: str
) -> Action | G.Unmatched:
    if any(a.free for a in e.args):
        said = raw.strip()
        if not said:
            return G.Unmatched("nothing")
        return _action(game, player, e, {e.args[0].field.name: said})
    fields = tuple(a.field for a in e.args)
    while len(folded) > len(fields) and folded[-1] == "-":
        folded = folded[:-1]  # "-" for a part this menu doesn't ask ("2 G - -" of a loyal player)
    readings = list(G._readings(fields, folded))
    if len(readings) == 1:
        return _action(game, player, e, readings[0])
    if not readings:
        return G.Unmatched("unclear", G._first_bad(fields, folded) if fields else None)
    return G.Unmatched("ambiguous")


def _names(game: Game, e: Entry, word: str) -> bool:
    if not e.fixed:
        return False
    name, value = e.fixed[-1]
    return value is not None and word in R._words(game, name, value)


def _number(word: str, count: int) -> int | None:
    if word.isdecimal() and len(word) <= 3 and 1 <= int(word) <= count:
        return int(word)
    return None


def _after_first(body: str) -> str:
    parts = body.strip().split(None, 1)
    return parts[1] if len(parts) > 1 else ""


def starts_with_number(body: str) -> bool:
    words = G.tokens(body)
    return bool(words) and words[0].isdecimal()


def _action(
    game: Game, player: str, e: Entry, values: dict[str, Value | tuple[Value, ...]] | dict[str, Any]
) -> Action | G.Unmatched:
    step: dict[str, Any] = {"do": e.spec.kind, "as": player, "phase": e.spec.phase}
    step.update(dict(e.fixed))
    for name, value in values.items():
        step[name] = list(value) if isinstance(value, tuple) else value
    try:
        return parse_step(game, step)
    except ValueError:
        return G.Unmatched("unclear")


def unmatched(game: Game, result: G.Unmatched, sh: Sheet | None, lang: str) -> str:
    """The reply to an answer that fits nothing: what was expected."""
    if sh is None:
        return R.t(R.NOTHING_NOW, lang)
    hint = menu_text(game, sh, lang)
    if result.reason == "ambiguous":
        return R.t(R.AMBIGUOUS, lang, hint=hint)
    if result.reason == "too_long":
        return R.t(R.TOO_LONG, lang, hint=hint)
    if result.field is not None and sh.style == LINE and len(sh.entries[0].args) > 1:
        name = R.field_name(result.field, lang, sh.entries[0].spec.kind)
        return R.t(R.UNCLEAR_FIELD, lang, field=name, hint=hint)
    return R.t(R.UNCLEAR, lang, hint=hint)
