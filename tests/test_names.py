"""Player names (gameflow.core.names, issue #35 item 5): the core keeps a
cleaned name (NFC; no control, zero-width or direction-changing characters;
whitespace collapsed; 1 to 32 characters) and refuses one that looks like a
name already in the game. One rule for every channel: shown here for the core,
an SMS join (signed Twilio webhooks) and a Telegram join (the fake Bot API)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gameflow.core import actions as A
from gameflow.core.engine import view
from gameflow.core.names import MAX_NAME, clean, likeness
from gameflow.i18n import render
from tests.fake_twilio import FakeTwilio
from tests.sms_helpers import World
from tests.station_helpers import Driver, new
from tests.store_helpers import run
from tests.telegram_helpers import telegram_bot

EVIL = "\u202eevil\u200b\u0000nul"  # right-to-left override, zero-width space, NUL


@pytest.mark.parametrize(
    ("raw", "kept"),
    [
        (EVIL, "evilnul"),
        ("  Ana \t\n Maria ", "Ana Maria"),
        ("Ana\u2028Maria", "AnaMaria"),  # a line separator is dropped, not a space
        ("A\u200dna\ufeff", "Ana"),  # zero-width joiner, byte-order mark
        ("\u2066Bo\u2069", "Bo"),  # bidi isolates
        ("e\u0301va", "éva"),  # NFC: one letter é
        ("e\u200b\u0301va", "éva"),  # what was dropped leaves no mark adrift
        ("Ana\u3164", "Ana"),  # a Hangul filler, drawn as nothing
        ("Bjørn Åse", "Bjørn Åse"),
        ("Đorđe", "Đorđe"),
    ],
)
def test_a_name_is_kept_cleaned(raw: str, kept: str) -> None:
    assert clean(raw) == kept
    d = Driver(new(0))
    d.ok(A.Join("p1", None, raw))
    assert d.game.names == (kept,)
    assert [p["name"] for p in view(d.game, None)["players"]] == [kept]


@pytest.mark.parametrize(
    "raw", ["", "   ", "\u200b\u200b", "\u202e", "\u0000", "\u3164", "x" * (MAX_NAME + 1)]
)
def test_an_empty_or_long_name_is_refused(raw: str) -> None:
    d = Driver(new(0))
    refused = d.refused(A.Join("p1", None, raw), "bad_name")  # nothing changed
    assert render(refused.message, "en") == "Pick a name of 1 to 32 characters."


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Ana", "ANA"),
        ("Ana", "Ána"),
        ("Ana", "A\u0301na"),
        ("Ana", "\u0410na"),  # a Cyrillic capital A
        ("Ana", "\uff21\uff4e\uff41"),  # full-width letters
        ("Bjørn", "Bjorn"),
        ("Đorđe", "Dorde"),
        ("Ana", "An\u200ba"),
    ],
)
def test_a_name_that_looks_like_anothers_is_refused(first: str, second: str) -> None:
    d = Driver(new(0))
    d.ok(A.Join("p1", None, first))
    refused = d.refused(A.Join("p2", None, second), "name_taken")
    text = render(refused.message, "en")
    assert text.startswith(f"The name {clean(second)} ")
    assert likeness(first) == likeness(clean(second))
    if clean(second).casefold() != first.casefold():
        assert text.endswith(f"looks too much like {first}, who has joined; pick another.")
        assert first in render(refused.message, "nb") and first in render(refused.message, "sr")


def test_names_that_only_resemble_each_other_are_both_taken() -> None:
    d = Driver(new(0))
    for i, name in enumerate(["Ana", "Anna", "Ana M", "Ane", "Ian", "Åse", "Ase2"]):
        d.ok(A.Join(f"p{i}", None, name))


@pytest.mark.sms
def test_an_sms_join_is_welcomed_under_the_cleaned_name(fake: FakeTwilio) -> None:
    async def main() -> None:
        w = World(fake)
        try:
            made = await w.service.create_game("station", "tg:host", lang="en", seed="n")
            await w.text("+4790000001", f"JOIN {made.code} {EVIL}")
            welcome = w.last("+4790000001")
            assert "evilnul" in welcome and "\u202e" not in welcome and "\x00" not in welcome
            await w.text("+4790000002", f"JOIN {made.code} ÉVILNUL")
            assert w.last("+4790000002") == (
                "The name ÉVILNUL looks too much like evilnul, who has joined; pick another."
            )
            game = await w.service.load(made.game.id)
            assert game.names == ("evilnul",)
            assert [p["name"] for p in view(game, None)["players"]] == ["evilnul"]
        finally:
            await w.close()

    run(main())


@pytest.mark.telegram
def test_a_telegram_join_is_shown_under_the_cleaned_name(tmp_path: Path) -> None:
    async def go() -> tuple[list[str], tuple[str, ...]]:
        async with telegram_bot(tmp_path) as (api, h):
            code, game_id = await h.new(1, "station")
            await h.command(11, "\u202eAna\u200b", f"/join {code}")
            await h.command(12, "\u0410NA", f"/join {code}")  # a Cyrillic A: a longer name
            game = await h.service.load(game_id)
            texts = api.texts(1)
        return texts, game.names

    texts, names = run(go())
    assert names == ("Ana", "\u0410NA 12")
    assert any(t.startswith("Ana joined (1 player).") for t in texts), texts
    assert not any("\u202e" in t or "\u200b" in t for t in texts)
