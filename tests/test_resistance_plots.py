"""Resistance's plot cards, one test per card and timing (the driver:
resistance_helpers.py)."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest
from resistance_helpers import Driver, players, public_texts, start, texts

from gameflow.core.engine import legal, view
from gameflow.core.events import Event, Kind
from gameflow.core.question import asked, question
from gameflow.games.resistance import RESISTANCE
from gameflow.games.resistance.actions import Give, Mission, Pass, Play, Propose, Vote
from gameflow.games.resistance.cards import CARD_IDS, PLOT_CARDS, deck_for
from gameflow.i18n import render

pytestmark = pytest.mark.resistance


def test_the_deck_as_data() -> None:
    full = deck_for(7, "auto")
    assert len(full) == 15
    assert {c: full.count(c) for c in set(full)} == {
        "strong_leader": 2,
        "no_confidence": 3,
        "keeping_close_eye": 2,
        "in_the_spotlight": 1,
        "opinion_maker": 2,
        "take_responsibility": 1,
        "overheard_conversation": 2,
        "establish_confidence": 1,
        "open_up": 1,
    }
    reduced = deck_for(5, "auto")
    assert sorted(reduced) == sorted(
        ["strong_leader"] * 2
        + ["no_confidence", "opinion_maker", "take_responsibility"]
        + ["keeping_close_eye"] * 2
    )
    assert deck_for(5, "full") == full and deck_for(9, "reduced") == reduced
    assert set(CARD_IDS) == {c.id for c in PLOT_CARDS} and len(CARD_IDS) == 9


@pytest.mark.parametrize("n,draw", [(5, 1), (6, 1), (7, 2), (8, 2), (9, 3), (10, 3)])
def test_the_first_leader_of_each_mission_draws_by_player_count(n: int, draw: int) -> None:
    d = start(n, spies=players(n)[:2], leader="cy", options={"plot_cards": True})
    assert len(d.st.hand) == draw
    assert len(d.st.deck) == len(deck_for(n, "auto")) - draw
    assert view(d.game, None)["resistance"]["plot"]["hand"] == list(d.st.hand)
    while d.st.hand:
        d.ok(Give("cy", None, d.st.hand[0], "dag"))
    d.ok(Propose("cy", None, tuple(players(n)[2 : 2 + d.st.team_size])))
    d.deadline()
    d.all_vote(False)
    assert d.st.hand == ()  # later proposals of the same mission draw nothing
    # a missed deal at the deadline: the cards go to drawn players, never the leader
    d2 = start(n, spies=players(n)[:2], leader="cy", options={"plot_cards": True})
    d2.deadline()
    got = [u for u in d2.st.plot_log if u.dealt]
    assert len(got) == draw and all(u.to != d2.game.seat("cy") for u in got)
    assert d2.phase == "team_vote" and len(d2.st.team) == d2.st.team_size


def test_plot_cards_default_on_and_their_hands_are_public() -> None:
    assert RESISTANCE.default_options()["plot_cards"] is True
    d = start(5, deck=["no_confidence", "opinion_maker"])
    events = d.ok(Give("cy", None, "no_confidence", "dag"))
    assert "Cy gives the plot card No Confidence to Dag." in public_texts(events)
    held = view(d.game, None)["resistance"]["plot"]["held"]
    assert held == [{"player": "dag", "card": "no_confidence"}]


def test_strong_leader_takes_the_lead_before_the_cards_are_dealt() -> None:
    d = start(5, deck=["strong_leader", "no_confidence", "opinion_maker"])
    d.ok(Give("cy", None, "strong_leader", "eli"))
    d.ok(Propose("cy", None, ("cy", "dag")))
    d.refused(Play("eli", None, "strong_leader"), "wrong_time")  # the team is proposed
    d.deadline()
    d.all_vote(False)
    assert d.leader == "dag" and d.st.hand == ()
    events = d.ok(Play("eli", None, "strong_leader"))
    assert d.leader == "eli"
    assert "Eli plays Strong Leader and becomes the leader." in public_texts(events)
    assert not d.st.holds(d.game.seat("eli"), "strong_leader")  # single use
    d.propose("eli", "cy")
    d.all_vote(True)
    assert d.leader == "ana"  # leadership goes on from the strong leader
    d.mission({"eli": "success", "cy": "success"})
    # the new mission's cards: a strong leader acts before the dealing starts
    d2 = start(5, deck=["strong_leader", "no_confidence"])
    d2.ok(Give("cy", None, "strong_leader", "eli"))
    d2.run_mission(["cy", "dag"])
    assert d2.leader == "dag" and d2.st.hand == ("no_confidence",)
    d2.ok(Play("eli", None, "strong_leader"))
    d2.refused(Give("dag", None, "no_confidence", "cy"), "not_leader")
    d2.ok(Give("eli", None, "no_confidence", "cy"))


def test_the_leader_may_propose_before_giving_and_is_waited_for() -> None:
    d = start(5, deck=["no_confidence"], options={"auto_advance": True})
    d.ok(Propose("cy", None, ("cy", "dag")))
    assert d.phase == "proposal" and RESISTANCE.awaiting(d.game) == (d.game.seat("cy"),)
    assert [s.kind for s in legal(d.game, "cy")] == ["give"]
    d.ok(Give("cy", None, "no_confidence", "eli"))
    assert d.phase == "team_vote"


def test_strong_leader_is_refused_once_the_dealing_started() -> None:
    d = start(5, deck=["strong_leader", "no_confidence"])
    d.ok(Give("cy", None, "strong_leader", "eli"))
    d.run_mission(["cy", "dag"])
    d.ok(Give("dag", None, "no_confidence", "cy"))
    d.refused(Play("eli", None, "strong_leader"), "wrong_time")


def test_no_confidence_vetoes_an_approved_team() -> None:
    d = start(5, deck=["no_confidence"])
    d.ok(Give("cy", None, "no_confidence", "dag"))
    d.propose("cy", "ana")
    d.refused(Play("dag", None, "no_confidence"), "wrong_time")  # not during the vote
    d.all_vote(True)
    assert d.phase == "mission" and "dag" in [
        p for p in d.game.players if d.game.seat(p) in RESISTANCE.awaiting(d.game)
    ]
    events = d.ok(Play("dag", None, "no_confidence"))
    assert "Dag plays No Confidence: the team is vetoed." in public_texts(events)
    d.refused(Mission("ana", None, "fail"), "vetoed")
    assert RESISTANCE.awaiting(d.game) == ()
    d.deadline()
    assert d.phase == "proposal" and d.st.rejections == 1 and d.leader == "dag"
    assert d.st.proposals[-1].approved and d.st.proposals[-1].vetoed_by == d.game.seat("dag")
    d.run_mission(["dag", "eli"])
    assert d.st.results[0].rejected_teams == 1
    assert d.st.held == ()


def test_a_fifth_rejection_by_veto_wins_for_the_spies() -> None:
    d = start(5, deck=["no_confidence"])
    d.ok(Give("cy", None, "no_confidence", "ana"))
    for _ in range(4):
        d.propose(d.leader, "dag" if d.leader != "dag" else "eli")
        d.all_vote(False)
    d.propose(d.leader, "dag" if d.leader != "dag" else "eli")
    d.all_vote(True)
    d.ok(Play("ana", None, "no_confidence"))
    d.deadline()
    assert d.game.over and d.game.winner == "spies"


def test_keeping_a_close_eye_tells_only_the_watcher() -> None:
    d = start(7, spies=["ana", "bo", "fred"], deck=["keeping_close_eye", "keeping_close_eye"])
    d.ok(Give("cy", None, "keeping_close_eye", "dag"))
    d.ok(Give("cy", None, "keeping_close_eye", "eli"))
    d.propose("cy", "ana")
    d.all_vote(True)
    d.refused(Play("dag", None, "keeping_close_eye", "eli"), "bad_target")  # not on the team
    events = d.ok(Play("dag", None, "keeping_close_eye", "ana"))
    assert public_texts(events) == []
    assert "ana" not in json.dumps(view(d.game, None)["resistance"]["plot"])
    d.refused(Play("eli", None, "keeping_close_eye", "ana"), "bad_target")  # already watched
    d.ok(Pass("eli"))
    d.ok(Mission("ana", None, "fail"))
    d.ok(Mission("cy", None, "success"))
    events = d.deadline()
    told = [e for e in events if e.text and "Close Eye" in e.text.msgid]
    assert len(told) == 1
    assert told[0].kind == Kind.TELL and told[0].to == "dag" and told[0].secret
    assert texts(told) == ["Keeping a Close Eye on You: Ana played Fail."]
    assert all("Ana played" not in t for t in public_texts(events))
    learned = view(d.game, "dag")["you"]["learned"]
    assert learned == [
        {"mission": 1, "card": "keeping_close_eye", "player": "ana", "value": "fail"}
    ]
    assert view(d.game, "eli")["you"]["learned"] == []


def test_in_the_spotlight_shows_one_card_to_everyone() -> None:
    d = start(7, spies=["ana", "bo", "fred"], deck=["in_the_spotlight", "opinion_maker"])
    d.ok(Give("cy", None, "in_the_spotlight", "dag"))
    d.ok(Give("cy", None, "opinion_maker", "gro"))
    d.propose("cy", "ana")
    d.ok(Vote("gro", None, True))
    d.votes(yes=["ana", "bo", "cy", "dag"])
    d.refused(Play("dag", None, "in_the_spotlight", "eli"), "bad_target")
    events = d.ok(Play("dag", None, "in_the_spotlight", "ana"))
    assert any("Ana in the spotlight" in t for t in public_texts(events))
    d.ok(Mission("ana", None, "fail"))
    events = d.deadline()
    assert "In the spotlight, Ana played Fail." in public_texts(events)
    assert view(d.game, None)["resistance"]["missions"][0]["shown"] == {"ana": "fail"}


def test_opinion_makers_vote_first_and_in_public() -> None:
    d = start(7, spies=["ana", "bo", "fred"], deck=["opinion_maker", "opinion_maker"])
    d.ok(Give("cy", None, "opinion_maker", "dag"))
    d.ok(Give("cy", None, "opinion_maker", "eli"))
    d.propose("cy", "dag")
    d.refused(Vote("ana", None, True), "opinion_first")
    assert [s.kind for s in legal(d.game, "ana")] == []
    events = d.ok(Vote("dag", None, False))
    assert public_texts(events) == []  # two holders reveal together
    assert "opinion_votes" not in view(d.game, None)["resistance"]
    events = d.ok(Vote("eli", None, True))
    assert "The opinion makers have voted: Dag: reject, Eli: approve." in public_texts(events)
    assert view(d.game, None)["resistance"]["opinion_votes"] == {"dag": False, "eli": True}
    d.ok(Vote("ana", None, True))
    # permanent: still in play for the next vote
    d.deadline()
    assert d.st.holds(d.game.seat("dag"), "opinion_maker")


def _makers_vote(n: int = 7) -> Driver:
    d = start(n, spies=["ana", "bo", "fred"], deck=["opinion_maker", "opinion_maker"])
    d.ok(Give("cy", None, "opinion_maker", "dag"))
    d.ok(Give("cy", None, "opinion_maker", "eli"))
    d.propose("cy", "dag")
    return d


def _seats(d: Driver, *names: str) -> tuple[int, ...]:
    return tuple(sorted(d.game.seat(p) for p in names))


def test_only_the_opinion_makers_are_asked_and_awaited_before_they_vote() -> None:
    d = _makers_vote()
    assert RESISTANCE.awaiting(d.game) == _seats(d, "dag", "eli")
    assert RESISTANCE.expected(d.game) == _seats(d, "dag", "eli")
    assert set(asked(d.game)) == {"dag", "eli"}
    first = d.game.phase.seq
    d.now += 30
    d.ok(Vote("dag", None, True))
    events = d.ok(Vote("eli", None, False))
    # everyone else is asked now, in a vote of their own with the whole time
    assert d.phase == "team_vote" and d.game.phase.seq == first + 1
    assert d.game.phase.deadline == d.now + 120
    others = [p for p in d.game.players if p not in ("dag", "eli")]
    assert sorted(e.to for e in events if e.kind == Kind.PROMPT) == sorted(others)
    assert set(asked(d.game)) == set(others)
    assert RESISTANCE.awaiting(d.game) == _seats(d, *others)
    assert len(RESISTANCE.expected(d.game)) == 7


def test_opinion_makers_who_let_the_time_run_out_cost_nobody_else_a_miss() -> None:
    d = _makers_vote()
    d.ok(Vote("dag", None, False))
    events = d.deadline()  # eli never votes: the others were not asked yet
    assert "The opinion makers have voted: Dag: reject, Eli: no vote." in public_texts(events)
    missed = view(d.game, "@host")["missed"]
    assert missed == {p: int(p == "eli") for p in d.game.players}
    assert d.phase == "team_vote" and "eli" not in asked(d.game)
    d.refused(Vote("eli", None, True), "opinion_missed")
    d.votes(yes=["ana", "bo", "cy"])  # 3 of 7: eli's missing vote counts as a rejection
    assert d.st.proposals[-1].votes[d.game.seat("eli")] is None
    assert not d.st.proposals[-1].approved
    missed = view(d.game, "@host")["missed"]
    assert missed == {"ana": 0, "bo": 0, "cy": 0, "dag": 0, "eli": 1, "fred": 1, "gro": 1}
    # two vote deadlines in a row without voting: only the players asked both times
    assert d.leader == "dag"
    d.propose("dag", "ana")
    reports = [e for e in d.deadline() if e.kind == Kind.HOST]
    assert texts(reports) == ["Eli has missed two deadlines in a row."]
    reports = [e for e in d.deadline() if e.kind == Kind.HOST]
    assert texts(reports) == [
        "Fred has missed two deadlines in a row.",
        "Gro has missed two deadlines in a row.",
    ]


def test_take_responsibility_takes_a_card_or_nothing() -> None:
    d = start(
        9,
        spies=["ana", "bo", "cy"],
        leader="dag",
        deck=["take_responsibility", "no_confidence", "opinion_maker"],
    )
    events = d.ok(Give("dag", None, "take_responsibility", "eli"))
    assert "There is no plot card to take; the card is discarded." in public_texts(events)
    assert d.st.pending == ()
    d.ok(Give("dag", None, "no_confidence", "fred"))
    d.ok(Give("dag", None, "opinion_maker", "fred"))
    d2 = start(
        9,
        spies=["ana", "bo", "cy"],
        leader="dag",
        deck=["no_confidence", "opinion_maker", "take_responsibility"],
    )
    d2.ok(Give("dag", None, "no_confidence", "fred"))
    d2.ok(Give("dag", None, "opinion_maker", "fred"))
    d2.ok(Give("dag", None, "take_responsibility", "eli"))
    assert RESISTANCE.awaiting(d2.game) == (d2.game.seat("dag"), d2.game.seat("eli"))
    d2.refused(Play("eli", None, "take_responsibility", "gro"), "bad_target")
    d2.refused(Play("eli", None, "take_responsibility", "fred", "strong_leader"), "bad_take")
    events = d2.ok(Play("eli", None, "take_responsibility", "fred", "opinion_maker"))
    assert "Eli takes the plot card Opinion Maker from Fred." in public_texts(events)
    assert d2.st.holds(d2.game.seat("eli"), "opinion_maker")
    assert not d2.st.holds(d2.game.seat("fred"), "opinion_maker")
    assert d2.st.holds(d2.game.seat("fred"), "no_confidence")
    d2.refused(Play("eli", None, "take_responsibility", "fred"), "not_held")


def _only_secret_tell(events: Sequence[Event], to: str, text: str) -> None:
    """The card's information went to `to` alone, secretly, and nothing public was said."""
    informative = [e for e in events if e.text and render(e.text, "en") == text]
    assert len(informative) == 1
    e = informative[0]
    assert e.kind == Kind.TELL and e.to == to and e.secret
    assert public_texts(events) == []


