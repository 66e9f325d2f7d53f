"""A number typed against an older menu (issue #19 review): refused, not read
against the new one.

A number names a place in the menu on the player's phone: "1" on the last
team's approval approves the next team too, if it is read against the
question open now. With the texts in the outbox, the new menu may still be on
its way when the number comes in. The delivery records the sheet it texts
(adapters/sms/renderer.py, `SentSheets`); while that record names another
sheet, a number is refused with a reply in the game's language, nothing
changes, and once the new menu has been delivered the same number counts.
A word (a name, no) reads as meant on any menu and is taken as before; with
no record at all (the first question still on its way) a number is read as
before.

All through signed Twilio webhooks and the fake Twilio (tests/sms_helpers.py);
the texts wait in the outbox between a commit and `drain`, as they do while a
worker is busy.
"""

from __future__ import annotations

import pytest

from adapters.sms import sheet as S
from adapters.sms.inbound import STALE
from adapters.sms.renderer import CHANNEL
from adapters.sms.segments import is_gsm7, prepare, segments
from gameflow.core import actions as A
from gameflow.core.state import Game
from gameflow.i18n import render
from tests.fake_twilio import FakeTwilio
from tests.sms_helpers import HOST, World, with_world

pytestmark = pytest.mark.sms

PHONES = ["+4791234501", "+4791234502", "+4791234503", "+381641234504", "+4791234505"]
NAMES = ["Kristoffer", "Marija", "Ingrid", "Đorđe", "Sigrun"]
JOIN = {"en": "JOIN", "nb": "DELTA", "sr": "UĐI"}
NO = {"en": "no", "nb": "nei", "sr": "ne"}  # YES is a carrier keyword


def asked(w: World, game: Game) -> list[str]:
    """The phones with a question open in `game`."""
    return [p for p in PHONES if S.key_of(game, w.pid(p)) is not None]


def approval(game: Game) -> tuple[bool | None, ...]:
    votes: tuple[bool | None, ...] = game.rules.votes
    return votes


