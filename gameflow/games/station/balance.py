"""Station's balance table: `muldvarp simulate station` (docs/balance.md).

Bot games of every table size through the real engine with the scripted bots
of `bots.py` (the table talk modelled by `table.py`): the loyal win rate with a
95% Wilson interval, mean parts and mean damage. Game i of n players is seeded
`"{S}/{n}/{i}"`. `play` is also the game `muldvarp demo` shows. The game's
definition hands `simulate` to the simulator (gameflow/simulate.py), which
holds the command line and the statistics every game's table shares.
`lopsided` is the host's warning from the measured table (`LOYAL_WIN`, the
figures docs/balance.md shows; issue #32): no simulation when a host asks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final, NamedTuple

from gameflow.core import actions as A
from gameflow.core.engine import apply, legal, new_game
from gameflow.core.events import Event
from gameflow.core.legal import ActionSpec
from gameflow.core.lopsided import warning
from gameflow.core.result import Accepted
from gameflow.core.state import Game
from gameflow.core.text import N_, Msg
from gameflow.games.station import bots
from gameflow.games.station.actions import Choose, Vote
from gameflow.games.station.belief import Talk
from gameflow.games.station.state import LOYAL, Station
from gameflow.games.station.table import BotTable
from gameflow.simulate import Progress, _counts, _quiet, wilson

HOST: Final = "host"
EPOCH: Final = 1_700_000_000.0

Watch = Callable[[Game, tuple[Event, ...]], None]
Listen = Callable[[Game, Talk], None]


class GameResult(NamedTuple):
    players: int
    winner: str | None
    parts: int
    damage: int
    rounds: int
    rejected: int  # bot actions the engine refused (must stay 0)
    illegal: int  # bot actions outside `engine.legal` (must stay 0)


class Row(NamedTuple):
    players: int
    games: int
    loyal_wins: int
    low: float
    high: float
    parts: float
    damage: float
    rejected: int

    @property
    def rate(self) -> float:
        return self.loyal_wins / self.games if self.games else 0.0


def is_legal(specs: Sequence[ActionSpec], action: A.Action) -> bool:
    """Does `action` use only values `engine.legal` offered?"""
    for spec in specs:
        if isinstance(action, Choose) and spec.kind == Choose.kind:
            secret = "sabotage" if action.sabotage else "trap" if action.trap else None
            values = {
                "plan": action.plan,
                "job": action.job,
                "partner": action.partner,
                "secret": secret,
            }
        elif isinstance(action, Vote) and spec.kind == Vote.kind:
            values = {"for": action.target}
        else:
            continue
        return spec.phase == action.phase and all(
            (f := spec.field(k)) is not None and v in f.options for k, v in values.items()
        )
    return False


def start(players: int, seed: str, lang: str = "en") -> tuple[Game, tuple[Event, ...]]:
    """A started Station game of `players` bots ("p1", "p2", ...)."""
    game = new_game(
        "station", f"sim-{seed}", HOST, seed, lang=lang, options={"auto_advance": False}
    )
    for i in range(players):
        pid = f"p{i + 1}"
        result = apply(game, A.Join(pid, None, NAMES[i] if i < len(NAMES) else pid), EPOCH)
        assert isinstance(result, Accepted), result
        game = result.state
    result = apply(game, A.Start(HOST), EPOCH)
    assert isinstance(result, Accepted), result
    return result.state, result.events


NAMES: Final = (
    "Ada", "Bo", "Cato", "Dina", "Emil", "Frida", "Gard", "Hedda",
    "Ivar", "Jana", "Kai", "Liv", "Mads", "Nora", "Olav",
)  # fmt: skip


def play(
    players: int,
    seed: str,
    policy: bots.Policy = bots.DEFAULT,
    *,
    lang: str = "en",
    watch: Watch | None = None,
    listen: Listen | None = None,
) -> GameResult:
    """One whole game with bots. `watch` sees every accepted transition's events,
    `listen` each round's table talk (the demo prints both)."""
    game, events = start(players, seed, lang)
    if watch is not None:
        watch(game, events)
    now = EPOCH
    table = BotTable(game, policy, listen)
    rejected = illegal = 0
    while not game.over:
        for action in table.moves(game):
            now += 1.0
            if not is_legal(legal(game, action.by or ""), action):
                illegal += 1
            result = apply(game, action, now)
            if isinstance(result, Accepted):
                game = result.state
                if watch is not None:
                    watch(game, result.events)
            else:
                rejected += 1
        now = max(now, game.phase.deadline or now)
        result = apply(game, A.Deadline(None, game.phase.seq), now)
        assert isinstance(result, Accepted), result
        game = result.state
        if watch is not None:
            watch(game, result.events)
    st: Station = game.rules
    return GameResult(players, game.winner, st.parts, st.damage, len(st.history), rejected, illegal)


