"""`muldvarp demo`: a whole game in the terminal, no credentials needed."""

from __future__ import annotations

import io

import pytest

from bots.demo import run_demo
from gameflow.core.events import Event, Kind
from gameflow.core.state import Game, seed_digest
from gameflow.i18n import render

pytestmark = pytest.mark.station


def _demo(**kwargs: object) -> tuple[int, str]:
    out = io.StringIO()
    code = run_demo(out=out, **kwargs)  # type: ignore[arg-type]
    return code, out.getvalue()


def test_demo_plays_a_whole_game_in_english() -> None:
    code, text = _demo(players=7, seed="unit", lang="en", delay=0.0)
    assert code == 0
    assert "Round 1 of 6" in text
    assert "[private → " in text
    assert "Winner: the " in text
    assert "The loyal crew wins" in text or "The infiltrators win!" in text
    assert "Seed: unit" in text and seed_digest("unit") in text


@pytest.mark.parametrize("lang", ["nb", "sr"])
def test_demo_runs_in_every_language(lang: str) -> None:
    code, text = _demo(players=5, seed="lang", lang=lang, delay=0.0)
    assert code == 0
    assert seed_digest("lang") in text
    assert text.count("\n") > 40


def test_demo_waits_between_lines_through_its_sleep() -> None:
    waits: list[float] = []
    out = io.StringIO()
    assert run_demo(players=5, seed="slow", lang="en", delay=0.25, out=out, sleep=waits.append) == 0
    assert waits and set(waits) == {0.25}
    assert len(waits) == out.getvalue().count("\n")


def test_demo_refuses_bad_arguments() -> None:
    assert _demo(players=4, seed="x", lang="en", delay=0.0)[0] == 2
    assert _demo(players=7, seed="x", lang="de", delay=0.0)[0] == 2


@pytest.mark.station
def test_live_demo_plays_through_the_service_and_serves_the_tv_page() -> None:
    import asyncio
    import socket

    import httpx

    from bots.live_demo import play_live

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    pages: list[str] = []
    said: list[str] = []

    async def fetch(url: str) -> None:
        async with httpx.AsyncClient() as client:
            pages.append((await client.get(url)).text)

    async def main() -> Game:
        tasks: list[asyncio.Task[None]] = []
        game = await play_live(
            6,
            "live-test",
            "nb",
            step=0.002,
            port=port,
            say=said.append,
            on_url=lambda url: tasks.append(asyncio.get_running_loop().create_task(fetch(url))),
        )
        await asyncio.gather(*tasks)
        return game

    game = asyncio.run(main())
    assert game.over is True and game.winner in ("loyal", "infiltrators")
    assert (pages and "Stasjon" in pages[0]) or "Station" in pages[0]
    assert any("TV" in line for line in said) and any("live-test" in line for line in said)


@pytest.mark.station
def test_both_demos_play_the_same_game_for_a_seed() -> None:
    """`muldvarp demo` and `muldvarp demo --tv` with one seed: the same deal,
    the same bots' choices and votes, the same announcements and the same end
    (issue #35, item 13; `demo --help` says the same seed plays the same game)."""
    import asyncio

    from bots.live_demo import play_live
    from gameflow.games.station.balance import play
    from gameflow.games.station.state import Station

    seed, players = "same-game", 7
    terminal: list[Game] = []
    told: list[str] = []

    def watch(game: Game, events: tuple[Event, ...]) -> None:
        terminal[:] = [game]
        told.extend(render(e.text, "en") for e in events if e.kind is Kind.ANNOUNCE and e.text)

    play(players, seed, lang="en", watch=watch)
    said: list[str] = []
    live = asyncio.run(play_live(players, seed, "en", step=0, port=0, say=said.append))
    ours, theirs = terminal[-1].rules, live.rules
    assert isinstance(ours, Station) and isinstance(theirs, Station)
    assert (theirs.infiltrator, theirs.professions, theirs.missions) == (
        ours.infiltrator,
        ours.professions,
        ours.missions,
    )
    assert live.names == terminal[-1].names and live.winner == terminal[-1].winner
    assert theirs.history == ours.history
    announced = [line.removeprefix("[TV]     ") for line in said if line.startswith("[TV]")]
    started = next(i for i, t in enumerate(announced) if t.startswith("The game has started"))
    assert announced[started:] == told
    assert [line for line in said if line.startswith("[talk]")]  # the table talk, as in demo