def test_overheard_conversation_reveals_a_neighbour_to_the_receiver_only() -> None:
    d = start(
        7,
        spies=["ana", "bo", "fred"],
        leader="gro",
        deck=["overheard_conversation", "overheard_conversation"],
    )
    d.ok(Give("gro", None, "overheard_conversation", "ana"))  # ana sits between gro and bo
    d.ok(Give("gro", None, "overheard_conversation", "dag"))
    assert [f.options for s in legal(d.game, "ana") for f in s.fields if f.name == "target"] == [
        ("bo", "gro")
    ]
    d.refused(Play("ana", None, "overheard_conversation", "cy"), "bad_target")
    events = d.ok(Play("ana", None, "overheard_conversation", "gro"))
    _only_secret_tell(events, "ana", "Overheard Conversation: Gro is a member of the resistance.")
    events = d.ok(Play("dag", None, "overheard_conversation", "cy"))
    _only_secret_tell(events, "dag", "Overheard Conversation: Cy is a member of the resistance.")
    assert view(d.game, "dag")["you"]["learned"][0]["player"] == "cy"
    pub = json.dumps(view(d.game, None))
    assert '"target"' not in pub


def test_establish_confidence_shows_the_leader_to_the_receiver() -> None:
    d = start(
        7, spies=["ana", "bo", "fred"], leader="bo", deck=["establish_confidence", "no_confidence"]
    )
    events = d.ok(Give("bo", None, "establish_confidence", "eli"))
    secret = [e for e in events if e.secret]
    assert len(secret) == 1 and secret[0].to == "eli"
    assert texts(secret) == ["Establish Confidence: the leader Bo is a spy."]
    assert all("spy" not in t for t in public_texts(events))
    assert view(d.game, "eli")["you"]["learned"] == [
        {"mission": 1, "card": "establish_confidence", "player": "bo", "value": "spies"}
    ]
    assert "spies" not in json.dumps(view(d.game, None)) and "spies" not in json.dumps(
        view(d.game, "cy")["you"]
    )


