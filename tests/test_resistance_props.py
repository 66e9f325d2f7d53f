"""Random full Resistance games (5–10 players) checked against invariants.

Hypothesis picks the table size, the seed, the options (plot cards, heroes,
automatic advancing) and how the table behaves (how often inputs are illegal,
how often deadlines strike, how much the host meddles); a `random.Random`
seeded by hypothesis then plays every step, mostly from `engine.legal()`.

Checked at every step:
- legal() and apply() agree: an input is accepted iff legal() offers it;
- a rejection changes nothing, an acceptance bumps the version by exactly one;
- the public and host views are a function of public information only: they do
  not change when every secret (roles, mission cards, what plot cards told
  someone) is blanked out; a player's view is the public view plus their own
  secrets, and names no other role than what they were told;
- secret events are private tells; what a plot card reveals reaches exactly the
  player who learned it; no public text carries a secret;
- the mission count, successes, failures and the vote track stay in range;
- the game always ends, the accepted actions replay to an equal game, every
  action prints as a script step and parses back, and the state survives the
  snapshot codec.
"""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from props_helpers import HOST_ACTIONS, judged, offered, playthrough_settings, timeout
from resistance_helpers import HOST, T0, Driver, players

from gameflow.core import actions as A
from gameflow.core.codec import decode_game, encode_game
from gameflow.core.engine import apply, legal, new_game, view
from gameflow.core.events import Event, Kind
from gameflow.core.legal import ActionSpec
from gameflow.core.result import Accepted
from gameflow.core.state import HOST_VIEW, Game
from gameflow.games.resistance import RESISTANCE
from gameflow.games.resistance.actions import Give, Mission, Pass, Play, Propose, Vote
from gameflow.games.resistance.cards import CARD_IDS
from gameflow.games.resistance.state import NOBODY, SUCCESS, Resistance

pytestmark = pytest.mark.resistance

SECRET_MSGIDS = (
    "You are a SPY",
    "You are in the RESISTANCE",
    "Mission card played",
    "Keeping a Close Eye on You:",
    "Overheard Conversation:",
    "Establish Confidence:",
    "Open Up:",
    "You will see the mission card",
)
INFO_MSGIDS = {
    "Keeping a Close Eye on You: {name} played {card}.": "keeping_close_eye",
    "Overheard Conversation: {target} is {team}.": "overheard_conversation",
    "Establish Confidence: the leader {leader} is {team}.": "establish_confidence",
    "Open Up: {name} shows you that they are {team}.": "open_up",
}


# -- legal() as a predicate ------------------------------------------------------------


def is_legal(game: Game, action: A.Action) -> bool:
    specs = offered(game, action, HOST)
    if specs is None:
        return False
    for spec in specs:
        opts = {f.name: f.options for f in spec.fields}
        if isinstance(action, Propose) and spec.kind == "propose":
            rules: Resistance = game.rules
            team = action.team
            return len(set(team)) == len(team) == rules.team_size and all(
                p in opts["team"] for p in team
            )
        if isinstance(action, Vote) and spec.kind == "vote":
            return action.approve in opts["approve"]
        if isinstance(action, Mission) and spec.kind == "mission":
            return action.card in opts["card"]
        if isinstance(action, Give) and spec.kind == "give":
            return action.card in opts["card"] and action.to in opts["to"]
        if isinstance(action, Play) and spec.kind == "play" and action.card in opts["card"]:
            if action.target not in opts["target"]:
                return False
            if action.take is None:
                return True
            rules = game.rules
            seat = game.seat(action.target or "")
            return any(h.seat == seat and h.card == action.take for h in rules.held)
        if isinstance(action, Pass) and spec.kind == "pass":
            return True
        if HOST_ACTIONS.get(spec.kind) is type(action):
            return True
    return False


# -- the table ---------------------------------------------------------------------------


