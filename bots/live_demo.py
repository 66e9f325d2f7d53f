"""`muldvarp demo --tv`: a whole Station game played by simulated players through
the real game service and the embedded store, with its TV page served live on
localhost.

Nothing here is a stand-in: every input goes through `GameService.submit` into
the SQLite store (in a temporary folder), the TV page reads the store through the
same `StoreSource` that `muldvarp serve` uses, and the page updates itself over
Server-Sent Events. The players are the scripted bots of `muldvarp demo`
(gameflow/games/station/table.py), with the same names and the same inputs, so
a seed plays the same game in both demos. The phases use short timers and each
ends as soon as everyone has acted (the discussion by the host's "advance"), so
a newcomer sees a whole game in a few minutes.

The terminal says what happens while it plays, in the game's language: the TV
link first, then a line per phase and what the TV announces, and at the end the
reveal (teams, secret actions, the seed). The end screen then stays up until
Ctrl-C (or `hold` seconds), because the end is what a newcomer wants to look at.
The port is bound before anything else, so a busy port is one line, not a
traceback from inside the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import math
import signal
import socket
import sys
import tempfile
from collections.abc import Callable

from adapters.tv.demo import NAMES, demo_text, hold_text
from adapters.tv.screens import phase_text
from bots.app import build_runtime, create_app
from bots.demo import TALK, reveal
from bots.settings import load_settings
from bots.streams import EndStreams, end_streams_on_exit
from gameflow.core import actions as A
from gameflow.core.events import Event, Kind
from gameflow.core.state import Game
from gameflow.core.text import Msg
from gameflow.games.station import bots
from gameflow.games.station.belief import Talk
from gameflow.games.station.table import BotTable
from gameflow.i18n import render
from service.games import GameService

HOST = "demo-host"
TIMERS = {"mission_seconds": 90.0, "discussion_seconds": 30.0, "vote_seconds": 60.0}
PUBLIC = "[TV]     "


def _print(line: str) -> None:
    print(line, flush=True)  # a pipe (or a test) sees each line as it happens


class Narrator:
    """The terminal's lines, rendered in the game's language."""

    def __init__(self, lang: str, say: Callable[[str], None]) -> None:
        self.lang = lang
        self.say = say
        self.shown: tuple[str, int] | None = None

    def line(self, message: Msg) -> None:
        self.say(render(message, self.lang))

    def talk(self, game: Game, t: Talk) -> None:
        """The bots' table talk of a round, as `muldvarp demo` prints it."""
        for message in bots.say(game, t):
            self.say(TALK + render(message, self.lang))

    def events(self, game: Game, events: tuple[Event, ...]) -> None:
        """What the TV announces, then a line when the phase has changed."""
        for e in events:
            if e.kind is Kind.ANNOUNCE and e.text is not None:
                self.say(PUBLIC + render(e.text, self.lang))
        phase = (game.phase.name, game.phase.round)
        if phase != self.shown and game.phase.round >= 1 and not game.over:
            self.shown = phase
            name = phase_text(game.kind, game.phase.name)
            rounds = int(game.rules.config.rounds)
            self.line(demo_text("phase", round=game.phase.round, rounds=rounds, phase=name))


