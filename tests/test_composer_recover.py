"""A composer that fails still leaves nobody without their question (issue #19).

A composer is pure code, so one that raises is a bug. The input is committed
all the same (it was valid), the other channel's messages are untouched, and
the broken channel's `recover` gives every player their open question afresh
in the same commit: the players of that channel lose the commit's lines, not
the game. Only when `recover` fails as well does the commit carry nothing for
that channel (logged both times)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from adapters.owed import Owed
from adapters.sms import sheet as S
from adapters.sms.directory import player_id
from adapters.sms.renderer import SmsRenderer
from adapters.sms.settings import SmsSettings
from adapters.store.sqlite_store import SqliteStore
from adapters.telegram.renderer import TelegramRenderer
from gameflow.core import actions as A
from gameflow.core.state import Game
from service.games import GameService
from service.outbox import OutboxMessage
from tests.fake_twilio import ACCOUNT_SID, AUTH_TOKEN
from tests.store_helpers import run

pytestmark = pytest.mark.outbox

ID_KEY = "recover-id-key"
SETTINGS = SmsSettings(
    account_sid=ACCOUNT_SID,
    auth_token=AUTH_TOKEN,
    public_base_url="https://muldvarp.example.org",
    from_number="+4759440000",
    id_key=ID_KEY,
)
TG = [f"tg:{100 + i}" for i in range(3)]
SMS = [player_id(f"+479100000{i}", ID_KEY) for i in range(3)]


class BrokenSms(SmsRenderer):
    """The SMS composer with a bug in `compose` (and, if asked, in `recover`)."""

    def __init__(self, *, recover_too: bool = False) -> None:
        super().__init__(SETTINGS)
        self.recover_too = recover_too
        self.broken = False

    def render(self, owed: Owed) -> list[OutboxMessage]:
        if self.broken:
            raise RuntimeError("a bug")
        return super().render(owed)

    def recover(self, after: Game) -> list[OutboxMessage]:
        if self.recover_too:
            raise RuntimeError("another bug")
        return super().recover(after)


class BrokenTelegram(TelegramRenderer):
    broken = False

    def render(self, owed: Owed) -> list[OutboxMessage]:
        if self.broken:
            raise RuntimeError("a bug")
        return super().render(owed)


async def started(
    tmp_path: Path, sms: SmsRenderer, tg: TelegramRenderer
) -> tuple[Game, list[OutboxMessage]]:
    store = SqliteStore(str(tmp_path / "games.sqlite3"))
    service = GameService(store, composers=[tg, sms])
    created = await service.create_game("station", "tg:1", lang="nb", seed="recover")
    game_id = created.game.id
    for i, who in enumerate((*TG, *SMS)):
        assert (await service.submit(game_id, A.Join(who, None, f"P{i}"))).accepted
    for composer in (sms, tg):
        composer.broken = True  # type: ignore[attr-defined]
    out = await service.submit(game_id, A.Start("tg:1"))
    await store.close()
    assert out.accepted, "a composer's bug never costs the input"
    return out.game, list(out.messages)


def test_failed_composers_still_send_every_player_their_question(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    game, messages = run(started(tmp_path, BrokenSms(), BrokenTelegram()))
    asked = [p for p in SMS if S.sheet(game, p) is not None]
    assert asked == SMS, "the first phase asks every SMS player something"
    texts = {m.payload["player"]: m.payload for m in messages if m.channel == "sms"}
    for who in asked:
        payload = texts[who]
        # their menu, as the text they answer, recorded as the one on the phone
        assert payload["body"] and payload.get("sheet") == S.key_of(game, who), payload
        assert S.text(game, S.sheet(game, who), "nb").splitlines()[0] in payload["body"]
    # Each Telegram player: a forced sync, which draws the question at delivery.
    tg = [m.payload for m in messages if m.channel == "telegram"]
    assert {p["player"] for p in tg} == set(TG) and all(p["force"] for p in tg), tg
    assert sum("failed for" in r.getMessage() for r in caplog.records) == 2


def test_a_composer_that_cannot_recover_costs_only_its_own_channel(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR)
    game, messages = run(started(tmp_path, BrokenSms(recover_too=True), TelegramRenderer()))
    assert not [m for m in messages if m.channel == "sms"]
    tg_messages = [m for m in messages if m.channel == "telegram"]
    assert {m.payload.get("player") for m in tg_messages if m.payload["kind"] == "sync"} == set(TG)
    assert any("could not recover" in r.getMessage() for r in caplog.records)
    assert game.running
