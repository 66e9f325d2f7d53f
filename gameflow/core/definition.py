"""A game as one definition: everything outside the game's package needs of it.

The engine asks a game's `Rules`; the channels, the TV page, the simulator and
the catalogs ask the rest: its name and SMS words in every language, the words
of its questions and values, its short SMS forms, its TV screen, its balance
simulator and its i18n domain. Each game package exports one `GameDefinition`, and the
composition root registers it (`gameflow.core.registry`), so no module outside
a game's package branches on its kind, and the core imports no game.
The channel-specific parts are plain data or loosely typed callables: the core
stays free of adapters, and an adapter reads what it needs by field name.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

from gameflow.core.legal import ActionSpec
from gameflow.core.options import Limit, limits_of
from gameflow.core.rules import Rules
from gameflow.core.state import Game
from gameflow.core.text import Msg


class OptionInfo(NamedTuple):
    """One option as a host or a guide sees it: its type is its default's."""

    name: str
    type: type
    default: Any
    limit: Limit | None
    help: str


@dataclass(frozen=True)
class Words:
    """The game's own words, as msgids (translated in the game's domain).

    Keys are action kinds, `(kind, field)` pairs and value ids of this game; a
    channel falls back to its generic words for anything not here.
    """

    # The game's name ("Station"): the TV header, the calendar, /new.
    name: str
    # What a phone texts after NEW to make this game, folded (no accents),
    # in every language: "stasjon", "stanica".
    aliases: tuple[str, ...] = ()
    # Telegram: an action kind's own name on its button, where the channel's
    # generic one would not do.
    kind_labels: Mapping[str, str] = field(default_factory=dict)
    # Telegram: the button that sends a filled-in editor, by kind.
    send_labels: Mapping[str, str] = field(default_factory=dict)
    # Telegram: a question's title, by kind.
    titles: Mapping[str, str] = field(default_factory=dict)
    # The host's own actions (`Rules.host_kinds`): one line each saying what
    # it does, on Telegram's /gm and the console (issue #32).
    action_help: Mapping[str, str] = field(default_factory=dict)
    # Telegram: a title that depends on the state (a round number, which
    # question of the kind it is), or None to use `titles`.
    title_of: Callable[[Game, ActionSpec], Msg | None] | None = None
    # Telegram: the lines of a question that has no context lines of its own
    # (`Rules.ask` gives none), in place of its title; empty for none.
    question_lines: Callable[[Game, ActionSpec], tuple[Msg, ...]] | None = None
    # Telegram: a field's heading, by (kind, field).
    headings: Mapping[tuple[str, str], str] = field(default_factory=dict)
    # Telegram: a field's heading in any of the game's questions, by field
    # (after `headings`, before the channel's generic one).
    field_headings: Mapping[str, str] = field(default_factory=dict)
    # Telegram: a heading that names the card being given or played, by
    # (kind, field): its msgid has a {card}.
    card_headings: Mapping[tuple[str, str], str] = field(default_factory=dict)
    # Telegram: kinds whose one button names the card it plays ("Play: Spy").
    card_buttons: frozenset[str] = frozenset()
    # Cards (plot or mission cards) by their id: their names, on every channel.
    card_names: Mapping[str, str] = field(default_factory=dict)
    # Telegram: a value's words on a button (a job, a secret action).
    value_labels: Mapping[str, str] = field(default_factory=dict)
    # SMS: an action kind's name, where the generic one would not do.
    sms_kind_names: Mapping[str, str] = field(default_factory=dict)
    # SMS: a field's name, by "kind.field" or by field, where the generic
    # one would not do.
    sms_field_names: Mapping[str, str] = field(default_factory=dict)
    # SMS: a value's word in a menu (short: a text costs per segment).
    sms_value_words: Mapping[str, str] = field(default_factory=dict)
    # SMS: the shorter form of a game text every player gets every round, by
    # the full text's msgid (same parameters, fewer words).
    short_forms: Mapping[str, Msg] = field(default_factory=dict)
    # SMS: a private line's msgid -> the public line's msgid it says all of.
    supersedes: Mapping[str, str] = field(default_factory=dict)
    # SMS: a vote's tally with counts for the voters' names (a live game's
    # form; VOTES gives it in full), any other text as it is; None: no tally.
    sms_counted: Callable[[Msg], Msg] | None = None
    # TV: the screen's own labels by key (its template's `t(key)`), beside
    # the page's (adapters/tv/texts.py).
    tv_texts: Mapping[str, str] = field(default_factory=dict)
    # SMS: a yes/no field that reads better as words of its own, by (field,
    # value): "with the dagger" in a menu; "" shows nothing.
    bool_words: Mapping[tuple[str, bool], str] = field(default_factory=dict)
    # Telegram: the button that leaves a field empty, by field ("no partner").
    none_labels: Mapping[str, str] = field(default_factory=dict)
    # SMS: a field's empty value in a menu, by field ("no partner"), where
    # the generic "Nobody" would not do.
    sms_none_words: Mapping[str, str] = field(default_factory=dict)
    # SMS: the game as the help texts write it after NEW, in capitals (nb
    # "STASJON"; folded, one of `aliases`); "": the name in capitals.
    keyword: str = ""


class Translator(Protocol):
    """The TV page's texts in one language (adapters/tv/screens.py `Tr`): page
    labels by key, their plurals by key, and any msgid as it comes."""

    lang: str

    def t(self, key: str, **params: Any) -> str: ...

    def n(self, key: str, n: int) -> str: ...

    def core(self, text: Msg | str) -> str: ...


