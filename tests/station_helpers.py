"""A small driver for Station games in tests.

`start()` builds a started game through the real engine (new_game, Join, Start)
with a fixed deal where a test needs one (roles, plans, traps: the game-script
`setup`). The `Driver` then applies actions at a fake clock and asserts: `ok()`
demands an accepted action and checks that the version rose by exactly one;
`refused()` demands a rejection with a given code and checks that nothing
changed (the very same state object comes back out).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypedDict, Unpack

from game_driver import T0, GameDriver

from gameflow.core import actions as A
from gameflow.core.engine import apply, new_game, view
from gameflow.core.events import Event
from gameflow.core.result import Accepted, Rejected
from gameflow.core.state import Game
from gameflow.games.station.actions import Choose, Vote
from gameflow.games.station.state import NOBODY, Choice, Station

HOST = "host"
NAMES = ("ana", "bo", "cy", "dag", "eli", "fred", "gro", "hal", "ida", "jon")


def players(n: int) -> list[str]:
    """`n` player ids; the first ten are short names, the rest p11, p12, ..."""
    return [NAMES[i] if i < len(NAMES) else f"p{i + 1}" for i in range(n)]


def plan(reward: int, outside: int, radio: int, guards: int) -> dict[str, int]:
    return {"reward": reward, "outside": outside, "radio": radio, "guards": guards}


EASY = [plan(1, 1, 1, 1), plan(2, 1, 1, 1), plan(3, 1, 1, 1)]


class Deal(TypedDict, total=False):
    """What `new()` and `start()` may fix beyond the number of players."""

    seed: str | int
    infiltrators: Sequence[str] | None
    rounds: Mapping[int, Mapping[str, Any]] | None
    options: Mapping[str, Any] | None


def new(
    n: int = 5,
    *,
    seed: str | int = 1,
    infiltrators: Sequence[str] | None = None,
    rounds: Mapping[int, Mapping[str, Any]] | None = None,
    options: Mapping[str, Any] | None = None,
) -> Game:
    """A Station game in its lobby with `n` players joined."""
    setup: dict[str, Any] = {}
    if infiltrators is not None:
        setup["roles"] = {p: "infiltrator" for p in infiltrators}
    if rounds is not None:
        setup["rounds"] = {str(r): dict(spec) for r, spec in rounds.items()}
    opts = {"auto_advance": False, **(options or {})}
    game = new_game("station", "g1", HOST, seed, lang="en", options=opts, setup=setup)
    for p in players(n):
        result = apply(game, A.Join(p, None, p.capitalize()), T0)
        assert isinstance(result, Accepted), result
        game = result.state
    return game


class Driver(GameDriver):
    """Applies actions to one game at a fake clock and checks each result."""

    @property
    def st(self) -> Station:
        station: Station = self.game.rules
        return station

    @property
    def players(self) -> tuple[str, ...]:
        return self.game.players

    def seat(self, player: str) -> int:
        return self.game.seat(player)

    def refused(self, action: A.Action, code: str) -> Rejected:
        before = self.game
        seen = view(before, None)
        result = apply(before, action, self.now)
        assert isinstance(result, Rejected), f"{action!r} was accepted"
        assert result.code == code, (result.code, result.message)
        # nothing changed: the same state object, the same version, the same view
        assert self.game is before
        assert view(self.game, None) == seen
        return result

    # -- Station inputs -------------------------------------------------------

    def choose(self, *args: Any, **kw: Any) -> tuple[Event, ...]:
        """`choice(...)` (the same arguments), demanded accepted."""
        return self.ok(self.choice(*args, **kw))

    def choice(
        self,
        who: str,
        plan: int,
        job: str,
        partner: str | None = None,
        secret: str | None = None,
    ) -> Choose:
        return Choose(
            who, None, plan, job, partner, sabotage=secret == "sabotage", trap=secret == "trap"
        )

    def vote(self, who: str, target: str | None) -> tuple[Event, ...]:
        return self.ok(Vote(who, None, target))

    def host(self, cls: type[A.Action]) -> tuple[Event, ...]:
        return self.ok(cls(HOST, None))

    def to_vote(self) -> None:
        """From the mission phase (or discussion) to the vote phase."""
        while self.game.phase.name != "vote":
            self.deadline()

    def votes(self, ballots: Mapping[str, str | None]) -> None:
        for who, target in ballots.items():
            self.vote(who, target)

    def next_round(self) -> None:
        """Finish the current round by deadlines (missing inputs count as nothing)."""
        r = self.game.phase.round
        while not self.game.over and self.game.phase.round == r:
            self.deadline()


def start(n: int = 5, **deal: Unpack[Deal]) -> Driver:
    """A started Station game (round 1, mission phase) in a `Driver`.

    `infiltrators` fixes the team (everyone else loyal); `rounds` fixes plans and
    traps per round, as a game script's setup does: {1: {"plans": [...], "trap":
    None}}. Automatic advancing is off unless `options` turns it on.
    """
    d = Driver(new(n, **deal))
    d.ok(A.Start(HOST))
    return d


FREE = plan(1, 0, 0, 0)  # succeeds with nobody on it: filler rounds
HARD = plan(1, 9, 9, 9)  # fails whatever happens
TRAP = {"by": "bo", "victim": "eli", "job": "radio"}


def fixed(n: int = 5, **rounds: Any) -> Driver:
    """ana and bo are the infiltrators; round R uses rounds['rR'] (default EASY, no trap)."""
    spec = {r: {"plans": EASY, "trap": None} for r in range(1, 9)}
    for key, value in rounds.items():
        spec[int(key[1:])] = value
    return start(n, infiltrators=["ana", "bo"], rounds=spec)


def to_last_round(d: Driver) -> None:
    while d.game.phase.round < d.st.config.rounds:
        d.next_round()


def last(d: Driver) -> Any:
    return d.st.history[-1]


def c(plan_: int, job: str, partner: int = NOBODY, sab: bool = False, trap: bool = False) -> Choice:
    return Choice(plan_, job, partner, sab, trap)
