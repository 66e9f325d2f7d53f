"""Complete games played by text: every game with SMS-only players (the host
too), and a Station game with Telegram and SMS players mixed. Players answer
with random legal texts typed from their menus (tests/sms_typist.py), through
signed webhooks; deadlines come from the scheduler's side of the service."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from gameflow.core import actions as A
from gameflow.core.engine import legal, view
from gameflow.core.result import Rejected
from gameflow.core.state import HOST_VIEW
from tests.fake_twilio import FakeTwilio
from tests.sms_helpers import World
from tests.sms_typist import answer
from tests.store_helpers import run

pytestmark = pytest.mark.sms

HOST_PHONE = "+4790000100"
NAMES = ["Kristoffer", "Ingeborg", "Sigurd", "Åse", "Bjørnar", "Torbjørn", "Ragnhild", "Øystein"]


@pytest.fixture
def fake() -> Iterator[FakeTwilio]:
    with FakeTwilio() as server:
        yield server


async def play_out(
    w: World, game_id: str, phones: dict[str, str], rng: random.Random, host_phone: str
) -> int:
    """Text random legal answers until the game is over; returns the inputs sent.
    The host (a game master in Traitors) acts now and then, or when only it can."""
    phones = {**phones, w.pid(host_phone): host_phone}
    sent = 0
    for _ in range(600):
        game = await w.service.load(game_id)
        if game.over:
            return sent
        acted = False
        order = rng.sample(sorted(p for p in phones if p != game.host), len(phones) - 1)
        if game.phase.deadline is None or rng.random() < 0.05:
            order.append(game.host)
        for player in order:
            text = answer(game, player, rng)
            if text is None:
                continue
            if player in phones:
                before = game.version
                await w.text(phones[player], text)
                sent += 1
                acted = (await w.service.load(game_id)).version > before
            else:  # a Telegram player: straight to the service, as that adapter does
                outcome = await w.service.submit(game_id, _tg_action(game, player, text))
                acted = outcome.accepted
            if acted:
                break
        if not acted and game.phase.deadline is not None:
            w.clock.now = max(w.clock.now + 1, game.phase.deadline)
            outcome = await w.service.submit(game_id, A.Deadline(None, game.phase.seq))
            await w.sms.outbox.drain()
            assert not isinstance(outcome.rejected, Rejected), outcome.rejected
    game = await w.service.load(game_id)
    raise AssertionError(f"the game did not end: {game.phase}, {w.fake.messages[-3:]}")


def _tg_action(game: object, player: str, text: str) -> A.Action:
    from adapters.sms import grammar as G
    from adapters.sms import render as R
    from adapters.sms.inbound import _action

    menus = R.menus(game, player)  # type: ignore[arg-type]
    found = G.match(text, menus)
    assert isinstance(found, G.Matched)
    step = {"do": found.menu.kind, "as": player, "phase": found.menu.phase}
    step.update({k: list(v) if isinstance(v, tuple) else v for k, v in found.values.items()})
    action = _action(game, step, found.menu)  # type: ignore[arg-type]
    assert action is not None
    return action


@pytest.mark.parametrize(("kind", "players"), [("station", 5), ("resistance", 5), ("traitors", 6)])
def test_a_complete_game_with_sms_only_players(fake: FakeTwilio, kind: str, players: int) -> None:
    async def body(w: World) -> None:
        await w.text(HOST_PHONE, f"NEW {kind.upper()} EN")
        code = w.last(HOST_PHONE).split()[1]
        phones = {}
        for i in range(players):
            phone = f"+47912340{i:02d}"
            await w.text(phone, f"JOIN {code} {NAMES[i]}")
            phones[w.pid(phone)] = phone
        await w.text(HOST_PHONE, "START GAME")
        game_id = (await w.store.whereis(HOST_PHONE) or ("", ""))[0]
        assert (await w.service.load(game_id)).running, w.last(HOST_PHONE)
        inputs = await play_out(w, game_id, phones, random.Random(kind), HOST_PHONE)
        game = await w.service.load(game_id)
        assert game.over and inputs > 0
        await w.service.verify(game_id)  # the log replays to the same game
        for phone in phones.values():
            assert w.inbox(phone), phone
        shown = str(view(game, None)) + str(view(game, HOST_VIEW))
        assert not any(p in shown or p[1:] in shown for p in (*phones.values(), HOST_PHONE))

    play(fake, body)


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
        await w.sms.outbox.drain()
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

    play(fake, body)


async def play_out_mixed(
    w: World, game_id: str, everyone: dict[str, str], phones: dict[str, str]
) -> None:
    rng = random.Random(7)
    for _ in range(600):
        game = await w.service.load(game_id)
        if game.over:
            return
        acted = False
        for player in rng.sample(sorted(everyone), len(everyone)):
            if not legal(game, player):
                continue
            text = answer(game, player, rng)
            assert text is not None
            if player in phones:
                await w.text(phones[player], text)
            else:
                await w.service.submit(game_id, _tg_action(game, player, text))
            acted = True
            break
        if not acted:
            w.clock.now = max(w.clock.now + 1, game.phase.deadline or w.clock.now)
            await w.service.submit(game_id, A.Deadline(None, game.phase.seq))
            await w.sms.outbox.drain()
    raise AssertionError("the game did not end")


def play(fake: FakeTwilio, body: object) -> None:
    async def main() -> None:
        world = World(fake)
        try:
            await body(world)  # type: ignore[operator]
        finally:
            await world.close()

    run(main())
