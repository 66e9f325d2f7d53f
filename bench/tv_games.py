"""Scripted games for the status page's tests, screenshots and benchmark.

`lobby()` is a Station lobby with joined players; `bot_game()` plays a whole
game with inputs drawn from the legal actions through the real engine and
yields every accepted state, so the tests can render every screen of a real
game (`resistance_game`, `traitors_game` and the `*screens` likewise). Player
ids look like the channels' ids (an SMS player's id carries a phone number) so
the tests can check that no id ever reaches the page.

`python bench/tv_games.py` serves a game on http://127.0.0.1:8090/tv/<token>
that steps forward every few seconds (for looking at the screens by eye).
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from adapters.tv.demo import NAMES
from adapters.tv.source import JoinInfo
from gameflow.core import actions as A
from gameflow.core.engine import apply, legal, new_game
from gameflow.core.legal import ActionSpec, Value
from gameflow.core.result import Accepted
from gameflow.core.rules import rules_for
from gameflow.core.state import Game
from gameflow.games.station.actions import Choose, Vote
from gameflow.games.station.state import MISSION

HOST = "tg:1000"
EPOCH = 1_700_000_000.0


def player_id(i: int) -> str:
    """Every third player is on SMS: their id carries a (made-up) phone number."""
    return f"sms:+47900{i:05d}" if i % 3 == 2 else f"tg:{7000 + i}"


def info(code: str = "KRILL7", name: str = "Fredagskveld") -> JoinInfo:
    """A lobby's join details (`name` "": the page names the game from the catalog)."""
    return JoinInfo(
        name=name,
        code=code,
        telegram_url=f"https://t.me/MuldvarpBot?start={code}",
        sms_number="+47 59 44 00 00",
        sms_text=f"JOIN {code}",
    )


def lobby(
    players: int = 7,
    *,
    seed: str = "demo",
    lang: str = "nb",
    game_id: str = "demo",
    kind: str = "station",
) -> Game:
    """A game of `kind` in its lobby with `players` joined (no automatic advancing)."""
    game = new_game(kind, game_id, HOST, seed, lang=lang, options={"auto_advance": False})
    for i in range(players):
        result = apply(game, A.Join(player_id(i), None, NAMES[i % len(NAMES)]), EPOCH)
        assert isinstance(result, Accepted), result
        game = result.state
    return game


def started(game: Game) -> Game:
    """`game` once the host has started it."""
    result = apply(game, A.Start(HOST), EPOCH)
    assert isinstance(result, Accepted), result
    game_started: Game = result.state
    return game_started


Moves = Callable[[Game, random.Random], Iterator[Game]]


class Scripted:
    """A whole scripted game of `kind`, as a function: `(players, *, seed,
    lang, game_id, rng)` yields every state, the lobby with `players` joined
    and the started game first, then those `moves` play from it. `rng`
    (by default seeded with `seed`) decides everything, so a test can replay
    a game."""

    def __init__(self, kind: str, players: int, game_id: str, moves: Moves) -> None:
        self.kind, self.players, self.game_id, self.moves = kind, players, game_id, moves
        self.__doc__ = moves.__doc__

    def __call__(
        self,
        players: int | None = None,
        *,
        seed: str = "demo",
        lang: str = "nb",
        game_id: str | None = None,
        rng: random.Random | None = None,
    ) -> Iterator[Game]:
        n = self.players if players is None else players
        return self._play(n, seed, lang, game_id or self.game_id, rng or random.Random(seed))

    def _play(
        self, players: int, seed: str, lang: str, game_id: str, rng: random.Random
    ) -> Iterator[Game]:
        game = lobby(players, seed=seed, lang=lang, game_id=game_id, kind=self.kind)
        yield game
        game = started(game)
        yield game
        yield from self.moves(game, rng)


