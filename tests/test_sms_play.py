"""Whole games played by text, as people play them: every player is a typist
that acts only on its newest question text (tests/sms_typist.py), answers go
in as signed Twilio webhooks, texts come out at the fake Twilio on loopback,
and deadlines expire on the injected clock. No answer that a menu offered is
refused, and nobody is waited for whose newest text does not hold the
question (tests/sms_table.py checks both after every step)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest

from adapters.sms import render as R
from gameflow.core.state import Game
from tests.fake_twilio import FakeTwilio
from tests.sms_helpers import World
from tests.sms_table import Table, word
from tests.store_helpers import run

pytestmark = pytest.mark.sms


def play(fake: FakeTwilio, body: Callable[[World], Awaitable[None]], **settings: object) -> None:
    async def main() -> None:
        world = World(fake, rate=0, **settings)
        try:
            await body(world)
        finally:
            await world.close()

    run(main())


@pytest.mark.parametrize(("lang", "seed"), [("nb", 1), ("sr", 2), ("en", 3)])
def test_station_by_text(fake: FakeTwilio, lang: str, seed: int) -> None:
    async def body(w: World) -> None:
        t = Table(w, "station", 7, lang, seed)
        await t.open()
        game = await t.play()
        assert game.over and t.answers > 20 and t.deadlines > 0 and t.checks > 0
        assert {"choose", "vote"} <= set(t.kinds)

    play(fake, body)


RESISTANCE = {"plot_cards": True, "plot_deck": "full"}
# The deck, fixed so that the rare cards come first: each game's own cards.
FIRST = {
    "nb": ["opinion_maker", "take_responsibility", "in_the_spotlight", "no_confidence"],
    "sr": ["establish_confidence", "keeping_close_eye", "strong_leader", "open_up"],
    "en": ["overheard_conversation", "in_the_spotlight", "opinion_maker", "no_confidence"],
}


@pytest.mark.parametrize(("lang", "n", "seed"), [("nb", 7, 4), ("sr", 8, 5), ("en", 10, 6)])
def test_resistance_by_text_with_every_plot_card(
    fake: FakeTwilio, lang: str, n: int, seed: int
) -> None:
    from gameflow.games.resistance.cards import deck_for

    async def body(w: World) -> None:
        t = Table(w, "resistance", n, lang, seed)
        for typist in t.typists:  # they like to play their cards
            typist.prefer = [word(R.KIND_NAMES["play"], lang)]
        first = FIRST[lang]
        rest = sorted(deck_for(n, "full"))
        for card in first:
            rest.remove(card)
        await t.open(options=RESISTANCE, setup={"plot_deck": first + rest})
        game = await t.play()
        assert game.over and t.answers > 20 and t.checks > 0
        cards = {c.split(":")[1] for c in t.cards if not c.startswith("mission:")}
        dealt = _dealt(game)
        # every choice card dealt was answered by text, the others took effect
        assert {c for c in first[:3] if c in dealt} <= cards | AUTOMATIC, (cards, dealt)
        assert first[0] in dealt

    play(fake, body)


# Cards that act without a choice of their own: the opinion maker votes first
# (its holder's vote is asked before anyone else's), establish confidence shows
# the team to its receiver.
AUTOMATIC = {"opinion_maker", "establish_confidence"}


def _dealt(game: Game) -> set[str]:
    from gameflow.games.resistance.views import record

    return {u["card"] for u in record(game).get("plot_cards", [])}


@pytest.mark.parametrize(
    ("lang", "n", "seed", "steer"),
    [("nb", 8, 7, True), ("sr", 7, 8, True), ("en", 9, 9, True), ("nb", 6, 10, False)],
)
def test_traitors_by_text_through_every_phase(
    fake: FakeTwilio, lang: str, n: int, seed: int, steer: bool
) -> None:
    async def body(w: World) -> None:
        t = Table(w, "traitors", n, lang, seed)
        names = t.names
        traitors = [t.pid(0), t.pid(1), t.pid(2)] if n >= 8 else [t.pid(0), t.pid(1)]
        # the loyal vote out the traitors one by one (so that the last one must
        # recruit: temptation, then forcing); the holder of the dagger lays it
        for i, typist in enumerate(t.typists):
            if not steer:  # random votes: ties (pleas), and a table that reaches the end vote
                continue
            if t.pid(i) not in traitors:
                typist.prefer = [names[k] for k in range(len(traitors))]
            else:
                typist.avoid = [names[k] for k in range(len(traitors))]
            typist.prefer.append(word("with the dagger", lang))
        options = {
            "pacing": "fast",
            "missions": "builtin",
            "dagger": True,
            "recruit": True,
            "final_day": 5 if steer else 3,
        }
        setup = {
            "roles": dict.fromkeys(traitors, "traitor"),
            "days": {"1": {"shield": t.pid(5), "dagger": t.pid(4)}},
        }
        await t.open(options=options, setup=setup)
        game = await t.play(expire=0.05)
        assert game.over and t.answers > 20 and t.checks > 0
        assert {"mission", "vote", "murder"} <= set(t.kinds), t.kinds
        if steer:  # the last traitor must recruit
            assert "force" in t.kinds, t.kinds
        else:  # a tied vote: the tied plead in their own words, by text
            assert "plea" in t.kinds and "revote" in t.phases, t.kinds

    play(fake, body)


def test_a_stranger_is_answered_in_the_language_of_their_keyword(fake: FakeTwilio) -> None:
    async def body(w: World) -> None:
        for phone, text, lang in [
            ("+4790001001", "HELP", "en"),
            ("+4790001002", "HJELP", "nb"),
            ("+4790001003", "POMOĆ", "sr"),
            ("+4790001004", "DELTA", "nb"),
            ("+4790001005", "UĐI", "sr"),
            ("+4790001006", "JOIN", "en"),
        ]:
            await w.text(phone, text)
            expected = R.t(
                R.HELP if "HELP" in text or "HJELP" in text or "POMO" in text else R.JOIN_USAGE,
                lang,
            )
            assert w.last(phone) == expected, (text, w.last(phone))

    play(fake, body)


@pytest.mark.parametrize(("lang", "seed"), [("nb", 21), ("en", 22)])
def test_traitors_by_text_to_the_final_round_table_and_its_end_vote(
    fake: FakeTwilio, lang: str, seed: int
) -> None:
    """A short campaign (final day 2) with the traitors fixed: the final round
    table banishes without revealing, then the table votes by text to end or
    go on, round after round, until the roles are revealed."""

    async def body(w: World) -> None:
        t = Table(w, "traitors", 8, lang, seed)
        options = {"pacing": "fast", "missions": "builtin", "final_day": 2}
        setup = {"roles": {t.pid(0): "traitor", t.pid(1): "traitor"}}
        await t.open(options=options, setup=setup)
        game = await t.play(expire=0.02)
        assert game.over and t.checks > 0
        assert t.phases["end_vote"] > 0 and t.kinds["end_vote"] >= 3, (t.phases, t.kinds)
        # Everyone read the end vote's question and, at the end, the reveal.
        asked = R.t("End or continue? If everyone says end, the roles are revealed.", lang)
        for phone in t.phones:
            texts = w.inbox(phone)
            assert any(asked in text for text in texts), texts[-3:]

    play(fake, body)