def test_open_up_shows_the_receiver_to_the_player_they_choose() -> None:
    d = start(7, spies=["ana", "bo", "fred"], deck=["open_up", "no_confidence"])
    d.ok(Give("cy", None, "open_up", "fred"))
    d.refused(Play("fred", None, "open_up", "fred"), "bad_target")
    events = d.ok(Play("fred", None, "open_up", "gro"))
    informative = [e for e in events if e.secret]
    assert len(informative) == 1 and informative[0].to == "gro"
    assert texts(informative) == ["Open Up: Fred shows you that they are a spy."]
    assert public_texts(events) == []
    assert all("spy" not in texts([e])[0] for e in events if e.text and e.to != "gro")
    assert view(d.game, "gro")["you"]["learned"][0] == {
        "mission": 1,
        "card": "open_up",
        "player": "fred",
        "value": "spies",
    }


def test_waiting_immediate_cards_are_settled_at_the_deadline() -> None:
    d = start(7, spies=["ana", "bo", "fred"], deck=["open_up", "overheard_conversation"])
    d.ok(Give("cy", None, "open_up", "eli"))
    d.ok(Give("cy", None, "overheard_conversation", "dag"))
    events = d.deadline()
    assert d.phase == "team_vote" and d.st.pending == ()
    secret = [e for e in events if e.secret]
    assert {e.to for e in secret} >= {"dag"} and len(secret) == 2
    assert len(d.st.knowledge[d.game.seat("dag")]) == 1
    assert any("did not propose in time" in t for t in public_texts(events))