def listen(port: int) -> socket.socket:
    """The TV page's socket on loopback, bound now so that a busy port is known
    before anything starts (port 0: any free port)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does
        sock.bind(("127.0.0.1", port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


async def play_live(
    players: int = 7,
    seed: str = "demo",
    lang: str = "en",
    *,
    step: float = 1.0,
    port: int = 8088,
    hold: float | None = 0.0,
    sock: socket.socket | None = None,
    say: Callable[[str], None] = _print,
    on_url: Callable[[str], None] | None = None,
    on_end: Callable[[Game], None] | None = None,
) -> Game:
    """Serve the TV page, play the game with `step` seconds between inputs, keep
    the end screen up for `hold` seconds (None: until the process is stopped),
    and return the finished game."""
    import uvicorn

    sock = sock if sock is not None else listen(port)
    port = int(sock.getsockname()[1])
    narrator = Narrator(lang, say)
    with tempfile.TemporaryDirectory(prefix="muldvarp-demo-") as data:
        # REDIS_URL=None: the demo keeps to its own folder even where the shell
        # points `serve` at a Redis.
        settings = load_settings(
            None, DATA_DIR=data, MULDVARP_PORT=port, LOG_LEVEL="WARNING", REDIS_URL=None
        )
        rt = build_runtime(settings, channels=False)
        app = EndStreams(create_app(rt))
        config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=2)
        server = uvicorn.Server(config)
        serving = asyncio.create_task(server.serve(sockets=[sock]))
        ending = asyncio.create_task(end_streams_on_exit(server, app))
        try:
            while not server.started:
                if serving.done():
                    serving.result()  # raises why the server could not start
                await asyncio.sleep(0.02)
            created = await rt.service.create_game(
                "station", HOST, lang=lang, seed=seed, options=TIMERS
            )
            game_id = created.game.id
            url = f"http://127.0.0.1:{port}/tv/{await rt.tv.issue(game_id)}"
            narrator.line(demo_text("tv_url", url=url))
            if on_url is not None:
                on_url(url)
            await asyncio.sleep(step * 3)
            for i in range(players):  # the players of `muldvarp demo` (gameflow.simulate)
                joined = await rt.service.submit(game_id, A.Join(f"p{i + 1}", None, NAMES[i]))
                narrator.events(joined.game, joined.events)
                await asyncio.sleep(step / 2)
            started = await rt.service.submit(game_id, A.Start(HOST))
            narrator.events(started.game, started.events)
            game = await _drive(rt.service, game_id, step, narrator)
            for text in reveal(game, lang):
                say(text)
            if on_end is not None:
                on_end(game)
            await _hold(serving, hold, narrator)
            return game
        finally:
            server.should_exit = True
            app.close()
            await serving
            ending.cancel()
            await rt.store.close()
            sock.close()


async def _hold(serving: asyncio.Task[None], hold: float | None, narrator: Narrator) -> None:
    """Keep the end screen up: `hold` seconds, or (None) until the server stops
    (Ctrl-C or SIGTERM end it, and `run_live_demo` says so)."""
    if hold is not None and hold <= 0:
        return
    if hold is None:
        narrator.line(demo_text("hold"))
    else:
        narrator.line(hold_text(math.ceil(hold)))
    await asyncio.wait([serving], timeout=hold)


async def _drive(service: GameService, game_id: str, step: float, narrator: Narrator) -> Game:
    """Play the game with the scripted bots of `muldvarp demo` (BotTable): the
    same inputs, phase by phase, so a seed plays the same game in both demos.
    A phase ends as soon as everyone has acted; one nobody acts in (the
    discussion) ends by the host's advance, after a moment to read the TV."""
    game = await service.load(game_id)
    table = BotTable(game, listen=narrator.talk)
    while not game.over:
        seq = game.phase.seq
        for action in table.moves(game):
            await asyncio.sleep(step)
            outcome = await service.submit(game_id, action)
            game = outcome.game
            narrator.events(game, outcome.events)
        if game.over or game.phase.seq != seq:
            continue
        await asyncio.sleep(step * 5)
        outcome = await service.submit(game_id, A.Advance(HOST, seq))
        game = outcome.game
        narrator.events(game, outcome.events)
        while outcome.rejected is not None and game.phase.seq == seq and not game.over:
            await asyncio.sleep(0.5)  # someone still owes an input: its deadline ends it
            game = await service.load(game_id)
    return game


def run_live_demo(
    players: int, seed: str, lang: str, step: float, port: int, hold: float | None = None
) -> int:
    """0 when the game was played (also when Ctrl-C ends the end screen), 1 when
    the port cannot be had, 2 on bad arguments, 130 when stopped mid-game."""

    def fail(message: Msg) -> None:
        print(render(message, lang), file=sys.stderr, flush=True)

    if not 5 <= players <= 15:
        fail(demo_text("players"))
        return 2
    try:
        sock = listen(port)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            fail(demo_text("port_busy", port=port))
        else:
            fail(demo_text("port_error", port=port, error=exc.strerror or str(exc)))
        return 1
    finished: list[Game] = []

    async def main() -> None:
        # SIGTERM ends the demo like Ctrl-C: the server stops, the folder goes.
        task = asyncio.current_task()
        assert task is not None
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
        await play_live(
            players, seed, lang, step=step, hold=hold, sock=sock, on_end=finished.append
        )

    try:
        asyncio.run(main())
    except (KeyboardInterrupt, asyncio.CancelledError):
        with contextlib.suppress(BrokenPipeError):
            print(render(demo_text("stopped"), lang), flush=True)
        return 0 if finished else 130
    return 0
