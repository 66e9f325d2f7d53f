"""The texts and player names of `muldvarp demo --tv` (bots/live_demo.py).

`DEMO_TEXTS` are the demo's terminal lines: they live here, in the `tv` domain
of the catalogs, because bots/ has no catalog of its own and the demo is the TV
page's showcase. The scripted games the tests and benchmarks show on the page
are bench/tv_games.py. What the demo's game is called and how many play it
come from its definition.
"""

from __future__ import annotations

from gameflow.core import registry
from gameflow.core.text import N_, Msg, Param, msg, nmsg

DEMO_GAME = "station"  # the game bots/live_demo.py plays

NAMES = (
    "Ada", "Bo", "Cato", "Dina", "Emil", "Frida", "Gard", "Hedda",
    "Ivar", "Jana", "Kai", "Liv", "Mads", "Nora", "Olav",
)  # fmt: skip


DEMO_TEXTS: dict[str, str] = {
    "tv_url": N_("TV page (open it in a browser): {url}"),
    # TRANSLATORS: a progress line of the demo; {phase} is the TV's phase name.
    "phase": N_("Round {round} of {rounds}: {phase}"),
    "hold": N_("The TV page shows the end screen until you press Ctrl-C."),
    "stopped": N_("Demo stopped."),
    "port_busy": N_(
        "demo: port {port} is already in use (another demo or a server?); "
        "choose another one with --port."
    ),
    "port_error": N_("demo: cannot listen on port {port}: {error}"),
    # TRANSLATORS: {game} is the game's name ("Station").
    "players": N_("demo: {game} takes {low} to {high} players."),
}


def demo_text(key: str, **params: Param) -> Msg:
    if key == "players":  # the demo game's name and table sizes
        game = registry.get(DEMO_GAME)
        sizes = game.players
        params = {"game": Msg(game.words.name), "low": sizes[0], "high": sizes[-1], **params}
    return msg(DEMO_TEXTS[key], **params)


def hold_text(seconds: int) -> Msg:
    return nmsg(
        "The TV page shows the end screen for {n} more second.",
        "The TV page shows the end screen for {n} more seconds.",
        seconds,
    )
