"""The status page never shows a secret, a player id or another game's token.

Over whole Station games (every input drawn from the legal actions, seeds and
choices from hypothesis), every state is rendered twice: as it is, and with its
secret state scrambled (teams, cards, trap card, sabotage and trap flags, hidden
guard counts). Before the end the two screens must be identical: whatever the
page shows cannot depend on a secret. The rendered HTML and the SSE frames must
never contain a player id (an SMS id carries a phone number) or a token.
"""

from __future__ import annotations

import asyncio
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.tv.app import StatusPage
from adapters.tv.screens import render_page, render_screen
from adapters.tv.source import MemorySource
from bench import tv_games as demo
from gameflow.core.engine import view
from gameflow.core.state import Game
from gameflow.games.station.state import JOBS, MISSION, NOBODY, Choice, Station, Trap

pytestmark = pytest.mark.statuspage


def scramble(game: Game, rng: random.Random) -> Game:
    """`game` with every secret value redrawn; the public facts unchanged."""
    s: Station = game.rules
    if s is None:
        return game
    n = len(game.players)
    teams = list(s.infiltrator)
    rng.shuffle(teams)

    def flags(choices: tuple[Choice | None, ...]) -> tuple[Choice | None, ...]:
        out: list[Choice | None] = []
        for c in choices:
            if c is None:
                out.append(None)
            else:
                secret = rng.choice((None, "sabotage", "trap"))
                out.append(c._replace(sabotage=secret == "sabotage", trap=secret == "trap"))
        return tuple(out)

    def trap() -> Trap | None:
        if rng.random() < 0.3:
            return None
        return Trap(rng.randrange(n), rng.randrange(n), rng.choice(JOBS[:2]))

    plans = s.plans
    if game.phase.name == MISSION:  # guard counts are public only after the mission
        plans = tuple(p._replace(guards=rng.randint(0, 9)) for p in plans)
    history = tuple(rec._replace(choices=flags(rec.choices), trap=trap()) for rec in s.history)
    return game._replace(
        rules=s._replace(
            infiltrator=tuple(teams),
            cards=tuple(rng.choice((NOBODY, 0, 1, 2)) for _ in s.cards),
            trap=trap(),
            choices=flags(s.choices),
            plans=plans,
            history=history,
        )
    )


def forbidden(game: Game) -> list[str]:
    """Strings that must never appear on the page: ids, phone numbers, the host."""
    out = [game.host]
    for pid in game.players:
        out.append(pid)
        if "+" in pid:
            out.append(pid.split("+", 1)[1])  # the bare phone number
    return out


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.integers(5, 15),
    seed=st.text("abcdefgh0123456789", min_size=1, max_size=8),
    choices=st.integers(0, 2**32 - 1),
    lang=st.sampled_from(("nb", "sr", "en")),
)
def test_no_screen_depends_on_a_secret(players: int, seed: str, choices: int, lang: str) -> None:
    rng = random.Random(choices)
    info = demo.info()
    seen_phases = set()
    last: Game | None = None
    for game in demo.bot_game(players, seed=seed, lang=lang, rng=random.Random(choices)):
        last = game
        seen_phases.add(game.phase.name)
        now = (game.phase.started or demo.EPOCH) + 30
        public = view(game, None)
        html = render_page(public, info, now)
        for text in forbidden(game):
            assert text not in html, text
        if game.over:
            continue
        other = scramble(game, rng)
        assert view(other, None) == public, "the core's public view shows a secret"
        assert render_screen(view(other, None), info, now) == render_screen(public, info, now)
    assert last is not None and last.over
    assert {"lobby", "mission", "discussion", "vote", "over"} <= seen_phases


def test_the_scramble_really_changes_the_secrets() -> None:
    """The check above is only as good as the scramble: the scrambled secret state
    must differ (the player's own view shows it) while the public view does not."""
    game = next(
        g for g in demo.bot_game(7, seed="x") if g.phase.name == MISSION and g.phase.round == 2
    )
    rng = random.Random(1)
    differs = 0
    for _ in range(20):
        other = scramble(game, rng)
        assert view(other, None) == view(game, None)
        if any(view(other, p) != view(game, p) for p in game.players):
            differs += 1
    assert differs >= 19


