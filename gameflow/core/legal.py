"""Legal actions: the one description of what a player may do right now.

A game lists, per player, `ActionSpec`s: an action kind and, for each field, the
values allowed. The same list validates input, draws Telegram keyboards and
numbers SMS menus, so a button can never offer what the rules would refuse.
"""

from __future__ import annotations

from typing import Any, NamedTuple

# A field's values are typed: a player id or word (str), a number (int), a
# yes/no (bool, never 0/1 stand-ins), or None for "none".
Value = str | bool | int | None


class Field(NamedTuple):
    """One input field and its allowed values, in display order.

    `None` among the options means the field may be left empty (no partner,
    no secret action, a vote for nobody). `many` marks a field whose value is a
    set of the options (a team, the names on a list) rather than one of them, so
    a keyboard or an SMS menu knows to offer a multi-pick without knowing the
    game; `free` marks a field answered in the player's own words. Field and ActionSpec are NamedTuples
    rather than frozen dataclasses, as events and messages are: `legal()` runs
    for every player after every input, and these cost half as much to build.
    """

    name: str
    options: tuple[Value, ...]
    many: bool = False
    # The value is the player's own words (a Traitors plea): no options to
    # pick, so a channel asks for a line of text instead of drawing buttons.
    free: bool = False

    @property
    def optional(self) -> bool:
        return None in self.options


class ActionSpec(NamedTuple):
    """One kind of action a player may take now, made for phase `phase`."""

    kind: str
    phase: int
    fields: tuple[Field, ...] = ()

    def field(self, name: str) -> Field | None:
        for f in self.fields:
            if f.name == name:
                return f
        return None

    def options(self, name: str) -> tuple[Value, ...]:
        """The allowed values of field `name`; none if there is no such field."""
        f = self.field(name)
        return f.options if f is not None else ()


def find(specs: tuple[ActionSpec, ...], kind: str) -> ActionSpec | None:
    for spec in specs:
        if spec.kind == kind:
            return spec
    return None


def spec_json(spec: ActionSpec) -> dict[str, Any]:
    """`spec` as the views show it (a player's `legal`)."""
    return {
        "kind": spec.kind,
        "phase": spec.phase,
        "fields": {f.name: list(f.options) for f in spec.fields},
    }
