"""Werewolf's TV screen (issue #34): every phase of a played game renders in
nb, sr and en from the public view only; a role shows on the screen exactly
when the rules show it (a dead player's with `reveal_dead`, a lynched one's
always), the night never names a living player's role, and the end names the
winners and the werewolves."""

from __future__ import annotations

import random
from typing import Any

import pytest

from adapters.tv.screens import render_page, render_screen
from bench import tv_games as demo
from gameflow.core import actions as A
from gameflow.core.engine import apply, legal, new_game, view
from gameflow.core.result import Accepted
from gameflow.core.state import Game
from gameflow.games.werewolf import WEREWOLF
from gameflow.games.werewolf.bots import start_game

pytestmark = [pytest.mark.werewolf, pytest.mark.statuspage]

ROLE_WORDS = {
    "en": {"wolf": "werewolf", "seer": "seer", "doctor": "doctor"},
    "nb": {"wolf": "varulv", "seer": "seer", "doctor": "lege"},
    "sr": {"wolf": "vukodlak", "seer": "vidovnjak", "doctor": "doktor"},
}


def played(n: int, seed: str, lang: str, **options: Any) -> list[Game]:
    """Every state of a random legal game, from the start to the end."""
    game = start_game(n, seed, {"auto_advance": False, **options})._replace(lang=lang)
    rng = random.Random(seed)
    states, now = [game], demo.EPOCH
    while not game.over:
        now += 1.0
        specs = [(p, s) for p in game.players for s in legal(game, p)]
        if specs and rng.random() < 0.8:
            p, spec = rng.choice(specs)
            step = {"as": p, "do": spec.kind, "target": rng.choice(spec.options("target"))}
            action = WEREWOLF.parse_step(step)
            assert action is not None
        else:
            now = max(now, game.phase.deadline or now)
            action = A.Deadline(None, game.phase.seq)
        result = apply(game, action, now)
        assert isinstance(result, Accepted)
        game = result.state
        states.append(game)
    return states


@pytest.mark.parametrize(
    ("lang", "n", "reveal"), [("en", 6, True), ("nb", 18, True), ("sr", 9, False)]
)
def test_every_screen_of_a_game_renders_what_is_public(lang: str, n: int, reveal: bool) -> None:
    states = played(n, f"tv-{lang}-{n}", lang, reveal_dead=reveal)
    phases = set()
    for game in states:
        html = render_screen(view(game, None), demo.info())
        phases.add(game.phase.name)
        st = game.rules
        assert 'class="werewolf' in html
        assert "{" not in html.replace("{{", "")  # no unfilled placeholder
        for s, name in enumerate(game.names):
            role = st.roles[s]
            if role == "villager":
                continue
            word = ROLE_WORDS[lang][role]
            card = html[html.find(f"<b>{name}</b>") :].split("</li>")[0]
            lynched = any(m.lynched == s for m in st.history)
            # a dead player's card names the role the rules show (all at the end)
            shown = st.dead[s] and (game.over or reveal or lynched)
            assert (word in card.lower()) == shown, (name, role, card)
    assert {"night", "day", "vote", "over"} <= phases
    end = render_page(view(states[-1], None), demo.info(), demo.EPOCH)
    wolves = [
        game_name
        for s, game_name in enumerate(states[-1].names)
        if states[-1].rules.roles[s] == "wolf"
    ]
    assert all(f"▲ {w}" in end for w in wolves)


# The layout test (tests/test_tv_layout.py) on Werewolf's screens: its
# measurement, its browser and server, its long names.
from tests.test_tv_layout import LONG, browser, layout_faults, served  # noqa: E402

# 18 long names: the layout test's 15 and three more
LONG18 = (*LONG, "Svetlana Ćosić", "Åsmund Bråthen", "Radmila Đorđić")

__all__ = ["browser", "served"]  # the fixtures, used by name


def screens(n: int, lang: str) -> dict[str, Game]:
    """The lobby (everyone joined), one state of every phase, and the end."""
    states = played(n, f"layout-werewolf-{n}", lang)
    lobby = new_game("werewolf", "lobby", demo.HOST, "lobby", lang=lang)
    for i in range(n):
        joined = apply(lobby, A.Join(f"p{i:02}", None, f"P{i}"), demo.EPOCH)
        assert isinstance(joined, Accepted)
        lobby = joined.state
    out = {"lobby": lobby}
    for game in states:
        out.setdefault("end" if game.over else game.phase.name, game)
    out["end"] = states[-1]
    return out


@pytest.mark.parametrize("lang", ["nb", "sr", "en"])
@pytest.mark.parametrize("players", [6, 18])
def test_no_werewolf_screen_is_clipped_or_cut(
    browser: Any, served: Any, players: int, lang: str
) -> None:
    shots = screens(players, lang)
    assert {"lobby", "night", "day", "vote", "end"} <= set(shots), sorted(shots)
    faults = layout_faults(browser, served, shots, f"werewolf/{players}/{lang}", LONG18)
    assert not faults, "\n".join(" | ".join(f) for f in faults)
