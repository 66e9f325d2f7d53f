"""Simulated SMS players.

`Typist` is a player who acts only on what their texts say: it finds the
newest text that holds a question, parses the menu written there (in the
game's language, the way a person reads it) and answers with a number or the
words it asks for. It never looks at the store, `legal()` or the service; it
knows what a person at the table knows: their own name and the others' names.
Its taste (`prefer`, `avoid`) picks among what is offered, so a test can steer
a game (vote out a traitor, lay the dagger) without peeking.

`asked` says whether a player's newest question text holds their current
sheet (tests/test_scale accounts for the answers the workers refused).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

from adapters.sms import grammar as G
from adapters.sms import render as R
from adapters.sms import sheet as S
from adapters.sms.segments import prepare
from gameflow.core.state import Game
from gameflow.i18n import render

# -- reading menus --------------------------------------------------------------------


def _pattern(msgid: str, lang: str, translit: bool, **groups: str) -> re.Pattern[str]:
    """The regex of a rendered template: its words literal, its fields groups."""
    template = prepare(render(msgid, lang), lang, translit)
    out = ""
    for part in re.split(r"(\{\w+\})", template):
        name = part[1:-1] if part.startswith("{") else None
        out += f"(?P<{name}>{groups.get(name, '.+?')})" if name else re.escape(part)
    return re.compile(out + "$", re.S)


@dataclass
class Menu:
    """A menu as read from a text."""

    style: str  # options | entries | line | free
    count: int = 0  # options: how many numbers
    entries: list[tuple[int, str, list[str]]] = field(default_factory=list)  # n, label, args
    args: list[str] = field(default_factory=list)  # line: the fields
    example: str = ""
    text: str = ""


class Reader:
    """Reads the sheets of one language (the patterns of its templates)."""

    def __init__(self, lang: str, translit: bool = False) -> None:
        self.lang = lang
        self.numbered = _pattern(R.NUMBERED, lang, translit)
        self.reply = _pattern(R.REPLY, lang, translit)
        self.pick = _pattern(R.PICK, lang, translit)
        self.free = _pattern(R.FREE, lang, translit, kind="[^\n]+")
        self.name = prepare(render(R.NAME, lang), lang, translit)
        self.name_or_none = prepare(render(R.NAME_OR_NONE, lang), lang, translit)
        # A campaign's question ends with when it closes ("Answer by 18:00."),
        # under the menu: read past it, as a person does.
        self.closes = [
            _pattern(msgid, lang, translit)
            for msgid in (
                "Answer by {time}.",
                "Answer by tomorrow, {time}.",
                "Answer by {day} {time}.",
                "Time left: {left}.",
                "Time left: less than a minute.",
            )
        ]

    def menu(self, text: str) -> Menu | None:
        """The menu at the end of `text`, if it holds one."""
        head, _, tail = text.rpartition("\n")
        if head and any(p.fullmatch(tail) for p in self.closes):
            text = head
        lines = text.split("\n")
        last = lines[-1]
        m = self.numbered.search(last)
        if m:
            numbers = re.findall(r"(?:^| )(\d+) ", m["options"] + " ")
            return Menu("options", count=len(numbers), text=text)
        m = self.reply.search(last)
        if m:
            return Menu("line", args=_split_args(m["fields"]), example=m["example"], text=text)
        m = self.free.search(last)
        if m:
            return Menu("free", text=text)
        m = self.pick.search(last)
        if m:
            entries: list[tuple[int, str, list[str]]] = []
            for line in lines[:-1]:
                e = re.match(r"^(\d+) (.*)$", line)
                if e is None:
                    if entries:
                        break
                    continue
                label, _, args = e[2].partition(" + ")
                entries.append((int(e[1]), label, _split_args(args) if args else []))
            # The numbered lines are the last block before the tail.
            block: list[tuple[int, str, list[str]]] = []
            for entry in entries:
                if entry[0] == 1:
                    block = []
                block.append(entry)
            return Menu("entries", entries=block, example=m["example"], text=text)
        return None


def _split_args(text: str) -> list[str]:
    """Fields separated by ", " (a list of names uses "/", never a comma)."""
    return [a for a in text.split(", ") if a]


# -- answering --------------------------------------------------------------------------


@dataclass
class Typist:
    name: str
    table: list[str]  # everyone's names, as announced at the table
    lang: str
    rng: random.Random
    translit: bool = False
    prefer: list[str] = field(default_factory=list)  # words to pick when offered
    avoid: list[str] = field(default_factory=list)  # words never to pick if avoidable
    plea: str = "I am loyal, I swear it on the silver."
    seen: int = 0  # texts read so far
    answered: int = -1  # index of the text whose question was answered

    def __post_init__(self) -> None:
        self.reader = Reader(self.lang, self.translit)

    def latest(self, texts: list[str]) -> tuple[int, Menu] | None:
        """The newest text holding a question, and its menu."""
        for i in range(len(texts) - 1, -1, -1):
            menu = self.reader.menu(texts[i])
            if menu is not None:
                split = menu.style == "entries" and (not menu.entries or menu.entries[0][0] != 1)
                if split and i > 0:
                    # a long text split at a line end: its lines are in the one before
                    joined = self.reader.menu(texts[i - 1] + "\n" + texts[i])
                    if joined is not None:
                        return i, joined
                return i, menu
        return None

    def turn(self, texts: list[str]) -> str | None:
        """What to text now, or None: nothing newer is asked."""
        found = self.latest(texts)
        if found is None or found[0] <= self.answered:
            return None
        self.answered = found[0]
        return self.answer(found[1])

    def answer(self, menu: Menu) -> str:
        if menu.style == "free":
            return self.plea
        if menu.style == "options":
            labels = _option_labels(menu.text.split("\n")[-1], menu.count)
            return str(self._choose(list(range(1, menu.count + 1)), labels))
        if menu.style == "line":
            return " ".join(self._fields(menu.args))
        numbers = [n for n, _, _ in menu.entries]
        labels = [label for _, label, _ in menu.entries]
        n = self._choose(numbers, labels)
        args = next(a for k, _, a in menu.entries if k == n)
        return " ".join([str(n), *self._fields(args)])

    def _choose(self, numbers: list[int], labels: list[str]) -> int:
        for word in self.prefer:
            hits = [n for n, lab in zip(numbers, labels, strict=True) if _has(lab, word)]
            if hits:
                return self.rng.choice(hits)
        ok = [
            n
            for n, lab in zip(numbers, labels, strict=True)
            if not any(_has(lab, w) for w in self.avoid)
        ]
        return self.rng.choice(ok or numbers)

    def _fields(self, args: list[str]) -> list[str]:
        words: list[str] = []
        pending_none = False
        for arg in args:
            word = self._field(arg)
            if word is None:  # an optional field left empty
                pending_none = True
                continue
            if pending_none:
                words.append("-")
                pending_none = False
            words.append(word)
        return words

    def _field(self, arg: str) -> str | None:
        others = [n for n in self.table if n != self.name]
        m = re.match(r"^(.*?) \((.*)\): (.*)$", arg)  # a set of names: "team (3 names): A/B/C"
        if m:
            names = m[3].split("/")
            k = int(re.search(r"\d+", m[2])[0])  # type: ignore[index]
            return " ".join(self._some(names, k))
        m = re.match(r"^(.*?): (.*)$", arg)  # a set of any size
        if m and "/" in m[2]:
            names = m[2].split("/")
            return " ".join(self._some(names, self.rng.randint(1, len(names))))
        m = re.match(r"^(.*?) \((.*)\)$", arg)  # one player
        if m:
            inner = m[2]
            if inner in (self.reader.name, self.reader.name_or_none):
                names = list(others)
                optional = inner == self.reader.name_or_none
            else:
                names = [n for n in inner.split("/") if n != "-"]
                optional = inner.endswith("/-")
            if optional and (not names or self.rng.random() < 0.3):
                return None
            return self._some(names, 1)[0].split()[0]
        m = re.match(r"^\[(.*)\]$", arg)  # optional words
        if m:
            if self.rng.random() < 0.5:
                return None
            return self._some(m[1].split("/"), 1)[0]
        m = re.match(r"^(.*) (\d+)-(\d+)$", arg)
        if m:
            return str(self.rng.randint(int(m[2]), int(m[3])))
        m = re.match(r"^(?:(.*?) )?([^ ]+(?:/[^ ]+)+)$", arg)  # "OUTSIDE/RADIO/GUARD"
        if m:
            return self._some(m[2].split("/"), 1)[0]
        m = re.match(r"^(.*) (\d+)$", arg)
        if m:
            return m[2]
        return self.plea  # a field for one's own words

    def _some(self, names: list[str], k: int) -> list[str]:
        liked = [n for n in names if any(_has(n, w) for w in self.prefer)]
        rest = [n for n in names if n not in liked and not any(_has(n, w) for w in self.avoid)]
        shy = [n for n in names if n not in liked and n not in rest]
        self.rng.shuffle(rest)
        self.rng.shuffle(shy)
        return (liked + rest + shy)[:k]


def _has(label: str, word: str) -> bool:
    return G.fold(word) in G.fold(label).replace(",", " ").replace(":", " ").split()


def _option_labels(line: str, count: int) -> list[str]:
    """The labels of a numbered one-line menu: "Vote for: 1 Ana 2 Bo 3 Nobody."."""
    labels = []
    for i in range(1, count + 1):
        m = re.search(rf"(?:^| ){i} (.*?)(?= {i + 1} |\. |$)", line)
        labels.append(m[1] if m else "")
    return labels


# -- checking from the outside ------------------------------------------------------------


def asked(
    game: Game,
    player: str,
    texts: list[str],
    translit: bool = False,
    shown: list[str | None] | None = None,
) -> bool:
    """Whether `player`'s newest question text (of `texts`, what they were sent)
    holds their current sheet: the gateway refuses a number typed while the
    menu it last texted is not that sheet, so an answer refused while this
    holds was refused although the player had their question. `shown[i]`,
    where known, is the key of the sheet text i was sent with (two questions
    can read alike: this round's vote and the last one's); else the text is
    compared with the sheet's menu. True when nothing is asked."""
    sheet = S.sheet(game, player)
    if sheet is None:
        return True
    reader = Reader(game.lang, translit)
    menu = prepare(S.menu_text(game, sheet, game.lang), game.lang, translit)
    for i in range(len(texts) - 1, -1, -1):
        if reader.menu(texts[i]) is not None:
            key = shown[i] if shown is not None else None
            if key is not None:
                return key == sheet.key
            # a long text split: its head is the one before
            return "\n".join(texts[max(0, i - 1) : i + 1]).endswith(menu)
    return False