def test_the_event_stream_carries_no_id_or_token() -> None:
    """A whole game's SSE frames, with a second game's token live in the same source."""

    async def run() -> str:
        source = MemorySource()
        page = StatusPage(source, clock=lambda: demo.EPOCH)
        states = list(demo.bot_game(9, seed="sse", game_id="a"))
        source.publish(states[0], demo.info())
        source.publish(demo.lobby(5, game_id="b"), demo.info("OTHER1"))
        tokens = [source.issue("a"), source.issue("b")]
        frames = [(await page.frame(g)).decode() for g in states]
        for frame in frames:
            payload = json.loads(frame.split("data: ", 1)[1])
            assert set(payload) == {"version", "lang", "now", "html"}
        text = "\n".join(frames)
        for secret in (*tokens, *forbidden(states[-1])):
            assert secret not in text
        assert "OTHER1" not in text
        return text

    text = asyncio.run(run())
    assert "id: " in text


def scramble_resistance(game: Game, rng: random.Random) -> Game:
    """Roles and the mission cards in play redrawn."""
    s = game.rules
    if s is None:
        return game
    spies = list(s.spy)
    rng.shuffle(spies)
    cards = tuple(None if c is None else rng.choice(("success", "fail")) for c in s.cards)
    return game._replace(rules=s._replace(spy=tuple(spies), cards=cards))


def scramble_traitors(game: Game, rng: random.Random) -> Game:
    """Unrevealed roles (and so how many traitors there are, and were at the
    start), the shield and dagger holders and the night votes redrawn."""
    s = game.rules
    if s is None:
        return game
    revealed = {seat for rec in s.history for seat, _ in rec.revealed} | {
        seat for seat, _ in s.revealed_today
    }
    hidden = [i for i in range(len(s.role)) if i not in revealed]
    roles = list(s.role)
    for i in hidden:
        if s.status[i] != "murdered":  # the murdered were always loyal
            roles[i] = rng.choice(("loyal", "traitor"))
    n = len(s.role)
    return game._replace(
        rules=s._replace(
            role=tuple(roles),
            start_traitors=rng.randint(1, n // 2),
            shield=rng.randrange(-1, n),
            dagger=rng.randrange(-1, n),
            night_votes=tuple(None for _ in s.night_votes),
        )
    )


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kind=st.sampled_from(("resistance", "traitors")),
    players=st.integers(5, 12),
    seed=st.text("abcdefgh0123456789", min_size=1, max_size=8),
    lang=st.sampled_from(("nb", "sr", "en")),
)
def test_other_games_screens_never_depend_on_a_secret(
    kind: str, players: int, seed: str, lang: str
) -> None:
    rng = random.Random(seed)
    if kind == "resistance":
        states = demo.resistance_game(
            min(players, 10), seed=seed, lang=lang, rng=random.Random(seed)
        )
        mix = scramble_resistance
    else:
        states = demo.traitors_game(max(players, 6), seed=seed, lang=lang, rng=random.Random(seed))
        mix = scramble_traitors
    info = demo.info()
    last = None
    for game in states:
        last = game
        html = render_page(view(game, None), info, demo.EPOCH)
        for text in forbidden(game):
            assert text not in html, text
        if game.over or game.rules is None:
            continue
        screen = render_screen(view(game, None), info)
        mixed = mix(game, rng)
        assert render_screen(view(mixed, None), info) == screen
        if kind == "traitors":  # nor the core's public view (the count of traitors)
            assert view(mixed, None) == view(game, None)
    assert last is not None and last.over


def test_traitors_nights_look_the_same_whatever_happens() -> None:
    """Every state of a night shows the same screen: the stream, which skips
    unchanged screens, therefore sends nothing while the traitors act."""
    screens: dict[tuple[int, int], set[str]] = {}
    for game in demo.traitors_game(10, seed="nights", lang="en"):
        if game.phase.name == "night":
            key = (game.phase.round, game.phase.seq)
            screens.setdefault(key, set()).add(render_screen(view(game, None), None))
    assert screens
    assert all(len(s) == 1 for s in screens.values()), {k: len(s) for k, s in screens.items()}