class Table:
    def __init__(self, rng: random.Random, illegal: float, deadline: float, host: float) -> None:
        self.rng = rng
        self.illegal = illegal
        self.deadline = deadline
        self.host = host

    def pick(self, game: Game, player: str, spec: ActionSpec) -> A.Action | None:
        rng = self.rng
        rules: Resistance = game.rules
        opts = {f.name: f.options for f in spec.fields}
        seq = rng.choice((None, spec.phase))
        if spec.kind == "propose":
            team = rng.sample([str(p) for p in opts["team"]], rules.team_size)
            return Propose(player, seq, tuple(team))
        if spec.kind == "vote":
            return Vote(player, seq, rng.random() < 0.6)
        if spec.kind == "mission":
            fail = "fail" in opts["card"] and rng.random() < 0.7
            return Mission(player, seq, "fail" if fail else "success")
        if spec.kind == "give":
            return Give(player, seq, str(rng.choice(opts["card"])), str(rng.choice(opts["to"])))
        if spec.kind == "play":
            target = rng.choice(opts["target"])
            return Play(player, seq, str(opts["card"][0]), None if target is None else str(target))
        if spec.kind == "pass":
            return Pass(player, seq)
        return None

    def junk(self, game: Game) -> A.Action:
        rng = self.rng
        people = [*game.players, "zed", HOST]
        by = rng.choice(people)
        seq = rng.choice((None, game.phase.seq, game.phase.seq - 1))
        kind = rng.randrange(7)
        if kind == 0:
            size = rng.randint(1, 6)
            return Propose(by, seq, tuple(rng.choice(people) for _ in range(size)))
        if kind == 1:
            return Vote(by, seq, rng.random() < 0.5)
        if kind == 2:
            return Mission(by, seq, rng.choice(("success", "fail", "x")))
        if kind == 3:
            return Give(by, seq, rng.choice((*CARD_IDS, "x")), rng.choice(people))
        if kind == 4:
            return Play(by, seq, rng.choice((*CARD_IDS, "x")), rng.choice((*people, None)))
        if kind == 5:
            return Pass(by, seq)
        cls = rng.choice((A.Pause, A.Resume, A.Advance))
        return cls(rng.choice((HOST, by)), seq)


# -- invariants ----------------------------------------------------------------------------


def blanked(game: Game) -> Game:
    """The same game with every secret replaced by a constant."""
    rules: Resistance = game.rules
    n = len(game.players)
    return game._replace(
        rules=rules._replace(
            spy=(False,) * n,
            cards=tuple(None if c is None else SUCCESS for c in rules.cards),
            knowledge=((),) * n,
            watch=tuple((NOBODY, NOBODY) for _ in rules.watch),
        )
    )


def check_views(game: Game, looked: list[str]) -> None:
    rules: Resistance = game.rules
    pub = view(game, None)
    host = view(game, HOST_VIEW)
    assert {k: v for k, v in host.items() if k not in ("waiting", "missed", "version")} == pub
    assert "version" not in pub and host["version"] == game.version
    if not game.over:
        quiet = blanked(game)
        assert view(quiet, None) == pub
        assert view(quiet, HOST_VIEW) == host
        assert '"spy"' not in json.dumps(pub)
    for p in looked:
        s = game.seat(p)
        pv = view(game, p)
        me = pv.pop("you")
        assert pv == pub
        assert me["role"] == ("spy" if rules.spy[s] else "resistance")
        assert ("spies" in me) == rules.spy[s]
        told = {f.about for f in rules.knowledge[s]}
        for fact in me["learned"]:
            assert game.seat(fact["player"]) in told
        if "card" in me:
            assert s in rules.team and me["card"] == rules.cards[s]


def check_events(old: Game, game: Game, events: tuple[Event, ...]) -> None:
    rules: Resistance = game.rules
    for e in events:
        if e.secret:
            assert e.kind == Kind.TELL and e.to in game.players
        if e.to is None and e.text is not None:
            assert not e.text.msgid.startswith(SECRET_MSGIDS), e.text.msgid
        if e.text is not None and e.text.msgid in INFO_MSGIDS:
            # the information went to the one player who now knows it
            assert e.kind == Kind.TELL and e.secret
            s = game.seat(e.to or "")
            card = INFO_MSGIDS[e.text.msgid]
            before: Resistance = old.rules
            new = rules.knowledge[s][len(before.knowledge[s]) :]
            assert any(f.card == card for f in new), (card, e)


def check_progress(game: Game) -> None:
    rules: Resistance = game.rules
    # The engine's shortcut after every input must agree with the full answer.
    assert RESISTANCE.ready(game) == (not RESISTANCE.awaiting(game)), game.phase
    assert 1 <= rules.mission <= 5
    assert len(rules.results) <= 5
    assert rules.successes() <= 3 and rules.failures() <= 3
    assert 0 <= rules.rejections <= rules.config.max_rejections
    assert sum(1 for v in rules.votes if v is not None) <= len(game.players)
    if game.over and not game.ended_by_host:
        if game.winner == "resistance":
            assert rules.successes() == 3
        else:
            assert game.winner == "spies"
            assert rules.failures() == 3 or rules.rejections == rules.config.max_rejections


