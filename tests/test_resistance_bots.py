"""Resistance's reasoning bots: they decide from their own player's view only,
the set of spy assignments they keep is exact, and they play better than the
simple baseline. Small samples only; the balance tables are in docs/balance.md."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from gameflow.core import actions as A
from gameflow.core.engine import apply, legal, new_game, view
from gameflow.core.legal import ActionSpec
from gameflow.core.result import Accepted
from gameflow.core.state import Game
from gameflow.games.resistance import bots as rb
from gameflow.games.resistance.actions import Mission, Propose, Vote
from gameflow.games.resistance.deduce import (
    MODEL,
    Evidence,
    assignments,
    belief,
    mask,
    public_weights,
)
from gameflow.games.resistance.reason import STYLE, Style, decide
from gameflow.games.resistance.state import Resistance

pytestmark = pytest.mark.resistance

EPOCH = 1_700_000_000.0


def _ok(result: object) -> Game:
    assert isinstance(result, Accepted), result
    return result.state


def _scripted(spies: tuple[str, ...], leader: str = "p0") -> Game:
    """Five players, a fixed deal, no plot cards."""
    game = new_game(
        "resistance",
        "scripted",
        "host",
        "s",
        lang="en",
        options={"auto_advance": True, "plot_cards": False},
        setup={"roles": {p: "spy" for p in spies}, "leader": leader},
    )
    for i in range(5):
        game = _ok(apply(game, A.Join(f"p{i}", None, f"P{i}"), EPOCH))
    return _ok(apply(game, A.Start("host"), EPOCH))


def _vote_all(game: Game, yes: set[str]) -> Game:
    for p in game.players:
        game = _ok(apply(game, Vote(p, None, p in yes), EPOCH))
    return game


def _mission(game: Game, fails: set[str]) -> Game:
    st: Resistance = game.rules
    for s in st.team:
        p = game.players[s]
        game = _ok(apply(game, Mission(p, None, "fail" if p in fails else "success"), EPOCH))
    return game


def _round(game: Game, leader: str, team: tuple[str, ...], yes: set[str], fails: set[str]) -> Game:
    """A mission round: `leader` proposes `team`, `yes` approve, `fails` fail it."""
    game = _ok(apply(game, Propose(leader, None, team), EPOCH))
    game = _vote_all(game, yes)
    return _mission(game, fails)


def test_the_consistent_set_is_exact_on_a_scripted_game() -> None:
    """Mission 1 (p0, p1) fails once, mission 2 (p1, p2, p3) succeeds: p4 keeps
    exactly the 2-spy sets without p4 with a spy on the first team."""
    game = _scripted(("p0", "p3"))
    game = _round(game, "p0", ("p0", "p1"), {"p0", "p1", "p2"}, {"p0"})
    game = _round(game, "p1", ("p1", "p2", "p3"), {"p1", "p2", "p3"}, set())
    assert [r.fails for r in game.rules.results] == [1, 0]
    b = belief(view(game, "p4"), "p4")
    expected = {
        mask(c) for c in combinations(range(4), 2) if {0, 1} & set(c)
    }  # spies among p0..p3, one of them on the failed team
    assert set(b.consistent) == expected and len(b.consistent) == 5
    assert sum(p for _, p in b.weights) == pytest.approx(1.0)
    # every kept assignment is weighed (the votes and the success make some likelier)
    assert all(p > 0 for _, p in b.weights) and len({p for _, p in b.weights}) > 1
    # p2 saw the same, and knows they are not a spy
    b2 = belief(view(game, "p2"), "p2")
    assert set(b2.consistent) == {mask(c) for c in combinations((0, 1, 3, 4), 2) if {0, 1} & set(c)}
    # a spy knows the answer
    assert belief(view(game, "p3"), "p3").weights == ((mask([0, 3]), 1.0),)
    assert len(assignments(10, 4)) == 210


def test_evidence_reads_the_record_of_a_view() -> None:
    game = _scripted(("p0", "p3"))
    game = _ok(apply(game, Propose("p0", None, ("p0", "p1")), EPOCH))
    game = _vote_all(game, {"p0"})  # rejected
    ev = Evidence.of(view(game, "p4"))
    # team, yes votes, last before a rejection loss, fails needed, critical, leader
    assert ev.events == (("v", mask([0, 1]), mask([0]), False, 1, False, 0),)


def test_only_critical_votes_and_the_leaders_choice_weigh() -> None:
    """Spies vote as the resistance would (their cover) unless a mission decides
    the game, so an ordinary vote tells only as much as voters keep their side's
    habits (`tell`); a spy leader mostly proposes a team with exactly as many
    spies as it takes to fail (`leader_off`)."""
    masks = assignments(5, 2)
    ordinary = ("v", mask([0, 1]), mask([0, 1]), False, 1, False, 0)
    covered = MODEL._replace(tell=0.0)
    w = dict(zip(masks, public_weights(5, 2, (ordinary,), covered), strict=True))
    assert w[mask([0, 1])] == pytest.approx(MODEL.leader_off)  # the leader took a mate along
    assert {v for a, v in w.items() if a != mask([0, 1])} == {1.0}
    habits = public_weights(5, 2, (ordinary,))
    assert len(set(habits)) > 2  # habits count a little ...
    # critical: 3 and 4 rejected, 2 approved the team {0, 1}
    critical = ("v", mask([0, 1]), mask([0, 1, 2]), False, 1, True, 0)
    always = MODEL._replace(pivot=0)  # spies who always leave their cover on a decider
    w = dict(zip(masks, public_weights(5, 2, (critical,), always), strict=True))
    assert w[mask([3, 4])] > 10 * w[mask([2, 3])]  # spies reject a clean team that decides
    assert w[mask([0, 2])] > 10 * w[mask([0, 3])]  # ... and back a team with a spy
    assert max(habits) / min(habits) < max(w.values()) / min(w.values())  # ... a decider more
    # at five seats spies leave their cover only to turn the vote: it tells less
    pivot = dict(zip(masks, public_weights(5, 2, (critical,)), strict=True))
    assert 1 < pivot[mask([3, 4])] / pivot[mask([2, 3])] < w[mask([3, 4])] / w[mask([2, 3])]


def test_a_spy_leaves_its_cover_on_a_decider_only_to_turn_the_vote() -> None:
    """Two failures: the spies p0 and p3 want any team with a spy on it. The
    resistance rejects (p2, p0), so backing it would only show who they are:
    they vote as their cover; spies told to always back a spy (pivot 0) do."""
    game = _scripted(("p0", "p3"))
    game = _round(game, "p0", ("p0", "p3"), {"p0", "p1", "p2"}, {"p0"})
    game = _round(game, "p1", ("p1", "p0", "p3"), {"p1", "p2", "p3"}, {"p0"})
    game = _ok(apply(game, Propose("p2", None, ("p2", "p0")), EPOCH))
    assert game.rules.failures() == 2

    def vote(p: str, style: Style = STYLE) -> bool:
        spec = next(x for x in legal(game, p) if x.kind == Vote.kind)
        action = decide(view(game, p), p, spec, random.Random(1), style=style)
        assert isinstance(action, Vote)
        return action.approve

    assert [vote(p) for p in ("p1", "p2", "p4")] == [False, False, False]
    assert [vote(p) for p in ("p0", "p3")] == [False, False]
    always = STYLE._replace(pivot=0)
    assert [vote(p, always) for p in ("p0", "p3")] == [True, True]


def _decisions(game: Game, player: str) -> list[object]:
    out = []
    for spec in legal(game, player):
        out.append(rb.reasoning_action(game, player, spec, random.Random(5)))
    return out


@pytest.mark.parametrize("players", [5, 8, 10])
def test_a_resistance_bot_decides_the_same_whoever_the_other_spies_are(players: int) -> None:
    """Only the hidden roles of others differ: the bot's choices must not."""
    for seed in range(4):
        game = rb.start_game(players, f"swap/{seed}", {"plot_cards": False})
        steps = 0
        while not game.over and steps < 60:
            st: Resistance = game.rules
            for p in game.players:
                me = game.seat(p)
                if st.spy[me] or not legal(game, p):
                    continue
                others = [s for s in range(players) if s != me]
                shuffled = random.Random(steps).sample(others, len(others))
                spy = list(st.spy)
                for a, b in zip(others, shuffled, strict=True):
                    spy[b] = st.spy[a]
                swapped = game._replace(rules=st._replace(spy=tuple(spy)))
                assert _decisions(swapped, p) == _decisions(game, p)
            game = rb.play_game(game, rb.reasoning_action, random.Random(seed), limit=1)
            steps += 1


