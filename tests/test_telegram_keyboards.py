"""Keyboards drawn from legal actions, for every game: every button fits the
64-byte limit, names its game, phase and seat, and decodes back to exactly an
option the spec offers; the choice editor walks Station's fields in order."""

from __future__ import annotations

import contextlib
import random

import pytest

from adapters.telegram.choice import Draft, build_action, editor, next_field, pick, title_for
from adapters.telegram.keyboards import (
    MAX_DATA,
    UNKNOWN,
    decode,
    encode,
    encode_value,
    game_specs,
    is_draft,
    option_of,
    prompt_keyboard,
)
from gameflow.core import actions as A
from gameflow.core.engine import apply, legal, new_game
from gameflow.core.result import Rejected
from gameflow.core.state import Game
from gameflow.games.station.actions import Choose

pytestmark = pytest.mark.telegram

GAME_ID = "Zq3_xY-9AbCd"  # as long as the service's ids (token_urlsafe(9))


def uid(i: int) -> str:
    return f"tg:{7_000_000_000 + i}"  # Telegram user ids run to ten digits


def started(kind: str, n: int, seed: int) -> Game:
    game = new_game(kind, GAME_ID, "tg:1", f"seed{seed}", lang="en")
    for i in range(n):
        game = apply(game, A.Join(uid(i), None, f"Player{i}"), 0.0).state  # type: ignore[union-attr]
    result = apply(game, A.Start("tg:1"), 0.0)
    assert not isinstance(result, Rejected), result
    return result.state


def test_callback_data_round_trips_and_refuses_garbage() -> None:
    data = encode("d", GAME_ID, 1234, 14, "death_list", 3, "p14", spec=2)
    assert len(data.encode()) <= MAX_DATA
    press = decode(data)
    assert press is not None
    assert (press.op, press.game_id, press.seq, press.seat, press.kind, press.field) == (
        "d",
        GAME_ID,
        1234,
        14,
        "death_list",
        3,
    )
    assert (press.spec, press.value) == (2, "p14")
    for junk in (None, "", "x|a|1|1|k|0||", "a|g|one|1|k|0||", "a|g|1|1|k|x||", "a|g|1", "hello"):
        assert decode(junk) is None
    with pytest.raises(ValueError):
        encode("a", "g" * 60, 1, 1, "vote")


@pytest.mark.parametrize(("kind", "n"), [("station", 15), ("resistance", 10), ("traitors", 12)])
def test_every_legal_spec_draws_decodable_buttons(kind: str, n: int) -> None:
    rng = random.Random(n)
    game = started(kind, n, n)
    seen = 0
    for _ in range(150):
        if game.over:
            break
        actions = []
        for seat, player in enumerate(game.players):
            specs = game_specs(legal(game, player))
            if not specs:
                continue
            markup = prompt_keyboard(game, seat, specs, "nb")
            for row in markup.inline_keyboard:
                for button in row:
                    data = str(button.callback_data)
                    assert len(data.encode()) <= MAX_DATA
                    press = decode(data)
                    assert press is not None
                    assert (press.game_id, press.seq, press.seat) == (game.id, game.phase.seq, seat)
                    seen += 1
            for spec in specs:
                for f in spec.fields:
                    for option in f.options:
                        assert option_of(game, f, encode_value(game, option)) == option
                if is_draft(spec):
                    draft = Draft(game.id, spec.phase, seat, spec.kind)
                    text, _ = editor(game, spec, draft, "sr", title_for(game, spec, "sr"))
                    assert text
                step: dict[str, object] = {}
                for f in spec.fields:
                    if f.free:
                        step[f.name] = "Trust me."
                    elif f.name in ("team", "names"):
                        step[f.name] = rng.sample([o for o in f.options if o], 2)
                    else:
                        step[f.name] = rng.choice(f.options)
                with contextlib.suppress(ValueError):
                    actions.append(build_action(game, player, spec, step))
        rng.shuffle(actions)
        for action in actions:
            result = apply(game, action, game.phase.started + 1)
            if not isinstance(result, Rejected):
                game = result.state
                break
        else:
            result = apply(game, A.Deadline(None, game.phase.seq), game.phase.deadline or 0.0)
            if isinstance(result, Rejected):
                break
            game = result.state
    assert seen > 50


def test_the_station_editor_walks_plan_job_partner_secret() -> None:
    game = started("station", 6, 3)
    st = game.rules
    seat = next(s for s in range(6) if st.infiltrator[s])
    player = game.players[seat]
    (spec,) = game_specs(legal(game, player))
    assert is_draft(spec)
    draft = Draft(game.id, spec.phase, seat, spec.kind)
    order = []
    while (step := next_field(spec, draft)) is not None:
        order.append(step[1].name)
        pick(draft, step[1], step[1].options[-1])
    assert order == ["plan", "job", "partner", "secret"]
    text, markup = editor(game, spec, draft, "nb")
    assert markup.inline_keyboard[0][0].text == "Send valget"
    assert "Saboter utstyret" in text
    action = build_action(game, player, spec, draft.values)
    assert isinstance(action, Choose) and action.sabotage and action.partner is None
    assert action.phase == game.phase.seq
    # a loyal player has no secret step
    loyal = next(s for s in range(6) if not st.infiltrator[s])
    (spec,) = game_specs(legal(game, game.players[loyal]))
    draft = Draft(game.id, spec.phase, loyal, spec.kind)
    while (step := next_field(spec, draft)) is not None:
        assert step[1].name != "secret"
        pick(draft, step[1], step[1].options[0])
    assert option_of(game, spec.fields[0], "i99") is UNKNOWN