# -- what each question says (ask): the context a player without a TV needs ------------


def _ask(d: Driver, player: str) -> list[str]:
    q = question(d.game, player)
    assert q is not None, f"{player} is asked nothing"
    return [render(m, "en") for m in q.context]


def test_the_leader_is_told_the_mission_the_proposal_and_the_team_size() -> None:
    d = start(7, spies=["ana", "bo", "fred"])
    assert _ask(d, "cy") == ["Mission 1, proposal 1 of 5: pick a team of 2."]
    assert question(d.game, "dag") is None
    d.propose("cy", "dag")
    d.all_vote(False)
    assert _ask(d, "dag") == ["Mission 1, proposal 2 of 5: pick a team of 2."]
    d.run_mission(["dag", "eli"])
    d.run_mission(["eli", "fred", "gro"], fails=["fred"])
    d.run_mission(["fred", "gro", "cy"])
    assert d.st.mission == 4 and not d.game.over
    assert _ask(d, d.leader) == [
        "Mission 4, proposal 1 of 5: pick a team of 4. It fails only with 2 fail cards."
    ]


def test_voters_and_team_members_are_told_the_team_and_the_mission() -> None:
    d = start(5)
    d.propose("cy", "dag")
    assert _ask(d, "ana") == ["Mission 1, proposal 1 of 5. The team: Cy, Dag."]
    d.all_vote(True)
    assert _ask(d, "dag") == ["Mission 1, team Cy, Dag: play your mission card."]
    assert question(d.game, "ana") is None


