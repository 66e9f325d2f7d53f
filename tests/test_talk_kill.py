"""A worker SIGKILLed while players' talk is in flight (issue #33, marker
`outbox`): no line is lost, and none doubled, also the text a kill catches
between Twilio's accept and its ack (the next worker finds it at Twilio,
adapters/sms/delivery.py).

Ten Traitors campaigns of seven SMS players; every player says two lines
through the game service's talk (service/talk.py, the SMS talker
registered as the gateway does), one of them delivered twice (a Twilio
redelivery); the lines wait in the store's outbox. Then an SMS delivery
worker (tests/sms_outbox_worker.py) sends them to the fake Twilio at
`RATE` a second, is killed a third of the way, and a second one, started
on the same files, claims what the first held once `MIN_IDLE` has passed.
Measured at the fake Twilio: every line reached each of the six other
players, in the order said, exactly once.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from adapters.sms.directory import SqliteDirectory, player_id
from adapters.sms.renderer import CHANNEL, SmsRenderer
from adapters.sms.settings import SmsSettings
from adapters.sms.talk import SmsTalker
from gameflow.core import actions as A
from service import talk
from service.games import GameService
from service.ports import GameStore
from tests.campaign_helpers import oslo
from tests.fake_twilio import FakeTwilio
from tests.sms_helpers import SmsOutboxWorker, worker_settings
from tests.store_helpers import FakeClock, run
from tests.worker_process import about, wait_for

pytestmark = [pytest.mark.outbox, pytest.mark.sms]

GAMES, PLAYERS, LINES = 10, 7, 2
RATE = 150.0
MIN_IDLE = 2.0
ID_KEY = "talk-kill-id-key"
NAMES = ["Kari", "Ola", "Åse", "Per", "Liv", "Nils", "Mari"]


async def set_up(store: GameStore, records: str, settings: SmsSettings) -> list[tuple[str, str]]:
    """The games started and every line said; the (phone, line) texts owed,
    in the order said."""
    directory = SqliteDirectory(records)
    clock = FakeClock(oslo(15, 12))
    composer = SmsRenderer(settings)
    service = GameService(store, composers=[composer], clock=clock)
    talk.add_talker(service.talkers, SmsTalker(composer))
    # a text a line (talk_digest_every 0): the digests' own restarts are
    # tests/test_talk_digest.py's
    options = {
        "pacing": "campaign",
        "timezone": "Europe/Oslo",
        "quiet_hours": "",
        "talk_digest_every": 0.0,
    }
    owed: list[tuple[str, str]] = []
    for g in range(GAMES):
        created = await service.create_game(
            "traitors", f"tg:host{g}", lang="en", seed=f"talk-{g}", options=options
        )
        game_id = created.game.id
        phones = {}
        for i, name in enumerate(NAMES[:PLAYERS]):
            phone = f"+479{g:02d}200{i:02d}"
            pid = player_id(phone, ID_KEY)
            phones[pid] = phone
            await directory.set_phone(pid, phone, game_id)
            assert (await service.submit(game_id, A.Join(pid, None, name))).accepted
        assert (await service.submit(game_id, A.Start(f"tg:host{g}"))).accepted
        for n in range(LINES):
            for i, (pid, _) in enumerate(phones.items()):
                key = f"sms:SM{g:02d}{i:02d}{n}"
                said = await service.talk(game_id, pid, f"line {n} of game {g}", key=key)
                assert said.status == talk.SENT, said
                if n == 0:  # Twilio delivers this one again: relayed once
                    again = await service.talk(game_id, pid, f"line {n} of game {g}", key=key)
                    assert again.status == talk.DUPLICATE
                owed += [(phones[p], f"{NAMES[i]}: line {n} of game {g}") for p in said.to]
    await directory.close()
    return owed


def test_a_killed_worker_loses_no_line_of_talk(tmp_path: Path, fake: FakeTwilio) -> None:
    from adapters.store.sqlite_store import SqliteStore

    path, records = str(tmp_path / "games.sqlite3"), str(tmp_path / "sms.sqlite3")
    doc = worker_settings(fake, id_key=ID_KEY, rate=RATE)

    async def main() -> None:
        store = SqliteStore(path)
        owed = await set_up(store, records, SmsSettings(**doc))
        assert len(owed) == GAMES * PLAYERS * LINES * (PLAYERS - 1)

        def talked() -> int:
            return sum(": line " in m["body"] for m in fake.messages)

        async def empty() -> bool:
            return not await store.outbox_ready(CHANNEL)

        cfg = {"kind": "sqlite", "path": path, "records": records, "settings": doc}
        first = SmsOutboxWorker(cfg, "first", min_idle=MIN_IDLE)
        try:
            await wait_for(
                lambda: talked() >= len(owed) // 3, 60, "a third of the talk",
                about([first], store, CHANNEL),
            )  # fmt: skip
            first.kill()
            at_kill = talked()
            assert at_kill < len(owed) - 30, "the worker finished before the kill"
            second = SmsOutboxWorker(cfg, "second", min_idle=MIN_IDLE)
            try:
                await wait_for(empty, 120, "the outbox to empty", about([second], store, CHANNEL))
            finally:
                second.stop()
        finally:
            first.stop()
        got = Counter((m["to"], m["body"]) for m in fake.messages if ": line " in m["body"])
        want = Counter(owed)
        assert not want - got, f"lines lost: {list(want - got)[:3]}"
        assert set(got) <= set(want), "a line nobody said arrived"
        extra = sum((got - want).values())
        assert extra == 0, f"lines doubled: {list(got - want)[:3]}"
        # each phone's lines in the order they were said
        order: dict[str, list[str]] = {}
        for phone, body in owed:
            order.setdefault(phone, []).append(body)
        seen: dict[str, list[str]] = {}
        for m in fake.messages:
            if ": line " in m["body"] and m["body"] not in seen.get(m["to"], []):
                seen.setdefault(m["to"], []).append(m["body"])
        assert seen == order
        print(
            f"\ntalk: {len(owed)} texts owed, killed after {at_kill}, "
            f"{sum(got.values())} arrived, {extra} doubled"
        )
        await store.close()

    run(main())