def test_decide_sees_only_a_view() -> None:
    """`decide` takes a view (a dict of what the player sees), never the Game."""
    game = rb.start_game(7, "view-only", {"plot_cards": True})
    st: Resistance = game.rules
    leader = game.players[st.leader]
    seen = view(game, leader)
    spec: ActionSpec = legal(game, leader)[-1]
    assert spec.kind == Propose.kind
    action = decide(seen, leader, spec, random.Random(1))
    assert isinstance(action, Propose) and leader in action.team
    assert len(action.team) == st.team_size


def _mixed(resistance: rb.Policy, spies: rb.Policy) -> rb.Policy:
    def policy(game: Game, player: str, spec: ActionSpec, rng: random.Random) -> A.Action | None:
        spy = game.rules.spy[game.seat(player)]
        return (spies if spy else resistance)(game, player, spec, rng)

    return policy


def test_the_reasoning_resistance_beats_the_simple_one() -> None:
    """Against the same simple spies, over the same 16 deals."""
    simple = rb.spy_win_rates([5, 7], 16, 300, {"plot_cards": False}, rb.simple_action)
    reasoning = rb.spy_win_rates(
        [5, 7], 16, 300, {"plot_cards": False}, _mixed(rb.reasoning_action, rb.simple_action)
    )
    for n in (5, 7):
        assert reasoning[n] + 0.3 < simple[n], (n, reasoning, simple)


@pytest.mark.parametrize("plots", [True, False])
def test_reasoning_bots_play_whole_games_the_engine_accepts(plots: bool) -> None:
    refused: list[A.Action] = []

    def policy(game: Game, p: str, spec: ActionSpec, rng: random.Random) -> A.Action | None:
        action = rb.reasoning_action(game, p, spec, rng)
        if action is not None and not isinstance(apply(game, action, EPOCH), Accepted):
            refused.append(action)
        return action

    for n in (5, 7, 10):
        end = rb.play_game(
            rb.start_game(n, f"ok/{n}", {"plot_cards": plots}), policy, random.Random(n)
        )
        assert end.over and end.winner in ("spies", "resistance")
        assert refused == []
