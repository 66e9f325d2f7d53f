"""What a Station player without a TV learns by message: the context of each
question (`ask`: the plans, what the vote decides), and the public news as
events (each result with what was short and the guards the played plan needed,
the votes, who sits out, the end reveal). Also the `reveal_guards` option."""

from __future__ import annotations

import pytest
from station_helpers import Driver, start

from gameflow.core import actions as A
from gameflow.core.engine import apply, new_game, view
from gameflow.core.events import Event, Kind
from gameflow.core.question import question
from gameflow.core.result import Rejected
from gameflow.core.state import Game
from gameflow.games.station import STATION
from gameflow.i18n import render

pytestmark = pytest.mark.station

PLANS = [
    {"reward": 2, "outside": 1, "radio": 1, "guards": 1},
    {"reward": 1, "outside": 1, "radio": 0, "guards": 2},
    {"reward": 3, "outside": 2, "radio": 1, "guards": 3},
]
HARD = {"reward": 1, "outside": 9, "radio": 9, "guards": 9}
FREE = {"reward": 1, "outside": 0, "radio": 0, "guards": 0}  # succeeds with nobody on it


def _fixed(**options: object) -> Driver:
    rounds = {r: {"plans": PLANS if r == 1 else [FREE] * 3, "trap": None} for r in range(1, 9)}
    return start(5, infiltrators=["ana", "bo"], rounds=rounds, options=options)


def _public(events: tuple[Event, ...]) -> list[str]:
    return [render(e.text, "en") for e in events if e.kind == Kind.ANNOUNCE and e.text]


def _context(game: Game, player: str) -> list[str]:
    q = question(game, player)
    assert q is not None
    return [render(m, "en") for m in q.context]


def test_the_mission_question_names_the_three_plans_with_reward_and_staffing() -> None:
    d = _fixed()
    assert _context(d.game, "cy") == [
        "Plan 1: 2 parts, 1 outside, 1 radio.",
        "Plan 2: 1 part, 1 outside.",
        "Plan 3: 3 parts, 2 outside, 1 radio.",
    ]
    d.choose("ana", 1, "guard")
    assert _context(d.game, "cy") == _context(d.game, "dag")  # others' inputs change nothing
    assert question(d.game, "ana") is None


def test_the_vote_question_says_what_the_vote_decides() -> None:
    d = _fixed()
    d.to_vote()
    assert _context(d.game, "cy") == ["Vote: who sits out the next round?"]
    while d.game.phase.round < d.st.config.rounds and not d.game.over:
        d.next_round()
    assert not d.game.over
    d.to_vote()
    assert _context(d.game, "cy") == ["Last vote: choose one player to check."]


def test_the_result_names_the_played_plans_guards_and_what_was_short() -> None:
    d = _fixed()
    d.choose("cy", 3, "outside")
    d.choose("dag", 3, "guard")
    events = d.deadline()
    assert _public(events)[0] == (
        "Plan 3 failed: outside 1/2, radio 0/1, guards too few (it needed 3). "
        "0 of 8 parts, damage 1 of 4."
    )
    d2 = _fixed()
    d2.choose("cy", 1, "outside")
    d2.choose("dag", 1, "radio")
    d2.choose("eli", 1, "guard")
    assert _public(d2.deadline())[0] == (
        "Plan 1 succeeded (it needed 1 guard): 2 of 8 parts, damage 0 of 4."
    )


def test_only_the_played_plans_guards_are_shown_unless_the_option_says_all() -> None:
    d = _fixed()
    d.choose("cy", 2, "outside")
    d.deadline()
    assert [p.get("guards") for p in view(d.game, None)["station"]["plans"]] == [None, 2, None]
    d.to_vote()
    assert [p.get("guards") for p in view(d.game, None)["station"]["plans"]] == [None, 2, None]
    every = _fixed(reveal_guards="all")
    assert all("guards" not in p for p in view(every.game, None)["station"]["plans"])
    every.choose("cy", 2, "outside")
    every.deadline()
    assert [p["guards"] for p in view(every.game, None)["station"]["plans"]] == [1, 2, 3]
    assert STATION.default_options()["reveal_guards"] == "played"
    with pytest.raises(ValueError, match="reveal_guards takes played or all"):
        new_game("station", "g", "host", 1, lang="en", options={"reveal_guards": "some"})
    bad = new_game("station", "g", "host", 1, lang="en")  # as stored before that check:
    held = {**dict(bad.options), "reveal_guards": "some"}
    bad = bad._replace(options=tuple(sorted(held.items())))
    for p in ("ana", "bo", "cy", "dag", "eli"):
        bad = apply(bad, A.Join(p, None, p.capitalize()), 0.0).state  # type: ignore[union-attr]
    refused = apply(bad, A.Start("host"), 0.0)
    assert isinstance(refused, Rejected) and refused.code == "bad_setup"


def test_the_votes_are_announced_by_choice_and_the_voted_out_is_told() -> None:
    d = _fixed()
    d.to_vote()
    d.votes({"ana": "bo", "cy": "bo", "dag": "bo", "bo": None, "eli": None})
    events = d.deadline()
    public = _public(events)
    assert public[0] == "Votes: Bo (Ana, Cy, Dag), Nobody (Bo, Eli)."
    assert "Bo is voted out and sits out the next round." in public
    told = [e for e in events if e.kind == Kind.TELL and e.to == "bo"]
    assert [render(e.text, "en") for e in told if e.text] == [
        "You sit out the next round: no actions, no vote, no private information."
    ]
    d2 = _fixed()
    d2.to_vote()
    d2.votes({"ana": "bo", "cy": "bo"})
    assert _public(d2.deadline())[0] == ("Votes: Bo (Ana, Cy), no vote: Bo, Dag, Eli.")
    closed = _fixed(open_votes=False)
    closed.to_vote()
    closed.votes({"ana": "bo", "cy": "bo"})
    assert not any(t.startswith("Votes") for t in _public(closed.deadline()))


def test_the_end_names_the_infiltrators_and_tells_nobody_to_sit_out() -> None:
    rounds = {r: {"plans": [HARD, HARD, HARD], "trap": None} for r in range(1, 9)}
    d = start(5, infiltrators=["ana", "bo"], rounds=rounds)
    for _ in range(3):
        d.next_round()
    d.to_vote()  # the fourth failure destroys the station: the game ends after this vote
    d.votes({"ana": "cy", "bo": "cy", "dag": "cy"})
    events = d.deadline()
    assert d.game.over and d.game.winner == "infiltrators"
    public = _public(events)
    assert "Cy is voted out." in public
    assert public[-1] == "The infiltrators win! They were: Ana, Bo."
    assert not any(e.kind == Kind.TELL for e in events)
    assert not any("sits out" in t for t in public)
