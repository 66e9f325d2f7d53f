"""Complete games of every game over Telegram: simulated people tap random
buttons among those the fake Bot API server holds for them (the scheduler's
deadlines move the game on when nobody can act), until the game ends.

Checked on the way: every press is answered once; a button always decodes to
its own chat's player; every private text reaches only the player it was
addressed to and never the group; keyboards fit Telegram's 64-byte limit; and
the log replays to the final state."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from adapters.telegram.keyboards import decode
from gameflow.core import actions as A
from gameflow.core.events import Event, Kind
from gameflow.core.state import Game
from gameflow.i18n import render
from tests.fake_telegram import FakeBotApi, Harness, buttons
from tests.store_helpers import run
from tests.telegram_helpers import telegram_bot

pytestmark = pytest.mark.telegram

HOST, GROUP = 1, -4242
NAMES = ("Ana", "Bo", "Cy", "Dag", "Eli", "Fred", "Gro", "Hal", "Ida", "Jon")


class Recorder:
    """Every private text the core addressed, rendered as the adapter renders it."""

    def __init__(self) -> None:
        self.owners: dict[str, set[int]] = {}

    async def notify(self, game: Game, events: tuple[Event, ...]) -> None:
        for e in events:
            if e.kind is Kind.TELL and e.text is not None and e.to is not None:
                text = render(e.text, game.lang)
                self.owners.setdefault(text, set()).add(int(e.to.removeprefix("tg:")))

    def check(self, api: FakeBotApi) -> int:
        """Every private text went to its addressee only, never to the group:
        how many private texts were sent or edited in."""
        private = 0
        for call in api.sent("sendMessage") + api.sent("editMessageText"):
            text = str(call.params.get("text", ""))
            if text in self.owners:
                private += 1
                assert call.chat_id in self.owners[text], (text, call.chat_id)
        assert not any(t in self.owners for t in api.texts(GROUP))
        return private


def live_buttons(api: FakeBotApi, people: dict[int, str], seq: int) -> list[tuple[int, Any, str]]:
    found = []
    for uid in people:
        for message in api.chat(uid):
            for _, data in buttons(message):
                press = decode(data)
                assert press is not None and len(data.encode()) <= 64
                if press.seq == seq and press.op != "r":  # "start over" only slows the walk
                    found.append((uid, message, data))
    return found


async def started(h: Harness, kind: str, players: int) -> tuple[str, dict[int, str]]:
    """A game of `kind` opened by HOST in GROUP, joined by `players` people
    (user ids from 100) and started: its id and the people."""
    code, game_id = await h.new(HOST, kind, chat_id=GROUP)
    people = {100 + i: NAMES[i] for i in range(players)}
    for uid, name in people.items():
        await h.command(uid, name, f"/start {code}")
    await h.command(HOST, "Hana", "/startgame", chat_id=GROUP)
    game = await h.service.load(game_id)
    assert game.running, h.api.texts(GROUP)[-1]
    return game_id, people


async def run_out(h: Harness, game_id: str, game: Game) -> None:
    """Nobody can act: the clock reaches the phase's deadline and the
    scheduler's Deadline goes in."""
    h.clock.now = max(h.clock.now, game.phase.deadline or h.clock.now)
    seq = game.phase.seq
    await h.service.submit(game_id, A.Deadline(None, seq), key=f"deadline:{seq}")
    await h.tg.settled()


async def press_any(
    h: Harness,
    game: Game,
    people: dict[int, str],
    options: list[tuple[int, Any, str]],
    rng: random.Random,
) -> None:
    """One of the live buttons, at random, pressed by the person it decodes to."""
    uid, message, data = rng.choice(options)
    press = decode(data)
    assert press is not None and game.players[press.seat] == f"tg:{uid}"
    await h.press(uid, people[uid], message, data)


async def whisper(
    h: Harness, game: Game, people: dict[int, str], rng: random.Random, i: int
) -> int:
    """A random player writes to the bot. Whom it reaches is the talk's rule
    (issue #33, service/talk.py `audience`): while the table's talk is open,
    every other living player and the group; at night a traitor's text reaches
    the other traitors (protected) and nobody else; otherwise nobody."""
    from gameflow.games.traitors.chat import peers
    from service.talk import Said, audience

    traitors = [u for u in people if peers(game, f"tg:{u}")]
    uid = rng.choice(traitors if traitors and rng.random() < 0.7 else list(people))
    text = f"psst {i}"
    heard = audience(game, f"tg:{uid}", h.clock())
    await h.send(h.users.text(uid, people[uid], text))
    got = {c.chat_id for c in h.api.sent("sendMessage") if str(c.params["text"]).endswith(text)}
    expected: set[int] = set()
    if not isinstance(heard, Said):
        to, team = heard
        expected = {int(p.removeprefix("tg:")) for p in to}
        if not team:
            expected.add(GROUP)
        else:
            assert to == tuple(peers(game, f"tg:{uid}"))
    assert got == expected, (got, expected)
    secret = not isinstance(heard, Said) and heard[1]
    for call in h.api.sent("sendMessage"):
        if secret and str(call.params["text"]).endswith(text):
            assert call.params.get("protect_content") is True  # the team's own talk
    return len(got)


@pytest.mark.parametrize(
    ("kind", "players", "seed"),
    [("station", 6, 1), ("resistance", 7, 2), ("traitors", 8, 3)],
)
def test_a_complete_game_over_telegram(kind: str, players: int, seed: int, tmp_path: Path) -> None:
    async def go() -> None:
        async with telegram_bot(tmp_path) as (api, h):
            recorder = Recorder()
            h.service.notifiers.append(recorder)
            game_id, people = await started(h, kind, players)
            rng = random.Random(seed)
            stuck = presses = deadlines = whispers = 0
            whispered: set[int] = set()
            for step in range(1500):
                game = await h.service.load(game_id)
                if game.over:
                    break
                if kind == "traitors" and game.phase.seq not in whispered:
                    whispered.add(game.phase.seq)
                    whispers += await whisper(h, game, people, rng, step)
                options = live_buttons(api, people, game.phase.seq)
                if not options or stuck > 20:
                    await run_out(h, game_id, game)
                    stuck, deadlines = 0, deadlines + 1
                    continue
                await press_any(h, game, people, options, rng)
                presses += 1
                after = await h.service.load(game_id)
                stuck = 0 if after.version != game.version else stuck + 1
            assert game.over, (game.phase, presses, deadlines)
            assert kind != "traitors" or whispers > 0
            assert presses > 2 * players  # the people played, not only the clock

            # every private text went to its addressee only, never to the group
            assert recorder.check(api) >= players
            await h.service.verify(game_id)

    run(go())
