"""`muldvarp demo --tv`: a whole Station game played by simulated players through
the real game service and the embedded store, with its TV page served live on
localhost.

Nothing here is a stand-in: every input goes through `GameService.submit` into
the SQLite store (in a temporary folder), the TV page reads the store through the
same `StoreSource` that `muldvarp serve` uses, and the page updates itself over
Server-Sent Events. The phases use short timers and the bots never miss a
deadline, so each phase ends as soon as everyone has acted (the discussion ends
by the host's "advance"), and a newcomer sees a whole game in a minute or two.
"""

from __future__ import annotations

import asyncio
import random
import tempfile
from collections.abc import Callable

from adapters.tv.demo import NAMES, _pick
from bots.app import build_runtime, create_app
from bots.settings import load_settings
from gameflow.core import actions as A
from gameflow.core.engine import legal
from gameflow.core.rules import rules_for
from gameflow.core.state import Game

HOST = "demo-host"
TIMERS = {"mission_seconds": 90.0, "discussion_seconds": 30.0, "vote_seconds": 60.0}


async def play_live(
    players: int = 7,
    seed: str = "demo",
    lang: str = "en",
    *,
    step: float = 1.0,
    port: int = 8088,
    say: Callable[[str], None] = print,
    on_url: Callable[[str], None] | None = None,
) -> Game:
    """Serve the TV page, play the game with `step` seconds between inputs, and
    return the finished game."""
    import uvicorn

    with tempfile.TemporaryDirectory(prefix="muldvarp-demo-") as data:
        settings = load_settings(None, DATA_DIR=data, MULDVARP_PORT=port, LOG_LEVEL="WARNING")
        rt = build_runtime(settings, channels=False)
        app = create_app(rt)
        config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
        server = uvicorn.Server(config)
        serving = asyncio.create_task(server.serve())
        while not server.started:
            if serving.done():
                serving.result()  # raises why the server could not start
            await asyncio.sleep(0.05)
        try:
            created = await rt.service.create_game(
                "station", HOST, lang=lang, seed=seed, options=TIMERS
            )
            game_id = created.game.id
            url = f"http://127.0.0.1:{port}/tv/{await rt.tv.issue(game_id)}"
            say(f"TV page (open it in a browser): {url}")
            if on_url is not None:
                on_url(url)
            await asyncio.sleep(step * 3)
            for i in range(players):
                await rt.service.submit(game_id, A.Join(f"bot{i}", None, NAMES[i]))
                await asyncio.sleep(step / 2)
            await rt.service.submit(game_id, A.Start(HOST))
            return await _drive(rt.service, game_id, random.Random(seed), step, say)
        finally:
            server.should_exit = True
            await serving
            await rt.store.close()


async def _drive(
    service: object, game_id: str, rng: random.Random, step: float, say: Callable[[str], None]
) -> Game:
    from bots.service import GameService

    assert isinstance(service, GameService)
    game = await service.load(game_id)
    while not game.over:
        favourite = rng.randint(1, 3)
        order = list(game.players)
        rng.shuffle(order)
        for player in order:
            for spec in legal(game, player):
                action = None
                while action is None:  # the demo's bots never miss a deadline
                    action = _pick(game, player, spec, favourite, rng)
                await asyncio.sleep(step)
                outcome = await service.submit(game_id, action)
                game = outcome.game
        if not game.over and not rules_for(game.kind).awaiting(game):
            # Nobody owes an input (the discussion): the host moves on, after a
            # moment to read the result on the TV.
            await asyncio.sleep(step * 5)
            game = (await service.submit(game_id, A.Advance(HOST))).game
    say(f"The game is over: {game.winner} win. Seed {game.seed}.")
    await asyncio.sleep(step * 5)
    return game


def run_live_demo(players: int, seed: str, lang: str, step: float, port: int) -> int:
    if not 5 <= players <= 15:
        print("demo: Station takes 5 to 15 players")
        return 2
    asyncio.run(play_live(players, seed, lang, step=step, port=port))
    return 0