class Play:
    """A game as scripted inputs move it, on a clock that only goes forward:
    `act` and `close` return the new state, None when the engine refuses."""

    def __init__(self, game: Game, now: float = EPOCH) -> None:
        self.game, self.now = game, now

    def act(self, action: A.Action, later: float) -> Game | None:
        """`action`, `later` seconds on."""
        self.now += later
        step = apply(self.game, action, self.now)
        if not isinstance(step, Accepted):
            return None
        self.game = step.state
        return self.game

    def close(self) -> Game | None:
        """The phase's deadline come."""
        self.now = max(self.now, self.game.phase.deadline or self.now)
        return self.act(A.Deadline(None, self.game.phase.seq), 0.0)


def _station_moves(game: Game, rng: random.Random) -> Iterator[Game]:
    """Every state of a whole game, from the lobby to the end.

    Every input is drawn from `engine.legal` (the table mostly agrees on one
    plan, some pair up, infiltrators often use their secret action); phases end
    by their deadlines."""
    play = Play(game)
    while not play.game.over:
        favourite = rng.randint(1, 3)
        order = list(play.game.players)
        rng.shuffle(order)
        for player in order:
            for spec in legal(play.game, player):
                action = _pick(play.game, player, spec, favourite, rng)
                if action is not None and play.act(action, rng.uniform(0.5, 20.0)) is not None:
                    yield play.game
        closed = play.close()
        assert closed is not None, "the deadline was refused"
        yield closed


def _pick(
    game: Game, player: str, spec: ActionSpec, favourite: int, rng: random.Random
) -> A.Action | None:
    def options(name: str) -> tuple[Value, ...]:
        f = spec.field(name)
        return f.options if f is not None else (None,)

    if rng.random() < 0.1:
        return None  # someone misses the deadline now and then
    if spec.kind == Choose.kind:
        plans = options("plan")
        plan = favourite if favourite in plans and rng.random() < 0.7 else rng.choice(plans)
        job = rng.choice(options("job"))
        partners = [p for p in options("partner") if p is not None]
        partner = rng.choice(partners) if partners and rng.random() < 0.4 else None
        secrets = [s for s in options("secret") if s is not None]
        secret = rng.choice(secrets) if secrets and rng.random() < 0.6 else None
        return Choose(
            player,
            spec.phase,
            int(plan or 1),
            str(job),
            None if partner is None else str(partner),
            sabotage=secret == "sabotage",
            trap=secret == "trap",
        )
    if spec.kind == Vote.kind:
        target = rng.choice(options("for"))
        return Vote(player, spec.phase, None if target is None else str(target))
    return None


def _resistance_moves(game: Game, rng: random.Random) -> Iterator[Game]:
    """Every state of a whole Resistance game, played by its simple bots."""
    from gameflow.games.resistance.bots import simple_action

    play = Play(game)
    while not play.game.over:
        progressed = False
        for player in play.game.players:
            for spec in legal(play.game, player):
                action = simple_action(play.game, player, spec, rng)
                if action is None:
                    continue
                if play.act(action, 1.0) is not None:
                    progressed = True
                    yield play.game
                break
        if not progressed and play.close() is not None:
            yield play.game


REASONS = ("", "Too quiet all day.", "Voted oddly yesterday.", "Just a feeling.")


def traitors_step(game: Game, player: str, rng: random.Random) -> A.Action | None:
    """A legal Traitors input of `player`'s, drawn at random, as the game's
    script parser reads it; None if they have none."""
    rules = rules_for("traitors")
    for spec in legal(game, player):
        step: dict[str, object] = {"as": player, "do": spec.kind, "phase": spec.phase}
        for f in spec.fields:
            if f.free:  # the player's own words (a plea)
                step[f.name] = rng.choice(REASONS)
            elif f.name == "names":
                k = min(len(f.options), 3)
                step["names"] = [str(x) for x in rng.sample(list(f.options), k)]
            elif set(f.options) <= {0, 1}:
                step[f.name] = bool(rng.choice(f.options))
            else:
                step[f.name] = rng.choice(f.options)
        if spec.kind == "vote":
            step["reason"] = rng.choice(REASONS)
        try:
            action = rules.parse_step(step)
        except ValueError:
            continue
        if action is not None:
            return action
    return None


