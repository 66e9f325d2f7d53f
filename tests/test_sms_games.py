"""A Station game with Telegram and SMS players mixed: the SMS players read
their texts and answer them (tests/sms_typist.py), through signed webhooks;
Telegram ids are never texted, and each role card reaches only its player.
(Whole SMS-only games of every kind: tests/test_sms_play.py.)"""

from __future__ import annotations

import random
from typing import Any

import pytest

from gameflow.core import actions as A
from gameflow.core.legal import ActionSpec
from gameflow.core.question import question
from gameflow.core.state import Game
from gameflow.replay import parse_step
from tests.fake_twilio import FakeTwilio
from tests.sms_helpers import World, with_world
from tests.sms_typist import Typist

pytestmark = pytest.mark.sms

HOST_PHONE = "+4790000100"
NAMES = ["Kristoffer", "Ingeborg", "Sigurd", "Åse", "Bjørnar", "Torbjørn", "Ragnhild", "Øystein"]


def test_a_station_game_with_telegram_and_sms_players(fake: FakeTwilio) -> None:
    async def body(w: World) -> None:
        created = await w.service.create_game(
            "station", "tg:host", lang="nb", seed="mixed", setup={}
        )
        game_id, code = created.game.id, created.code
        phones = {}
        for i in range(7):
            if i % 2:
                await w.service.submit(game_id, A.Join(f"tg:{i}", None, NAMES[i]))
            else:
                phone = f"+47912341{i:02d}"
                await w.text(phone, f"DELTA {code} {NAMES[i]}")
                assert "Velkommen" in w.last(phone)
                phones[w.pid(phone)] = phone
        await w.service.submit(game_id, A.Start("tg:host"))
        await w.sms.drain()
        game = await w.service.load(game_id)
        tg = {p: p for p in game.players if p.startswith("tg:")}
        everyone = {**phones, **tg}
        await play_out_mixed(w, game_id, everyone, phones)
        game = await w.service.load(game_id)
        assert game.over
        assert all(m["to"] in phones.values() for m in fake.messages)  # Telegram ids never texted
        st = game.rules
        for seat, pid in enumerate(game.players):
            if pid in phones:
                role = "INFILTRATØR" if st.infiltrator[seat] else "LOJAL"
                assert any(role in t for t in w.inbox(phones[pid]))
        spies = [phones[p] for s, p in enumerate(game.players) if p in phones and st.infiltrator[s]]
        for m in fake.messages:
            if "Du er INFILTRATØR" in m["body"]:
                assert m["to"] in spies

    with_world(fake, body)


async def play_out_mixed(
    w: World, game_id: str, everyone: dict[str, str], phones: dict[str, str]
) -> None:
    """SMS players act on their texts only (Typist); Telegram players are
    driven through the service with a random legal answer, as that adapter
    would submit a press."""
    rng = random.Random(7)
    game = await w.service.load(game_id)
    names = list(game.names)
    typists = {
        pid: Typist(game.name_of(pid), names, game.lang, random.Random(pid)) for pid in phones
    }
    for _ in range(800):
        game = await w.service.load(game_id)
        if game.over:
            return
        acted = False
        for player in rng.sample(sorted(everyone), len(everyone)):
            if player in phones:
                text = typists[player].turn(w.inbox(phones[player]))
                if text is None:
                    continue
                await w.text(phones[player], text)
            else:
                q = question(game, player)
                if q is None:
                    continue
                await w.service.submit(game_id, _random_action(game, player, q.specs, rng))
            acted = True
            break
        if not acted:
            w.clock.now = max(w.clock.now + 1, game.phase.deadline or w.clock.now)
            await w.service.submit(game_id, A.Deadline(None, game.phase.seq))
            await w.sms.drain()
    raise AssertionError("the game did not end")


def _random_action(
    game: Game, player: str, specs: tuple[ActionSpec, ...], rng: random.Random
) -> A.Action:
    spec = rng.choice(specs)
    step: dict[str, Any] = {"do": spec.kind, "as": player, "phase": spec.phase}
    for f in spec.fields:
        step[f.name] = rng.choice(f.options)
    return parse_step(game, step)