# What a game's TV `build` gets and gives (TvScreen): a player id (or None) to
# the name the page shows, and the values its template renders.
NameOf = Callable[[str | None], str]
TvContext = dict[str, Any]


def end_headline(tr: Translator, winner: str | None, won: Mapping[str, str]) -> str:
    """The end screen's headline: the page label `won[winner]` for the side
    that won, the page's "host_ended" where none did."""
    return tr.t(won.get(winner or "", "host_ended"))


@dataclass(frozen=True)
class TvScreen:
    """The game's TV screen: `template` ("package:file", a Jinja template in
    the game's package, which may include the page's own, adapters/tv/templates)
    rendered with the page's common values and `build(view, tr, name_of)`,
    `tr` the page's translator (its `t`, `n` and `core`)."""

    template: str
    build: Callable[[dict[str, Any], Translator, NameOf], TvContext]


class Part(NamedTuple):
    """A player in a game's story: their name, their role at the end, whether
    it was the side hidden while the game ran, and what became of them."""

    name: str
    role: Msg
    hidden_side: bool
    notes: tuple[Msg, ...] = ()


class Chapter(NamedTuple):
    """One round of a game's story: what was done in secret, what the table saw."""

    title: Msg
    secret: tuple[Msg, ...]
    public: tuple[Msg, ...]


class Story(NamedTuple):
    """An ended game, round by round with every secret (adapters/story):
    the end's headline lines, every player's part, the rounds, the seed."""

    head: tuple[Msg, ...]
    cast: tuple[Part, ...]
    chapters: tuple[Chapter, ...]
    seed: str


def lazy(path: str) -> Callable[..., Any]:
    """The function at `path` ("package.module:name"), imported when first
    called: a definition names its bots without loading them."""
    module, _, name = path.partition(":")

    def call(*args: Any, **kw: Any) -> Any:
        return getattr(importlib.import_module(module), name)(*args, **kw)

    return call


@dataclass(frozen=True)
class Simulator:
    """`muldvarp simulate GAME` (gameflow/simulate.py): `run(players, games,
    seed, *, options, bots, plots, progress)` prints the game's balance table
    and returns the exit code; `players` is the default range ("5-10");
    `extra` names the game's own command-line options ("final_day")."""

    players: str
    run: Callable[..., int]
    extra: tuple[str, ...] = ()


@dataclass(frozen=True)
class GameDefinition:
    """One game: its rules and all the rest of the system needs to know of it."""

    rules: Rules
    words: Words
    tv: TvScreen | None = None
    simulator: Simulator | None = None
    # A private channel for the game's team (the Traitors' night chat): what a
    # player writes privately is relayed by `relay(game, player, text)`, which
    # returns the events to deliver or a refusal.
    relay: Callable[[Game, str, str], Any] | None = None
    # Talk through the bot (issue #33, service/talk.py). `team(game, player)`:
    # the private team `player` talks with now, every living member whose
    # talk is open, `player` first; () for none. None: the game has no team talk.
    team: Callable[[Game, str], tuple[str, ...]] | None = None
    # Whether a seated player is out of all talk now (murdered, banished).
    silenced: Callable[[Game, str], bool] | None = None
    # Whether the whole table may talk in the current phase (the service adds
    # the hours and the options); None: in any running phase.
    table_talk: Callable[[Game], bool] | None = None
    # The newest vote's tally with every voter's name (what SMS VOTES
    # answers), for a game whose tallies an SMS gives as counts; else None.
    last_tally: Callable[[Game], Msg | None] | None = None
    # What each option is for, one line each (the guide and `/set` help).
    option_help: Mapping[str, str] = field(default_factory=dict)
    # The end's reveal for every player (issue #32): every role, the secret
    # actions that decided the game, the winners and the fair-deal seed, as
    # lines; `brief` asks for the short form an SMS can carry. None: no reveal.
    reveal: Callable[[Game, bool], tuple[Msg, ...]] | None = None
    # A warning for a setup whose side wins more than 65 % by the game's
    # balance table (docs/balance.md), given the players and the options.
    lopsided: Callable[[int, Mapping[str, Any]], Msg | None] | None = None
    # Everything secret as the game goes, for a game master who plays no role
    # (the console); None: the game has no secret view.
    gm_view: Callable[[Game], dict[str, Any]] | None = None
    # The ended game's story, round by round with every secret (issue #32,
    # item 6); None before the end or for a game never dealt.
    story: Callable[[Game], Story | None] | None = None

    @property
    def kind(self) -> str:
        return self.rules.kind

    @property
    def domain(self) -> str:
        """The game's i18n domain: its package's catalogs (docs/translating.md)."""
        return self.rules.kind

    @property
    def players(self) -> range:
        """How many players the game takes (its rules' range)."""
        return range(self.rules.min_players, self.rules.max_players + 1)

    @property
    def team_channel(self) -> bool:
        """Whether the game has a private channel for a team (`team`, `relay`)."""
        return self.team is not None or self.relay is not None

    def options(self) -> tuple[OptionInfo, ...]:
        """Every option with its type, default, limit and one-line help."""
        limits = limits_of(self.rules)
        return tuple(
            OptionInfo(name, type(value), value, limits.get(name), self.option_help.get(name, ""))
            for name, value in self.rules.default_options().items()
        )