def _traitors_moves(game: Game, rng: random.Random) -> Iterator[Game]:
    """Every state of a whole Traitors game, every input drawn from the legal
    actions and turned into an action by the game's own script parser."""
    play = Play(game)
    steps = 0
    while not play.game.over and steps < 5000:
        steps += 1
        order = list(play.game.players)
        rng.shuffle(order)
        for player in order:
            action = traitors_step(play.game, player, rng)
            if action is not None and play.act(action, 1.0) is not None:
                yield play.game
        if play.close() is not None:
            yield play.game


bot_game = Scripted("station", 7, "demo", _station_moves)
resistance_game = Scripted("resistance", 7, "demo-r", _resistance_moves)
traitors_game = Scripted("traitors", 10, "demo-t", _traitors_moves)


def traitors_screens(players: int = 10, *, seed: str = "demo", lang: str = "nb") -> dict[str, Game]:
    """One state per phase kind (the latest of each) and the end."""
    out: dict[str, Game] = {}
    for game in traitors_game(players, seed=seed, lang=lang):
        name = game.phase.name
        if name in ("mission", "shield_room", "roundtable", "night", "revote") and (
            game.phase.round >= 2 or name == "revote"
        ):
            out.setdefault(name, game)
        elif name == "over":
            out["end"] = game
    return out


def resistance_screens(
    players: int = 7, *, seed: str = "demo", lang: str = "nb"
) -> dict[str, Game]:
    """Proposal, team vote (with the vote reveal after), mission and the end."""
    out: dict[str, Game] = {}
    prev: Game | None = None
    for game in resistance_game(players, seed=seed, lang=lang):
        phase = game.phase.name
        rs = game.rules
        if phase == "proposal" and rs is not None and rs.results and "proposal" not in out:
            out["proposal"] = game  # a later proposal: shows the last mission
        elif phase == "team_vote" and "team_vote" not in out:
            out["team_vote"] = game
        elif phase == "mission" and "mission" not in out:
            out["mission"] = game
        elif phase == "over":
            out["end"] = game
        prev = game
    del prev
    return out


def screens(players: int = 7, *, seed: str = "demo", lang: str = "nb") -> dict[str, Game]:
    """One state per screen: lobby, mission (round 1, some ready), discussion,
    vote, a later mission (showing the previous vote) and the end."""
    out: dict[str, Game] = {}
    for game in bot_game(players, seed=seed, lang=lang):
        phase, rnd = game.phase.name, game.phase.round
        key = {"lobby": "lobby", "discussion": "discussion", "vote": "vote", "over": "end"}.get(
            phase,
            "mission" if rnd == 1 else "mission_later" if phase == MISSION and rnd == 2 else "",
        )
        if not key:
            continue
        # the mission screen with some players ready; the others at their first state
        if key == "mission" or key == "mission_later":
            st = game.rules
            if (st.choices and sum(c is not None for c in st.choices) == 3) or key not in out:
                out[key] = game
        elif key not in out or key == "end":
            out[key] = game
    return out


def main() -> None:  # pragma: no cover - a manual demo
    import asyncio
    import time

    import uvicorn

    from adapters.tv import logfilter
    from adapters.tv.app import create_app
    from adapters.tv.source import MemorySource

    source = MemorySource()
    states = list(bot_game(7))
    source.publish(states[0], info())
    token = source.issue(states[0].id)
    print(f"http://127.0.0.1:8090/tv/{token}")
    began = time.time()

    def clock() -> float:
        game = states[min(len(states) - 1, int((time.time() - began) / 3))]
        return game.phase.started + (time.time() - began) % 3 + 30

    app = create_app(source, clock=clock)

    async def run() -> None:
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=8090))
        logfilter.install()

        async def step() -> None:
            for game in states[1:]:
                await asyncio.sleep(3)
                source.publish(game)

        await asyncio.gather(server.serve(), step())

    asyncio.run(run())


if __name__ == "__main__":  # pragma: no cover
    from gameflow.games import register_all

    register_all()  # the composition root: the games this process plays

    main()
