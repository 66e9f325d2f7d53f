"""Answers that find no open question (issue #16/#18 follow-up): a player whose
question closed before they answered (its time ran out) is told so, and what
comes next; a player whose answer is in is told that, instead of a bare
"nothing to answer". A live game texts no echo of an answer taken; a
campaign (hours between texts) keeps it."""

from __future__ import annotations

import pytest

from adapters.sms import sheet as S
from adapters.sms.renderer import compose, live, once
from gameflow.core import actions as A
from gameflow.core.engine import apply, new_game
from gameflow.core.events import tell
from gameflow.core.result import Accepted
from gameflow.core.state import Game
from gameflow.core.text import msg
from gameflow.games.station.state import DISCUSSION, VOTE
from tests.fake_twilio import FakeTwilio
from tests.sms_helpers import HOST, World
from tests.store_helpers import run

pytestmark = pytest.mark.sms

PHONES = [f"+47912345{i:02d}" for i in range(1, 6)]
NAMES = ["Kristoffer", "Marija", "Ingrid", "Sigurd", "Åse"]
LATE = "Too late: that question closed when its time ran out. The next one comes by text."
IN = "Your answer is in. The next question comes by text."


async def started(w: World, **options: object) -> str:
    _code, game_id = await w.hosted(
        HOST, "station", PHONES, NAMES, lang="en", seed="late", options=options or None
    )
    await w.service.submit(game_id, A.Start(HOST))
    await w.sms.drain()
    return game_id


def test_an_answer_after_its_deadline_is_told_the_question_closed(fake: FakeTwilio) -> None:
    async def main() -> None:
        w = World(fake)
        try:
            game_id = await started(w)
            for phone in PHONES[:4]:
                before = len(w.inbox(phone))
                await w.text(phone, "1 G")
                assert len(w.inbox(phone)) == before  # taken: no echo, no "OK"
            game = await w.service.load(game_id)
            w.clock.tick((game.phase.deadline or 0.0) - w.clock() + 1)
            await w.service.submit(game_id, A.Deadline(None, game.phase.seq))
            await w.sms.drain()
            assert (await w.service.load(game_id)).phase.name == DISCUSSION
            late = PHONES[4]
            await w.text(late, "1 G")
            assert w.last(late) == LATE
            await w.text(late, "STATUS")
            assert w.last(late) == LATE
            await w.text(PHONES[0], "1 G")
            assert w.last(PHONES[0]) == IN
            # The next question clears it: the vote is read as usual.
            game = await w.service.load(game_id)
            w.clock.tick((game.phase.deadline or 0.0) - w.clock() + 1)
            await w.service.submit(game_id, A.Deadline(None, game.phase.seq))
            await w.sms.drain()
            game = await w.service.load(game_id)
            assert game.phase.name == VOTE
            assert "Vote for: 1 " in w.last(late)
            await w.text(late, "1")
            game = await w.service.load(game_id)
            assert game.rules.votes[4] is not None
            await w.text(late, "2")
            assert w.last(late) == IN
        finally:
            await w.close()

    run(main())


def test_a_campaign_keeps_the_echo_a_live_game_drops_it() -> None:
    """The notifier drops the echo of the answering player's own answer (its
    TELLs in the phase answered) only in a live game; Traitors' default pacing
    is a campaign, where the next text may be a day away."""
    traitors = new_game("traitors", "g1", HOST, "echo", lang="en")
    station = new_game("station", "g2", HOST, "echo", lang="en")
    assert not live(traitors) and live(station)
    echo = tell("sms:a", msg("Vote locked: {choice}.", choice="Bo"), 3)
    for game in (traitors, station):
        kept, _ = compose(game, (echo,), "sms:a", None, echo=None)
        assert kept == ["Vote locked: Bo."]
        dropped, _ = compose(game, (echo,), "sms:a", None, echo=3)
        assert dropped == []
        other, _ = compose(game, (echo,), "sms:a", None, echo=2)  # another phase's TELL
        assert other == ["Vote locked: Bo."]


def test_a_line_repeated_by_a_later_one_is_sent_once() -> None:
    assert once(["Vote: who sits out?", "Vote: who sits out? Most votes, at least 2.\n1 Ana"]) == [
        "Vote: who sits out? Most votes, at least 2.\n1 Ana"
    ]
    assert once(["Plan 1 failed.", "Plan 1 failed."]) == ["Plan 1 failed."]
    assert once(["Plan 1", "Plan 12: 3 parts."]) == ["Plan 1", "Plan 12: 3 parts."]
    assert once(["Ana is out.", "", "Ana is out and sits out."]) == [
        "Ana is out.",
        "Ana is out and sits out.",
    ]


def test_a_dash_for_a_part_the_menu_does_not_ask_is_ignored() -> None:
    """A loyal player has no secret action, so their menu asks plan, job and
    partner; "2 G - -" (copied from an infiltrator's example) is still read."""
    game = new_game("station", "g3", HOST, "dash", lang="en")
    for i in range(7):
        game = ok(apply(game, A.Join(f"sms:{i}", None, f"P{i}"), 0.0))
    game = ok(apply(game, A.Start(HOST), 0.0))
    st = game.rules
    loyal = next(p for s, p in enumerate(game.players) if not st.infiltrator[s])
    sh = S.sheet(game, loyal)
    assert sh is not None and [a.field.name for a in sh.entries[0].args] == [
        "plan",
        "job",
        "partner",
    ]
    for body in ("2 G - -", "2 guard -", "2 G"):
        taken = S.read(game, sh, loyal, body)
        assert getattr(taken, "plan", None) == 2 and getattr(taken, "partner", 0) is None, body
    assert not hasattr(S.read(game, sh, loyal, "2 G - S"), "plan")  # a word is not a dash


def ok(result: object) -> Game:
    assert isinstance(result, Accepted), result
    state: Game = result.state
    return state
