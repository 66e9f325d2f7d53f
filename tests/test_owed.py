"""What a commit owes is worked out once, for every channel (adapters/owed.py):
the service has one composer, the channels attach their renderers to it, it
writes what each renderer makes of one `Owed`, and a renderer that raises
costs only its own channel's lines (its `recover` stands in)."""

from __future__ import annotations

import logging

import pytest

from adapters.owed import Owed, OwedComposer, attach
from adapters.sms.renderer import SmsRenderer
from adapters.telegram.renderer import TelegramRenderer
from gameflow.core import actions as A
from gameflow.core.engine import apply, new_game
from gameflow.core.question import key_of
from gameflow.core.result import Accepted
from gameflow.core.state import Game
from service.compose import Composer, Origin
from service.outbox import OutboxMessage
from tests.test_composer_recover import SETTINGS, SMS, TG

pytestmark = [pytest.mark.telegram, pytest.mark.sms]


def _start() -> tuple[Game, Game, Accepted[Game]]:
    game = new_game("station", "g", "tg:1", "owed", lang="nb")
    for i, who in enumerate((*TG, *SMS)):
        joined = apply(game, A.Join(who, None, f"P{i}"), 1.0)
        assert isinstance(joined, Accepted)
        game = joined.state
    started = apply(game, A.Start("tg:1"), 2.0)
    assert isinstance(started, Accepted)
    return game, started.state, started


def test_one_composer_renders_what_each_channel_made_alone() -> None:
    composers: list[Composer] = []
    tg, sms = TelegramRenderer(), SmsRenderer(SETTINGS)
    assert attach(composers, tg) and attach(composers, sms)
    assert not attach(composers, sms)  # once
    assert len(composers) == 1 and isinstance(composers[0], OwedComposer)
    before, after, started = _start()
    origin = Origin("tg:1", "telegram", confirm="Started.")
    alone = tg.compose(before, after, started.events, origin)
    alone += sms.compose(before, after, started.events, origin)
    assert composers[0].compose(before, after, started.events, origin) == alone
    owed = Owed.of(before, after, started.events, origin)
    assert owed.by("telegram") == origin and owed.by("sms") is None
    assert owed.news and all(started.events[i].text is not None for i in owed.news)
    assert set(owed.dues) == {*owed.people, after.host, "group"}
    assert owed.due(after.host).host and not owed.due(after.host).seated
    for p in owed.people:
        due = owed.due(p)
        assert due.news == owed.news and due.seated
        opened = key_of(after, p)
        assert due.question == ((None, opened) if opened is not None else None)
        assert not due.echo and not due.reveal and not due.link
        assert all(started.events[i].to == p for i in due.private)


class Broken(SmsRenderer):
    def render(self, owed: Owed) -> list[OutboxMessage]:
        raise RuntimeError("a bug")


def test_a_renderer_that_raises_costs_only_its_channel(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR)
    before, after, started = _start()
    one = OwedComposer([TelegramRenderer(), Broken(SETTINGS)])
    messages = one.compose(before, after, started.events)
    tg = [m for m in messages if m.channel == "telegram"]
    assert tg == TelegramRenderer().compose(before, after, started.events)
    sms = [m for m in messages if m.channel == "sms"]
    assert sms == SmsRenderer(SETTINGS).recover(after)
    assert any("failed for" in r.getMessage() for r in caplog.records)
