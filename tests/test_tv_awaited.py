"""Who is still awaited, by name, where that is public (issue #18 item 7).

The public view names the players still to answer in the open phases (Station's
vote, Resistance's proposal and team vote, the Traitors' round-table votes and
end vote) and only counts them where an answer may carry a secret (Station's
mission, Resistance's mission, a Traitors mission) or where even the count is
secret (a Traitors night). Over whole bot games of each kind, every state is
checked against the host's list (those the phase waits for), and the TV names
exactly those players.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from adapters.tv.screens import render_screen
from bench import tv_games as demo
from gameflow.core.engine import HOST_VIEW, legal, view
from gameflow.core.state import Game

pytestmark = pytest.mark.statuspage

OPEN = {
    "station": {"vote"},
    "resistance": {"proposal", "team_vote"},
    "traitors": {"roundtable", "revote", "end_vote"},
}


def games(kind: str, players: int, seed: str) -> Iterator[Game]:
    if kind == "station":
        return demo.bot_game(players, seed=seed, lang="en")
    if kind == "resistance":
        return demo.resistance_game(players, seed=seed, lang="en")
    return demo.traitors_game(players, seed=seed, lang="en")


def awaited_on_tv(game: Game) -> set[str]:
    """The names in the TV's 'still to answer' list."""
    html = render_screen(view(game, None), None)
    if 'class="awaiting"' not in html:
        return set()
    part = html.split('class="awaiting"', 1)[1].split("</ul>", 1)[0]
    return {chunk.split("</li>", 1)[0] for chunk in part.split("<li>")[1:]}


@pytest.mark.parametrize(
    ("kind", "players", "seed"),
    [("station", 7, "aw1"), ("station", 12, "aw2"), ("resistance", 7, "aw3"),
     ("resistance", 10, "aw4"), ("traitors", 8, "aw5"), ("traitors", 12, "aw6")],
)  # fmt: skip
def test_the_public_view_names_the_awaited_only_in_open_phases(
    kind: str, players: int, seed: str
) -> None:
    named_phases: set[str] = set()
    counted_only: set[str] = set()
    for game in games(kind, players, seed):
        if not game.running:
            continue
        public = view(game, None)[kind]
        phase = game.phase.name
        waiting = view(game, HOST_VIEW)["waiting"]
        if phase in OPEN[kind]:
            assert public["awaiting"] == waiting, (phase, public["awaiting"], waiting)
            # each of them has a question open (a plot card may be optional)
            assert set(waiting) <= {p for p in game.players if legal(game, p)}
            names = {game.names[game.seat(p)] for p in waiting}
            assert awaited_on_tv(game) == names
            if waiting:
                named_phases.add(phase)
        else:
            assert "awaiting" not in public, phase
            assert awaited_on_tv(game) == set()
            if "ready" in public:
                counted_only.add(phase)
    # the games really went through the open phases with someone awaited, and
    # through phases with a count only
    if kind == "station":
        assert named_phases == {"vote"} and counted_only == {"mission"}
    if kind == "resistance":
        assert "team_vote" in named_phases and counted_only == {"mission"}
    if kind == "traitors":
        assert {"roundtable", "end_vote"} <= named_phases and counted_only <= {"mission"}


def test_a_traitors_night_names_and_counts_nobody() -> None:
    nights = 0
    for game in demo.traitors_game(10, seed="aw-night", lang="en"):
        if game.phase.name in ("night", "answer") and game.running:
            nights += 1
            public = view(game, None)["traitors"]
            assert "awaiting" not in public and "ready" not in public
    assert nights > 0
