"""Random full Station games (5–15 players) checked against invariants.

Hypothesis picks the table size, the seed and how the table behaves (how often
inputs are illegal, how often deadlines strike, how much the host meddles); a
`random.Random` seeded by hypothesis then plays every step, mostly by picking
from `engine.legal()`. Driving the hundreds of steps of a whole game from one
drawn seed keeps each example small and fast; the drawn knobs still shrink.

Checked at every step:
- legal() and apply() agree: an input is accepted iff legal() offers it;
- a rejection changes nothing, an acceptance bumps the version by exactly one;
- parts never negative; damage never decreases (except that the last round's
  check may undo that round's own damage); rounds never exceed the config;
- no public, host or other player's view holds a team, a secret action, a trap
  card or someone else's card, and a player's view is the public view plus
  exactly their own secrets; secret events go only to their owner;
- the game always ends, and replaying the accepted actions gives an equal game.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from props_helpers import HOST_ACTIONS, judged, keys, offered, playthrough_settings, timeout
from station_helpers import HOST, T0, Driver, new

from gameflow.core import actions as A
from gameflow.core.engine import apply, legal, view
from gameflow.core.events import Event, Kind
from gameflow.core.legal import ActionSpec
from gameflow.core.result import Accepted
from gameflow.core.state import HOST_VIEW, Game
from gameflow.games.station.actions import Choose, Vote
from gameflow.games.station.state import JOBS, NOBODY, Station

pytestmark = pytest.mark.station

SECRET_KEYS = {"card", "trap", "secret", "role", "teams", "infiltrators"}
SECRET_MSGIDS = (
    "Your card",
    "Trap card",
    "You are an INFILTRATOR",
    "You are LOYAL",
    "Choice locked",
)


# -- legal() as a predicate ------------------------------------------------------------


def is_legal(game: Game, action: A.Action) -> bool:
    """Would legal() have offered exactly this input?"""
    specs = offered(game, action, HOST)
    if specs is None:
        return False
    for spec in specs:
        if isinstance(action, Choose) and spec.kind == "choose":
            if action.sabotage and action.trap:
                return False
            secret = "sabotage" if action.sabotage else "trap" if action.trap else None
            values = {"plan": action.plan, "job": action.job, "partner": action.partner}
            values["secret"] = secret
            return all(v in (spec.field(k) or _none).options for k, v in values.items())
        if isinstance(action, Vote) and spec.kind == "vote":
            return action.target in (spec.field("for") or _none).options
        if HOST_ACTIONS.get(spec.kind) is type(action):
            return True
    return False


class _NoField:
    options: tuple[Any, ...] = ()


_none: Any = _NoField()


# -- input generators ---------------------------------------------------------------------


class Table:
    """How the table plays this game: biased so that pairs, traps, sabotage and
    vote-outs actually happen."""

    def __init__(self, rng: random.Random, illegal: float, deadline: float, host: float) -> None:
        self.rng = rng
        self.illegal = illegal
        self.deadline = deadline
        self.host = host
        self.focus: dict[int, Any] = {}  # phase seq -> favourite plan / vote target

    def pick(self, game: Game, player: str, spec: ActionSpec) -> A.Action:
        rng = self.rng
        st: Station = game.rules
        s = game.seat(player)
        opts: dict[str, tuple[Any, ...]] = {f.name: f.options for f in spec.fields}
        if spec.kind == "vote":
            target = self.focus.setdefault(spec.phase, rng.choice(opts["for"]))
            if target not in opts["for"] or rng.random() < 0.4:
                target = rng.choice(opts["for"])
            return Vote(player, rng.choice((None, spec.phase)), target)
        fav = self.focus.setdefault(spec.phase, rng.choice(opts["plan"]))
        plan = fav if rng.random() < 0.85 else rng.choice(opts["plan"])
        job = rng.choice(opts["job"])
        if plan == fav and rng.random() < 0.85:
            job = self.needed(st, plan - 1, opts["job"]) or job
        partner = rng.choice(opts["partner"])
        secret = rng.choice(opts["secret"]) if rng.random() < 0.2 else None
        trap = st.trap
        if trap is not None and rng.random() < 0.6:
            if s == trap.by and "trap" in opts["secret"]:
                job, partner, secret, plan = "guard", game.players[trap.victim], "trap", fav
            elif s == trap.victim and trap.job in opts["job"]:
                job, partner, plan = trap.job, game.players[trap.by], fav
        return Choose(
            player, spec.phase, plan, job, partner, secret == "sabotage", secret == "trap"
        )

    @staticmethod
    def needed(st: Station, plan: int, jobs: tuple[Any, ...]) -> str | None:
        """The job the plan is shortest of so far (a cooperative crew member)."""
        p = st.plans[plan]
        have = Counter(c.job for c in st.choices if c is not None and c.plan == plan)
        short = {"outside": p.outside, "radio": p.radio, "guard": p.guards + 1}
        best = max(jobs, key=lambda j: short[j] - have[j])
        return str(best) if short[best] > have[best] else None

    def junk(self, game: Game) -> A.Action:
        """A random, probably illegal, input."""
        rng = self.rng
        people = [*game.players, "zed", HOST]
        by = rng.choice(people)
        seq = rng.choice((None, game.phase.seq, game.phase.seq - 1, game.phase.seq + 1))
        kind = rng.randrange(4)
        if kind == 0:
            return Choose(
                by,
                seq,
                rng.randint(-1, 4),
                rng.choice((*JOBS, "cook")),
                rng.choice((*people, None)),
                rng.random() < 0.3,
                rng.random() < 0.3,
            )
        if kind == 1:
            return Vote(by, seq, rng.choice((*people, None)))
        if kind == 2:
            # (a real End is the host path's business: here only a stranger's)
            cls = rng.choice((A.Pause, A.Resume, A.Advance, A.End))
            if cls is A.End:
                return A.End(by if by != HOST else "zed", seq)
            return cls(rng.choice((HOST, by)), seq)
        return rng.choice(
            (A.Join(by, seq, "Zed"), A.Leave(by), A.Start(HOST), A.Kick(HOST, None, by))
        )


# -- invariants ------------------------------------------------------------------------------


def check_views(game: Game, players: list[str]) -> None:
    st: Station = game.rules
    pub = view(game, None)
    host = view(game, HOST_VIEW)
    over = game.over
    for v in (pub, host):
        if not over:
            assert not SECRET_KEYS & set(keys(v)), set(keys(v)) & SECRET_KEYS
            assert "infiltrator" not in json.dumps(v)
    # the host sees the public view plus who is still to act, missed deadlines
    # and the version (which counts every input: never in a public view)
    assert {k: v for k, v in host.items() if k not in ("waiting", "missed", "version")} == pub
    assert "version" not in pub and host["version"] == game.version
    assert host["waiting"] == [] or not over
    r = game.phase.round
    for p in players:
        s = game.seat(p)
        pv = view(game, p)
        me = pv.pop("you")
        assert pv == pub  # the rest is exactly the public view
        assert me["role"] == ("infiltrator" if st.infiltrator[s] else "loyal")
        assert ("infiltrators" in me) == st.infiltrator[s]
        if not over and not st.infiltrator[s]:
            assert "infiltrator" not in json.dumps(me)
        if "card" in me:
            assert game.running and st.active(s, r)
            assert me["card"] == {"plan": st.cards[s] + 1, "guards": st.plans[st.cards[s]].guards}
        else:
            assert not game.running or not st.active(s, r) or st.cards[s] == NOBODY
        if "trap" in me:
            assert st.trap is not None and st.trap.by == s
        if "choice" in me:
            assert me["choice"]["player"] == p


def check_events(game: Game, events: tuple[Event, ...]) -> None:
    st: Station = game.rules
    for e in events:
        if e.secret:
            assert e.kind == Kind.TELL and e.to in game.players
        if e.kind in (Kind.ANNOUNCE, Kind.HOST) and e.text is not None:
            assert not e.text.msgid.startswith(SECRET_MSGIDS), e.text.msgid
        if e.kind == Kind.TELL and e.text is not None and e.text.msgid.startswith("Trap card"):
            assert st.trap is not None and e.to == game.players[st.trap.by]
    # prompts for the current phase go to exactly the players who must act in it
    prompted = {e.to for e in events if e.kind == Kind.PROMPT and e.phase == game.phase.seq}
    if prompted:
        r = game.phase.round
        assert prompted == {p for s, p in enumerate(game.players) if st.active(s, r)}
        assert all(legal(game, str(p)) for p in prompted)


def check_progress(old: Game, new: Game) -> None:
    a: Station = old.rules
    b: Station = new.rules
    assert b.parts >= 0
    assert new.phase.round <= b.config.rounds
    assert len(b.history) <= b.config.rounds
    if b.damage < a.damage:
        # only the last round's check may take back that round's own damage
        assert new.over and b.history[-1].checked != NOBODY
        assert b.history[-1].round == b.config.rounds
        assert b.damage >= a.before[1]
    if new.over and not new.ended_by_host:
        done = len(b.history) == b.config.rounds or b.damage >= b.config.limit
        assert done
        if b.damage >= b.config.limit or b.parts < b.config.target:
            assert new.winner == "infiltrators"
        else:
            assert new.winner == "loyal"


# -- the playthrough ---------------------------------------------------------------------------


def play(n: int, seed: int, auto: bool, table: Table) -> Driver:
    rng = table.rng
    d = Driver(new(n, seed=seed, options={"auto_advance": auto}))
    d.ok(A.Start(HOST))
    budget = 40 * n * d.st.config.rounds  # far above any real game
    steps = 0
    while not d.game.over:
        steps += 1
        assert steps < budget + 4 * d.st.config.rounds, "the game did not end"
        old = d.game
        d.now += rng.uniform(0, 20)
        roll = rng.random()
        movers = [p for p in d.players if any(s.kind in ("choose", "vote") for s in legal(old, p))]
        if steps > budget or roll < table.deadline or not movers:
            action: A.Action = timeout(d, old, rng, HOST)
        elif roll < table.deadline + table.illegal:
            action = table.junk(old)
        elif roll < table.deadline + table.illegal + table.host:
            specs = legal(old, HOST)
            spec = rng.choice(specs)
            if spec.kind == "end" and rng.random() < 0.9:
                continue
            action = HOST_ACTIONS[spec.kind](HOST, rng.choice((None, spec.phase)))
        else:
            p = rng.choice(movers)
            action = table.pick(old, p, legal(old, p)[0])
        events = judged(d, old, action, is_legal(old, action))
        if events is not None:
            check_progress(old, d.game)
            check_events(d.game, events)
            looked = d.players if d.game.phase.seq != old.phase.seq else rng.sample(d.players, 2)
            check_views(d.game, list(looked))
    return d


def replayed(d: Driver, n: int, seed: int, auto: bool) -> Game:
    game = new(n, seed=seed, options={"auto_advance": auto})
    for action, now in d.log:
        result = apply(game, action, now)
        assert isinstance(result, Accepted), (action, result)
        game = result.state
    return game


@playthrough_settings(50)
@given(
    n=st.integers(5, 15),
    seed=st.integers(0, 2**32),
    auto=st.booleans(),
    illegal=st.sampled_from([0.0, 0.1, 0.3]),
    deadline=st.sampled_from([0.02, 0.08, 0.3]),
    host=st.sampled_from([0.0, 0.03, 0.1]),
)
def test_random_games_keep_every_invariant(
    n: int, seed: int, auto: bool, illegal: float, deadline: float, host: float
) -> None:
    table = Table(random.Random(seed), illegal, deadline, host)
    d = play(n, seed, auto, table)
    st: Station = d.game.rules
    assert d.game.over
    assert d.game.ended_by_host or d.game.winner in ("loyal", "infiltrators")
    # at the end the teams and secret actions are revealed
    pub = view(d.game, None)
    assert pub["seed"] == d.game.seed
    assert len(pub["station"]["teams"]) == n
    assert sum(t == "infiltrator" for t in pub["station"]["teams"].values()) == sum(st.infiltrator)
    # the accepted actions replay to an equal game
    again = replayed(d, n, seed, auto)
    assert again == d.game
    assert view(again, None) == pub


def test_the_driver_exercises_the_rules() -> None:
    """The biased table really plays traps (injuries and deaths), sabotage,
    vote-outs, last-round checks and both outcomes, so the property test above
    is not vacuous."""
    seen: Counter[str] = Counter()
    for seed in range(12):
        n = 5 + seed % 11
        d = play(n, seed, seed % 2 == 0, Table(random.Random(seed), 0.05, 0.05, 0.0))
        st: Station = d.game.rules
        assert d.now > T0
        seen[str(d.game.winner)] += 1
        for rec in st.history:
            seen["hit " + rec.hit.effect if rec.hit else "no hit"] += 1
            seen["out"] += rec.out != NOBODY
            seen["checked"] += rec.checked != NOBODY
            seen["sabotage"] += any(ch is not None and ch.sabotage for ch in rec.choices)
            seen["pair"] += any(
                ch is not None
                and ch.partner != NOBODY
                and (mate := rec.choices[ch.partner]) is not None
                and mate.partner == s
                for s, ch in enumerate(rec.choices)
            )
            seen[str(rec.success)] += 1
    for what in ("loyal", "infiltrators", "hit injured", "hit killed", "out", "checked"):
        assert seen[what], (what, seen)
    for what in ("sabotage", "pair", "True", "False"):
        assert seen[what], (what, seen)