# -- the playthrough -------------------------------------------------------------------------


def new(n: int, seed: int, options: dict[str, Any]) -> Game:
    game = new_game("resistance", "g1", HOST, seed, lang="en", options=options)
    for p in players(n):
        result = apply(game, A.Join(p, None, p.capitalize()), T0)
        assert isinstance(result, Accepted)
        game = result.state
    return game


def play(n: int, seed: int, options: dict[str, Any], table: Table) -> Driver:
    rng = table.rng
    d = Driver(new(n, seed, options))
    d.ok(A.Start(HOST))
    budget = 600
    steps = 0
    while not d.game.over:
        steps += 1
        assert steps < budget + 200, "the game did not end"
        old = d.game
        d.now += rng.uniform(0, 20)
        roll = rng.random()
        movers = [p for p in d.game.players if legal(old, p)]
        action: A.Action | None
        if steps > budget or roll < table.deadline or not movers:
            action = timeout(d, old, rng, HOST)
        elif roll < table.deadline + table.illegal:
            action = table.junk(old)
        elif roll < table.deadline + table.illegal + table.host:
            spec = rng.choice(legal(old, HOST))
            if spec.kind == "end" and rng.random() < 0.95:
                continue
            action = HOST_ACTIONS[spec.kind](HOST, rng.choice((None, spec.phase)))
        else:
            p = rng.choice(movers)
            action = table.pick(old, p, rng.choice(legal(old, p)))
            if action is None:
                continue
        events = judged(d, old, action, is_legal(old, action))
        if events is not None:
            check_progress(d.game)
            check_events(old, d.game, events)
            looked = d.game.players if d.game.phase.seq != old.phase.seq else old.players[:2]
            check_views(d.game, list(looked))
    return d


@playthrough_settings(40)
@given(
    n=st.integers(5, 10),
    seed=st.integers(0, 2**32),
    auto=st.booleans(),
    plot=st.booleans(),
    heroes=st.booleans(),
    deck=st.sampled_from(["auto", "full", "reduced"]),
    illegal=st.sampled_from([0.0, 0.1, 0.3]),
    deadline=st.sampled_from([0.02, 0.1, 0.3]),
    host=st.sampled_from([0.0, 0.03]),
)
def test_random_games_keep_every_invariant(
    n: int,
    seed: int,
    auto: bool,
    plot: bool,
    heroes: bool,
    deck: str,
    illegal: float,
    deadline: float,
    host: float,
) -> None:
    options = {"auto_advance": auto, "plot_cards": plot, "heroes": heroes, "plot_deck": deck}
    d = play(n, seed, options, Table(random.Random(seed), illegal, deadline, host))
    assert d.game.over
    assert d.game.ended_by_host or d.game.winner in ("resistance", "spies")
    pub = view(d.game, None)
    assert pub["seed"] == d.game.seed
    rules: Resistance = d.game.rules
    assert sum(r == "spy" for r in pub["resistance"]["roles"].values()) == sum(rules.spy)
    # the accepted actions replay to an equal game, and print as script steps
    game = new(n, seed, options)
    for action, now in d.log:
        step = RESISTANCE.step_of(action)
        if step is not None:
            assert RESISTANCE.parse_step(step) == dataclasses.replace(action, phase=None)
        result = apply(game, action, now)
        assert isinstance(result, Accepted), (action, result)
        game = result.state
    assert game == d.game
    assert view(game, None) == pub
    assert decode_game(encode_game(d.game)) == d.game


def test_the_driver_exercises_the_rules() -> None:
    """The random table really deals and plays plot cards, vetoes, fails and
    wins on both sides, so the property test above is not vacuous."""
    played: set[str] = set()
    winners: set[str | None] = set()
    vetoes = fails = 0
    for seed in range(16):
        n = 5 + seed % 6
        options = {"auto_advance": seed % 2 == 0, "plot_deck": "full"}
        d = play(n, seed, options, Table(random.Random(seed), 0.05, 0.05, 0.0))
        rules: Resistance = d.game.rules
        played |= {u.card for u in rules.plot_log if not u.dealt}
        winners.add(d.game.winner)
        vetoes += sum(p.vetoed_by != NOBODY for p in rules.proposals)
        fails += sum(r.fails for r in rules.results)
    assert {"resistance", "spies"} <= winners
    assert vetoes and fails
    assert {"no_confidence", "keeping_close_eye", "in_the_spotlight", "strong_leader"} <= played
