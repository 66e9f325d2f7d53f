"""A button names exactly one spec of the question: a player holding two plot
cards of one kind of action ("play") gets two buttons, and the second plays the
second card (a press used to be looked up by kind, finding the first)."""

from __future__ import annotations

from typing import Any

import pytest

from adapters.telegram.choice import build_action
from adapters.telegram.keyboards import decode, offered, prompt_keyboard, prompt_text
from adapters.telegram.presses import Presses
from gameflow.core import actions as A
from gameflow.core.engine import apply, new_game
from gameflow.core.question import question
from gameflow.core.result import Accepted
from gameflow.core.state import Game
from gameflow.replay import parse_step

pytestmark = pytest.mark.telegram

PLAYERS = [f"tg:{100 + i}" for i in range(7)]


def step(game: Game, **kw: Any) -> Game:
    result = apply(game, parse_step(game, {"phase": game.phase.seq, **kw}), game.phase.started)
    assert isinstance(result, Accepted), result
    return result.state


def test_the_second_of_two_plot_cards_is_played_by_its_own_button() -> None:
    setup = {"plot_deck": ["no_confidence", "in_the_spotlight"], "leader": PLAYERS[0]}
    game = new_game("resistance", "g", "tg:1", 5, lang="en", setup=setup)
    for i, p in enumerate(PLAYERS):
        game = apply(game, A.Join(p, name=f"P{i}"), 0.0).state  # type: ignore[union-attr]
    game = apply(game, A.Start("tg:1"), 0.0).state  # type: ignore[union-attr]
    holder = PLAYERS[3]
    game = step(game, **{"as": PLAYERS[0], "do": "give", "card": "no_confidence", "to": holder})
    game = step(game, **{"as": PLAYERS[0], "do": "give", "card": "in_the_spotlight", "to": holder})
    game = step(game, **{"as": PLAYERS[0], "do": "propose", "team": PLAYERS[:2]})
    for p in PLAYERS:
        q = question(game, p)
        if q is not None and q.specs[0].kind == "vote":
            game = step(game, **{"as": p, "do": "vote", "approve": True})
    assert game.phase.name == "mission", game.phase
    specs = offered(game, holder)
    plays = [i for i, s in enumerate(specs) if s.kind == "play"]
    assert len(plays) == 2, specs
    markup = prompt_keyboard(game, game.seat(holder), specs, "en")
    labels = {b.text: str(b.callback_data) for row in markup.inline_keyboard for b in row}
    # one button for the card without a choice; the other card's targets inline
    assert set(labels) == {"Play: No Confidence", "P0", "P1", "Pass"}, labels
    assert "Play In the Spotlight on:" in prompt_text(game, specs, "en")
    second = decode(labels["P1"])
    first = decode(labels["Play: No Confidence"])
    assert second is not None and first is not None and second.spec != first.spec
    checked = Presses.check(game, second, holder)
    assert not isinstance(checked, str), checked
    assert checked[0].options("card") == ("in_the_spotlight",)
    spec, values = checked
    assert values == {"target": PLAYERS[1]}
    action = build_action(game, holder, spec, values)
    assert getattr(action, "card", None) == "in_the_spotlight"
    # a press of an index that no longer holds that kind is refused, not misread
    stale = decode(labels["P1"].replace("|play|", "|pass|"))
    assert stale is not None and isinstance(Presses.check(game, stale, holder), str)