@pytest.mark.parametrize("lang", ["en", "nb", "sr"])
def test_a_number_for_the_older_menu_is_refused_until_the_new_one_came(
    fake: FakeTwilio, lang: str
) -> None:
    async def body(w: World) -> None:
        _code, game_id = await w.hosted(
            HOST,
            "resistance",
            PHONES,
            NAMES,
            join=JOIN[lang],
            lang=lang,
            seed="stale",
            options={"plot_cards": False},
        )
        await w.service.submit(game_id, A.Start(HOST))
        await w.sms.drain()
        game = await w.service.load(game_id)
        (first,) = asked(w, game)
        await w.text(first, "Kristoffer Marija")  # the team, by name
        game = await w.service.load(game_id)
        assert game.phase.name == "team_vote"
        assert set(asked(w, game)) == set(PHONES)
        first_menu = {p: w.last(p) for p in PHONES}
        assert all("1 " in m and "2 " in m for m in first_menu.values()), first_menu
        # Everyone but one voter rejects; the vote's time runs out on that voter.
        late = next(p for p in PHONES if p != first)
        for phone in PHONES:
            if phone != late:
                await w.text(phone, "2")
        w.clock.tick(1000)
        await w.service.submit(game_id, A.Deadline(None, game.phase.seq))
        game = await w.service.load(game_id)
        assert game.phase.name == "proposal" and game.rules.rejections == 1, game.phase
        # The next leader proposes (a team by name: words, read as meant
        # although their own new menu is still on its way), with the texts
        # still in the outbox: the late voter's phone shows the first team's
        # approval as its newest menu.
        (leader,) = asked(w, game)
        others = [n for p, n in zip(PHONES, NAMES, strict=True) if p != leader][:2]
        await w.text(leader, " ".join(others), drain=False)
        game = await w.service.load(game_id)
        assert game.phase.name == "team_vote", "the leader's words were not taken"
        voter = next(p for p in PHONES if p not in (late, leader))  # answered, record closed
        inbox = {p: len(w.inbox(p)) for p in PHONES}
        assert w.last(late) == first_menu[late]  # nothing newer delivered
        # "1" on the phone's menu approved the first team; now it would
        # approve the second: refused, the state unchanged.
        for phone in (late, voter):
            await w.text(phone, "1", drain=False)
            after = await w.service.load(game_id)
            assert after.version == game.version, f"{phone}'s number was read: {after}"
        assert approval(after) == approval(game)
        assert all(v is None for v in approval(after))
        # A word reads as meant on any menu: it is taken while the menu is on its way.
        naysayer = next(p for p in PHONES if p not in (late, leader, voter))
        await w.text(naysayer, NO[lang], drain=False)
        game = await w.service.load(game_id)
        assert game.version == after.version + 1
        assert approval(game)[game.seat(w.pid(naysayer))] is False
        # Delivered: the new menu, then the refusal, in that order.
        await w.sms.drain()
        assert await w.store.outbox_ready(CHANNEL) == []
        stale = prepare(render(STALE, lang), lang, w.settings.transliterate)
        for phone in (late, voter):
            got = w.inbox(phone)[inbox[phone] :]
            sheet = S.sheet(game, w.pid(phone))
            assert sheet is not None
            menu = prepare(S.text(game, sheet, lang), lang, w.settings.transliterate)
            assert got[-1] == stale, got
            assert any(text.endswith(menu) for text in got[:-1]), (got, menu)
            assert ", ".join(others) in "\n".join(got[:-1])  # the second team's menu
        assert w.inbox(naysayer)[inbox[naysayer] :][-1:] != [stale]
        # The same number, now that the new menu is on the phone, counts.
        texted = len(w.inbox(late))
        reads: list[str] = []
        get_attr = w.store.get_attr

        async def counting(game_id: str, name: str) -> str | None:
            reads.append(name)
            return await get_attr(game_id, name)

        w.store.get_attr = counting  # type: ignore[method-assign]
        await w.text(late, "1", drain=False)
        assert reads == []  # the record of texted sheets came with the game, in one read
        w.store.get_attr = get_attr  # type: ignore[method-assign]
        await w.sms.drain()
        game = await w.service.load(game_id)
        assert approval(game)[game.seat(w.pid(late))] is True
        assert len(w.inbox(late)) == texted  # taken: no reply in a live game
        await w.text(voter, "2")
        game = await w.service.load(game_id)
        assert approval(game)[game.seat(w.pid(voter))] is False

    with_world(fake, body)


def test_with_no_record_a_number_is_read_as_before(fake: FakeTwilio) -> None:
    """The first question still on its way: no sheet was ever texted, so no
    record says the phone holds another menu (and a game whose records
    predate them keeps playing)."""

    async def body(w: World) -> None:
        _code, game_id = await w.hosted(HOST, "station", PHONES, NAMES, lang="en", seed="fresh")
        await w.service.submit(game_id, A.Start(HOST))
        started = await w.service.load(game_id)
        assert await w.store.outbox_ready(CHANNEL) == [started.id]  # the menus wait
        assert await w.sms.sheets.last(started.id, w.pid(PHONES[0])) == (None, None)
        await w.text(PHONES[0], "1 G")
        assert (await w.service.load(started.id)).version == started.version + 1
        assert all(w.last(p) != render(STALE, "en") for p in PHONES)

    with_world(fake, body)


@pytest.mark.parametrize("lang", ["en", "nb", "sr"])
def test_the_refusal_is_one_segment_in_every_language(lang: str) -> None:
    text = render(STALE, lang)
    assert lang == "en" or text != STALE, f"{lang}: not translated"
    assert ("MENY" if lang == "nb" else "MENI" if lang == "sr" else "MENU") in text
    assert segments(prepare(text, lang, transliterate_sr=True)) == 1
    if lang != "sr":
        assert is_gsm7(text)
