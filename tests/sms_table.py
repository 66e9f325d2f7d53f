"""A table of SMS players playing a whole game through the wire.

The game is hosted by an SMS phone; players join with `JOIN code name`, the
host texts `START GAME`, and from then on every player is a `Typist` that acts
only on its own texts (collected at the fake Twilio). Deadlines expire the way
the scheduler delivers them: the injected clock jumps to the deadline and a
`Deadline` input for that phase is submitted.

Two checks run after every step, from the outside: every answer that was
typed from a menu is taken (the game's version moves), and every seat the
rules wait for has, as its newest question text, its current sheet.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from typing import Any

from adapters.sms import render as R
from adapters.sms import sheet as S
from adapters.sms.segments import prepare
from gameflow.core import actions as A
from gameflow.core.rules import rules_for
from gameflow.core.state import Game
from tests.sms_helpers import World
from tests.sms_typist import Typist

NAMES = [
    "Kristoffer", "Ingeborg", "Sigurd", "Åse", "Bjørnar", "Torbjørn",
    "Ragnhild", "Øystein", "Dragana", "Milica",
]  # fmt: skip
HOST_PHONE = "+4790000900"


class Table:
    def __init__(self, w: World, kind: str, n: int, lang: str, seed: int) -> None:
        self.w = w
        self.kind = kind
        self.n = n
        self.lang = lang
        self.rng = random.Random(f"{kind}/{seed}")
        self.phones = [f"+4791{seed % 100:02d}{i:04d}" for i in range(n)]
        self.names = NAMES[:n]
        self.typists = [
            Typist(name, self.names, lang, random.Random(f"{seed}/{i}"), w.settings.transliterate)
            for i, name in enumerate(self.names)
        ]
        self.game_id = ""
        self.answers = 0
        self.stale = 0
        self.deadlines = 0
        self.checks = 0
        self.phases: Counter[str] = Counter()
        self.kinds: Counter[str] = Counter()
        self.cards: Counter[str] = Counter()  # plot cards played and given

    async def open(
        self, options: dict[str, Any] | None = None, setup: dict[str, Any] | None = None
    ) -> None:
        w = self.w
        host = w.pid(HOST_PHONE)
        created = await w.service.create_game(
            self.kind,
            host,
            lang=self.lang,
            options=options,
            setup=setup,
            seed=f"t-{self.rng.random()}",
        )
        self.game_id = created.game.id
        await w.sms.directory.set_phone(host, HOST_PHONE, self.game_id)
        await w.store.bind(HOST_PHONE, self.game_id, host)
        for phone, name in zip(self.phones, self.names, strict=True):
            await w.text(phone, f"{_join(self.lang)} {created.code} {name}")
        await w.text(HOST_PHONE, "START GAME")
        game = await self.game()
        assert game.running, w.inbox(HOST_PHONE)[-2:]

    async def game(self) -> Game:
        return await self.w.service.load(self.game_id)

    def pid(self, i: int) -> str:
        return self.w.pid(self.phones[i])

    async def play(self, expire: float = 0.08, limit: int = 2500) -> Game:
        """Play until the game ends; `expire`: how often a deadline is let run out
        while someone could still answer."""
        w = self.w
        for _ in range(limit):
            game = await self.game()
            if game.over:
                return game
            self.check_waits(game)
            self.phases[game.phase.name] += 1
            acted = False
            if self.rng.random() >= expire:
                for i in self.rng.sample(range(self.n), self.n):
                    text = self.typists[i].turn(w.inbox(self.phones[i]))
                    if text is None:
                        continue
                    await self.answer(i, text, game)
                    acted = True
                    break
            if not acted:
                await self.expire(game)
        raise AssertionError(f"the game did not end: {(await self.game()).phase}")

    async def answer(self, i: int, text: str, game: Game) -> None:
        w = self.w
        phone = self.phones[i]
        before = len(w.inbox(phone))
        sheet = S.sheet(game, self.pid(i))
        found = self.typists[i].latest(w.inbox(phone))
        asked = found[1].text if found else ""
        current = sheet is not None and asked.endswith(self._menu(game, sheet))
        await w.text(phone, text)
        after = await self.game()
        replies = w.inbox(phone)[before:]
        if not current:
            # An answer to a question that has closed (its deadline passed):
            # not an offered answer; it is refused with a reply that says why.
            assert after.version == game.version and replies, (
                text,
                replies,
                asked,
                self._menu(game, sheet) if sheet else None,
            )
            self.stale += 1
            return
        assert after.version > game.version, (
            f"{self.names[i]} typed {text!r} as their text asked and was refused: "
            f"{replies} (asked: {asked!r})"
        )
        if sheet is not None:
            taken = S.read(game, sheet, self.pid(i), text)
            self.kinds[getattr(taken, "kind", "?")] += 1
            card = getattr(taken, "card", None)
            if isinstance(card, str):
                self.cards[f"{taken.kind}:{card}"] += 1
        self.answers += 1

    async def expire(self, game: Game) -> None:
        """The phase's deadline passes (the scheduler's delivery), or, for a
        phase without one, the host texts NEXT."""
        w = self.w
        deadline = game.phase.deadline
        if deadline is None:
            await w.text(HOST_PHONE, "NEXT")
            after = await self.game()
            assert after.version > game.version, w.inbox(HOST_PHONE)[-1:]
            return
        w.clock.now = max(w.clock.now, deadline) + 0.5
        outcome = await w.service.submit(
            self.game_id, A.Deadline(None, game.phase.seq), key=f"{self.game_id}:{game.phase.seq}"
        )
        await w.sms.drain()
        assert outcome.rejected is None, outcome.rejected
        self.deadlines += 1

    def _menu(self, game: Game, sheet: S.Sheet) -> str:
        return prepare(
            S.menu_text(game, sheet, game.lang), game.lang, self.w.settings.transliterate
        )

    def check_waits(self, game: Game) -> None:
        """Whoever the game waits for was asked: their newest question text
        holds their current sheet."""
        if not game.running:
            return
        for seat in rules_for(game.kind).awaiting(game):
            player = game.players[seat]
            i = self.phones.index(next(p for p in self.phones if self.w.pid(p) == player))
            sheet = S.sheet(game, player)
            assert sheet is not None, f"{self.names[i]} is awaited without a question"
            menu = self._menu(game, sheet)
            found = self.typists[i].latest(self.w.inbox(self.phones[i]))
            assert found is not None, f"{self.names[i]} is awaited but was never asked"
            assert found[1].text.endswith(menu), (
                f"{self.names[i]} is awaited in {game.phase.name}, but their newest question "
                f"text is not the current one:\n{found[1].text}\n--- current ---\n{menu}"
            )
            self.checks += 1


def _join(lang: str) -> str:
    return {"nb": "DELTA", "sr": "UĐI"}.get(lang, "JOIN")


def code_of(text: str) -> str:
    m = re.search(r"\b([A-Z]{4})\b", text)
    assert m, text
    return m[1]


def word(msgid: str, lang: str) -> str:
    """A menu word as the player reads it (the typist's taste is written in words)."""
    return R.t(msgid, lang)
