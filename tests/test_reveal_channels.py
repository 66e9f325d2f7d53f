"""The end's reveal reaches every player on both channels (issue #32 item 3;
decided once in adapters/owed.py). Whole Station games through the wire
formats, with a reveal of the test's own registered for Station: on Telegram
the group and every player get it in full as one message; by SMS every
player gets it brief, in one text of at most three segments with the status
page's link (the end screen) under it. Without a reveal nothing is added
(the whole-game tests of each channel)."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from adapters.sms.renderer import MAX_SEGMENTS, fit
from adapters.sms.segments import segments
from adapters.telegram.renderer import MAX_TEXT, messages
from gameflow.core import registry
from gameflow.core.state import Game
from gameflow.core.text import Msg, msg
from gameflow.i18n import render
from tests.fake_twilio import FakeTwilio
from tests.sms_helpers import World
from tests.sms_table import Table as SmsTable
from tests.store_helpers import run
from tests.telegram_helpers import telegram_bot
from tests.test_telegram_play import GROUP, people, station
from tests.test_telegram_table import Table as TelegramTable

LINK = "https://tv.test/end/"


def reveal(game: Game, brief: bool) -> tuple[Msg, ...]:
    """Every player's side, and (in full) the seed: what the test looks for."""
    sides = ["spy" if spy else "crew" for spy in game.rules.infiltrator]
    if brief:
        roles = ", ".join(f"{n} {s}" for n, s in zip(game.names, sides, strict=True))
        return (msg("Sides: {roles}.", roles=roles),)
    pairs = zip(game.names, sides, strict=True)
    lines = [msg("{name} was {side}.", name=n, side=s) for n, s in pairs]
    return (*lines, msg("Seed: {seed}.", seed="test"))


@pytest.fixture
def revealing() -> Iterator[None]:
    """Station with the test's reveal, for this test only."""
    original = registry.get("station")
    registry.register(dataclasses.replace(original, reveal=reveal))
    try:
        yield
    finally:
        registry.register(original)


@asynccontextmanager
async def ended(
    fake: FakeTwilio, kind: str, n: int, seed: int
) -> AsyncIterator[tuple[World, SmsTable, Game]]:
    """A whole `kind` game of `n` SMS players (English), played to its end
    with a TV, so that status links are made."""
    w = World(fake, rate=0)

    async def tv_link(game: Game) -> str:
        return f"{LINK}{game.id}"

    w.sms.delivery.tv_link = tv_link
    try:
        t = SmsTable(w, kind, n, "en", seed)
        await t.open()
        game = await t.play()
        assert game.over
        yield w, t, game
    finally:
        await w.close()


@pytest.mark.telegram
def test_a_whole_telegram_game_ends_with_the_reveal_for_everyone(
    tmp_path: Path, revealing: None
) -> None:
    async def go() -> None:
        async with telegram_bot(tmp_path) as (api, h):
            table = TelegramTable(h, people(6), seed=4)
            await table.open("station", group=GROUP)
            game = await table.play(station)
            assert game.over
            full = "\n".join(
                f"{name} was {'spy' if spy else 'crew'}."
                for name, spy in zip(game.names, game.rules.infiltrator, strict=True)
            )
            full += "\nSeed: test."
            # one message, in full, for the group and in every player's chat
            assert api.texts(GROUP).count(full) == 1, api.texts(GROUP)[-3:]
            for uid in table.people:
                assert api.texts(uid).count(full) == 1, (uid, api.texts(uid)[-3:])
            await h.service.verify(table.game_id)

    run(go())


@pytest.mark.sms
def test_a_whole_sms_game_ends_with_the_brief_reveal_and_the_link(
    fake: FakeTwilio, revealing: None
) -> None:
    async def main() -> None:
        async with ended(fake, "station", 7, 3) as (w, t, game):
            link = f"Follow the game here (the public status page): {LINK}{game.id}"
            for phone in t.phones:
                shown = [text for text in w.inbox(phone) if text.startswith("Sides: ")]
                assert len(shown) == 1, w.inbox(phone)[-3:]
                text = shown[0]
                assert segments(text) <= MAX_SEGMENTS
                assert text.endswith("\n" + link), text
                for name, spy in zip(game.names, game.rules.infiltrator, strict=True):
                    assert f"{name} {'spy' if spy else 'crew'}" in text
                assert w.inbox(phone)[-1] == text  # the last text of the game

    run(main())


def test_a_long_reveal_is_cut_at_line_ends_to_keep_the_link() -> None:
    lines = [f"Player {i} was on the side that lost, and played every round." for i in range(9)]
    tail = "Follow the game here: https://tv.test/abc"
    text = fit("\n".join(lines), tail)
    assert segments(text) <= MAX_SEGMENTS and text.endswith("\n" + tail)
    kept = text.split("\n")[:-1]
    assert kept == lines[: len(kept)] and 0 < len(kept) < len(lines)
    assert fit("short", None) == "short"
    # a single line too long for any room: its beginning, without the link
    one = fit("x" * 600, tail)
    assert segments(one) <= MAX_SEGMENTS and one.startswith("x") and tail not in one


@pytest.mark.sms
@pytest.mark.parametrize(
    ("kind", "n", "seed"), [("station", 7, 5), ("resistance", 6, 6), ("traitors", 8, 7)]
)
def test_a_registered_reveal_reaches_every_sms_player_in_one_text(
    fake: FakeTwilio, kind: str, n: int, seed: int
) -> None:
    """The games' own reveals (gameflow/games/*/ending.py), by text: every
    player's last text is the brief reveal, its first lines as the game
    words them, the link under it."""

    async def main() -> None:
        async with ended(fake, kind, n, seed) as (w, t, game):
            show = registry.get(kind).reveal
            assert game.over and show is not None
            brief = [render(line, "en") for line in show(game, True)]
            for phone in t.phones:
                text = w.inbox(phone)[-1]
                assert segments(text) <= MAX_SEGMENTS, text
                assert text.endswith(f"{LINK}{game.id}"), text
                assert text.startswith(brief[0] + "\n"), (text, brief)

    run(main())


def test_a_reveal_longer_than_a_telegram_message_is_cut_at_line_ends() -> None:
    lines = tuple(msg("{name} was {side}.", name=f"P{i:03d}" * 20, side="crew") for i in range(90))
    texts = messages(lines, "en")
    assert len(texts) > 1 and all(len(t) <= MAX_TEXT for t in texts)
    assert "\n".join(texts) == "\n".join(render(line, "en") for line in lines)
    assert messages(lines[:3], "en") == ["\n".join(render(line, "en") for line in lines[:3])]
