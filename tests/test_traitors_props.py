"""Random full Traitors games checked against invariants.

Hypothesis draws the table (6–12 players), the seed, the options (missions,
dagger, recruitment, death list, final day) and how the table behaves (how often
deadlines strike, how often inputs are nonsense). A `random.Random` seeded by
hypothesis then plays the game, mostly by picking from `engine.legal()`, on the
replay clock (one second per step; `advance` jumps to the deadline).

Checked at every step:
- legal() never offers what apply() refuses (for inputs built from it);
- a rejection changes nothing, an acceptance bumps the version by one;
- silver never negative; votes never double-counted (each voter read once per
  vote, only the dagger doubles, at most twice a day);
- no public or host view holds a secret (roles of unrevealed players, shield,
  dagger, night votes, tempt/force, the death-list draft, the cursed chest);
  a player's view holds only their own secrets (and, for a traitor, the
  traitors'); secret private messages never go to the public;
- the game always ends; the pot split adds up;
- the same steps as a game script replay to an equal game.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hst
from props_helpers import keys

from gameflow.core import actions as A
from gameflow.core.engine import apply, legal, view
from gameflow.core.events import Kind
from gameflow.core.legal import ActionSpec
from gameflow.core.result import Accepted
from gameflow.core.state import HOST_VIEW, Game
from gameflow.games.traitors import TRAITORS
from gameflow.games.traitors.state import BANISHED, TRAITOR, Traitors
from gameflow.replay import run, setup_game

pytestmark = pytest.mark.traitors

NAMES = ["ana", "bo", "cy", "dag", "eli", "fia", "gus", "hal", "ida", "jon", "kai", "liv"]
PUBLIC_SECRET_KEYS = {
    "secrets",
    "night_votes",
    "force_votes",
    "shield",
    "dagger",
    "cursed_chest",
    "death_list_draft",
    "night_choice",
    "question",
    "pending",
    "cursed",
    "treasure",
    "roles",
    "traitors",
}
SECRET_MSGIDS = (
    "You are a TRAITOR",
    "You are now a TRAITOR",
    "You are LOYAL",
    "You won the",
    "Traitors only",
    "A letter",
    "The last traitor forces",
    "has joined the traitors",
    "Your choice for tonight",
)


def step_from(spec: ActionSpec, by: str, rng: random.Random, game: Game) -> dict[str, Any]:
    """A script step for `spec` with values drawn from its fields."""
    step: dict[str, Any] = {"as": by, "do": spec.kind}
    fields = {f.name: f.options for f in spec.fields}
    st: Traitors = game.rules
    if spec.kind == "score":
        step["silver"] = rng.randint(0, 40)
        step["access"] = [p for p in fields["access"] if rng.random() < 0.4]
    elif spec.kind == "death_list":
        names = list(fields["names"])
        step["names"] = rng.sample(names, min(st.config.death_list_size, len(names)))
    elif spec.kind == "plea":
        step["text"] = rng.choice(["I am loyal", "trust me", "not me!"])
    else:
        for name, options in fields.items():
            value = rng.choice(options)
            key = {"target": "target"}.get(name, name)
            if name in ("dagger", "drop", "accept", "end", "allow", "on"):
                step[key] = bool(value)
            else:
                step[key] = value
        if spec.kind == "vote" and rng.random() < 0.3:
            step["reason"] = "suspicious"
    return step


def check_votes(st: Traitors) -> None:
    """Every vote is read once; only the dagger doubles, at most twice a day."""
    for day in (*(rec.votes for rec in st.history), st.readings):
        doubled = 0
        for readings in day:
            voters = [r.voter for r in readings]
            assert len(voters) == len(set(voters))
            assert all(r.weight in (1, 2) and r.voter != r.target for r in readings)
            doubled += sum(r.weight == 2 for r in readings)
        assert doubled <= 2


def check_views(game: Game) -> None:
    st: Traitors = game.rules
    check_votes(st)
    revealed = {s for rec in st.history for s, _ in rec.revealed} | {
        s for s, _ in st.revealed_today
    }
    for v in (view(game, None), view(game, HOST_VIEW)):
        found = set(keys(v["traitors"])) | set(
            keys({k: x for k, x in v.items() if k != "traitors"})
        )
        assert not (found & PUBLIC_SECRET_KEYS), found & PUBLIC_SECRET_KEYS
        for seat, entry in enumerate(v["traitors"]["table"]):
            if "role" in entry and not game.over:
                assert seat in revealed and st.status[seat] == BANISHED
    public = view(game, None)
    for s, p in enumerate(game.players):
        me = view(game, p)
        assert {k: x for k, x in me.items() if k not in ("you",)} == public
        you = me["you"]
        assert you["role"] == st.role[s]
        if st.role[s] != TRAITOR:
            secret = {"traitors", "night_votes", "night_choice", "death_list_draft", "cursed_chest"}
            assert not (secret & set(you))
            assert you["chat_with"] == []
        if "shield" in you:
            assert st.shield == s
        if "dagger" in you:
            assert st.dagger == s


def play(seed: int, n: int, options: dict[str, Any], p_advance: float, p_junk: float) -> None:
    players = NAMES[:n]
    script: dict[str, Any] = {
        "game": "traitors",
        "players": players,
        "seed": seed,
        "options": options,
        "steps": [],
    }
    game, now = setup_game(script)
    rng = random.Random(seed)
    steps: list[dict[str, Any]] = []
    for _ in range(4000):
        if game.over:
            break
        now += 1.0
        if rng.random() < p_advance:
            step: dict[str, Any] = {"do": "advance"}
            action: A.Action = A.Deadline(None, game.phase.seq)
            now = max(now, game.phase.deadline or now)
            offered = True
        else:
            by = rng.choice([*players, "host"])
            specs = [
                s
                for s in legal(game, by)
                if s.kind not in ("pause", "resume", "end", "advance_early")
            ]
            if specs and rng.random() >= p_junk:
                step = step_from(rng.choice(specs), by, rng, game)
                offered = step["do"] not in ("death_list", "score", "plea")
            else:
                kind = rng.choice(["vote", "murder", "tempt", "force", "answer", "end_vote"])
                step = {
                    "as": by,
                    "do": kind,
                    "for": rng.choice(players),
                    "target": rng.choice(players),
                }
                offered = False
            parsed = TRAITORS.parse_step(step)
            assert parsed is not None
            action = parsed
        steps.append(step)
        result = apply(game, action, now)
        if isinstance(result, Accepted):
            assert result.state.version == game.version + 1
            for e in result.events:
                if e.kind == Kind.ANNOUNCE and e.text is not None:
                    assert not e.text.msgid.startswith(SECRET_MSGIDS), e.text.msgid
                if e.secret:
                    assert e.to in players
            game = result.state
        else:
            assert not offered, (step, result)
        st: Traitors = game.rules
        assert st.pot >= 0
        check_views(game)
    assert game.over, "the game did not end"
    rec = view(game, None)["traitors"]
    winners, share, pot = rec["winners"], rec["share"], rec["pot"]
    assert winners
    assert share * len(winners) <= pot < (share + 1) * len(winners)
    replayed, _ = run({**script, "steps": steps})
    assert replayed == game


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=hst.integers(0, 10_000),
    n=hst.integers(6, 12),
    missions=hst.sampled_from(["host", "builtin", "relay", "chests"]),
    dagger=hst.booleans(),
    recruit=hst.booleans(),
    death_list=hst.booleans(),
    final_day=hst.integers(1, 5),
    p_advance=hst.floats(0.1, 0.5),
    p_junk=hst.floats(0.0, 0.3),
)
def test_random_games_keep_the_invariants(
    seed: int,
    n: int,
    missions: str,
    dagger: bool,
    recruit: bool,
    death_list: bool,
    final_day: int,
    p_advance: float,
    p_junk: float,
) -> None:
    options = {
        "pacing": "fast",
        "missions": missions,
        "dagger": dagger,
        "recruit": recruit,
        "death_list": death_list,
        "final_day": final_day,
    }
    play(seed, n, options, p_advance, p_junk)


def test_a_long_campaign_with_silent_players_ends_on_its_final_day() -> None:
    """Nobody ever acts: lots, draws and missing inputs still end a 12-day game."""
    game, now = setup_game({"game": "traitors", "players": NAMES, "seed": 11, "options": {}})
    for _ in range(500):
        if game.over:
            break
        now = max(now + 1, game.phase.deadline or now)
        result = apply(game, A.Deadline(None, game.phase.seq), now)
        assert isinstance(result, Accepted)
        game = result.state
    assert game.over
    assert json.dumps(view(game, None))  # serialisable