def test_the_giver_is_told_the_cards_left_and_a_holder_what_a_card_does() -> None:
    d = start(
        7, spies=["ana", "bo", "fred"], deck=["overheard_conversation", "overheard_conversation"]
    )
    assert _ask(d, "cy")[0] == (
        "Give these plot cards, each to another player: "
        "Overheard Conversation, Overheard Conversation."
    )
    d.ok(Give("cy", None, "overheard_conversation", "dag"))
    assert _ask(d, "cy")[0] == "Give this plot card to another player: Overheard Conversation."
    assert _ask(d, "dag") == [
        "Overheard Conversation: Privately see the team of one of your two neighbours."
    ]
    d2 = start(5, deck=["no_confidence"])
    d2.ok(Give("cy", None, "no_confidence", "dag"))
    d2.propose("cy", "ana")
    d2.all_vote(True)
    assert _ask(d2, "dag") == [
        "No Confidence: Right after a team is approved, veto it: it counts as a rejected team."
    ]


def test_an_opinion_maker_is_told_what_the_card_asks_of_them() -> None:
    d = _makers_vote()
    assert _ask(d, "dag") == [
        "Mission 1, proposal 1 of 5. The team: Cy, Dag.",
        "Opinion Maker: You must vote on every team before anyone else, "
        "and your vote is shown at once.",
    ]