def table(
    counts: Iterable[int],
    games: int,
    seed: str,
    policy: bots.Policy = bots.DEFAULT,
    progress: Callable[[int], None] | None = None,
) -> list[Row]:
    """One row per player count: `games` games each."""
    rows = []
    for n in counts:
        results = []
        for i in range(games):
            results.append(play(n, f"{seed}/{n}/{i}", policy))
            if progress is not None:
                progress(1)
        rows.append(summarise(n, results))
    return rows


def summarise(players: int, results: Sequence[GameResult]) -> Row:
    wins = sum(1 for r in results if r.winner == LOYAL)
    low, high = wilson(wins, len(results))
    k = max(1, len(results))
    return Row(
        players,
        len(results),
        wins,
        low,
        high,
        sum(r.parts for r in results) / k,
        sum(r.damage for r in results) / k,
        sum(r.rejected + r.illegal for r in results),
    )


def parse_players(text: str) -> list[int]:
    """ "5-15", "7" or "5,7,9" -> the player counts."""
    counts = _counts(text)
    if not counts or min(counts) < 5 or max(counts) > 15:
        raise ValueError("Station takes 5 to 15 players")
    return counts


def format_table(rows: Sequence[Row]) -> str:
    lines = [
        "| players | games | loyal win % | 95% CI | mean parts | mean damage |",
        "|---:|---:|---:|---|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r.players} | {r.games} | {100 * r.rate:.1f} | "
            f"{100 * r.low:.1f}–{100 * r.high:.1f} | {r.parts:.2f} | {r.damage:.2f} |"
        )
    return "\n".join(lines)


def simulate(players: str, games: int, seed: str, *, progress: bool, **_: Any) -> int:
    """Station's table: the scripted bots (the other options are not Station's)."""
    import time  # the one clock read, for the report line; the games never see it

    try:
        counts = parse_players(players)
    except ValueError as exc:
        print(f"simulate: {exc}")
        return 2
    if games < 1:
        print("simulate: --games must be at least 1")
        return 2
    began = time.perf_counter()
    rows = []
    tick: Callable[[int], None] = (
        Progress(len(counts) * games, "simulate station") if progress else _quiet
    )
    for n in counts:
        rows.extend(table([n], games, seed, progress=tick))
    print(format_table(rows))
    rejected = sum(r.rejected for r in rows)
    print(
        f"\n{games} games per player count, seed {seed!r}; "
        f"bot actions refused: {rejected}; total time {time.perf_counter() - began:.1f} s"
    )
    return 1 if rejected else 0


# -- the host's warning --------------------------------------------------------------

# The loyal crew's win % by table size, 200 games a size at the default settings
# (`reveal_guards` played, the infiltrators by the rules' table): the Results
# table of docs/balance.md. No other setting was measured.
LOYAL_WIN: Final[dict[int, float]] = {
    5: 55.0, 6: 41.5, 7: 49.5, 8: 46.5, 9: 52.0, 10: 49.5,
    11: 48.0, 12: 61.0, 13: 51.5, 14: 56.0, 15: 50.5,
}  # fmt: skip
MEASURED: Final = {"infiltrators": 0, "reveal_guards": "played", "traps": True}
LOYAL_AHEAD = N_(
    "Lopsided: by the balance table the loyal crew win about {pct} % of games "
    "with {players} players."
)
INFILTRATORS_AHEAD = N_(
    "Lopsided: by the balance table the infiltrators win about {pct} % of games "
    "with {players} players."
)


def lopsided(players: int, options: Mapping[str, Any]) -> Msg | None:
    """The warning for a table of `players` with `options` when the measured
    table says a side wins more than 65 % (None: neither does, or the table
    has no figure: another size, or settings it did not measure)."""
    return warning(
        players, options, MEASURED, LOYAL_WIN.get(players), (LOYAL_AHEAD, INFILTRATORS_AHEAD)
    )
