"""The game service on both stores: inputs applied once and durably, conflicts
retried, notifiers told after the commit, directories kept, and exports that
`muldvarp replay` turns back into the very same game."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from bots.export import export_game, export_script
from gameflow.core import actions as A
from gameflow.core.engine import new_game
from gameflow.core.events import Event, Kind
from gameflow.core.state import Game
from gameflow.games.station.actions import Choose
from gameflow.replay import record
from gameflow.replay import run as replay_run
from service.games import GameNotFound, GameService, Outcome, replay_log
from service.ports import CommitResult, Status
from tests.cli_helpers import cli
from tests.store_helpers import HOST, FakeClock, random_action, run, store_fixture

pytestmark = pytest.mark.store

make_store = store_fixture()
make_sqlite = store_fixture(("sqlite",))


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[int, tuple[Event, ...]]] = []

    async def notify(self, game: Game, events: tuple[Event, ...]) -> None:
        self.calls.append((game.version, events))


def recorded(store: Any) -> tuple[Recorder, GameService]:
    """A service on `store` at a fake clock, its notifications recorded."""
    rec = Recorder()
    return rec, GameService(store, [rec], clock=FakeClock())


class Broken:
    async def notify(self, game: Game, events: tuple[Event, ...]) -> None:
        raise RuntimeError("the network is down")


async def new_lobby(service: GameService, players: int = 5, **kw: Any) -> Game:
    created = await service.create_game(
        "station", HOST, lang="en", seed="fixed", game_id="g1", **kw
    )
    for i in range(1, players + 1):
        out = await service.submit("g1", A.Join(f"p{i}", None, f"P{i}"), key=f"join{i}")
        assert out.accepted
    return created.game


async def lobby_service(store: Any, players: int = 5) -> tuple[FakeClock, GameService]:
    """A service on `store` at a fake clock, and through it the lobby g1 of
    `players` (`new_lobby`)."""
    clock = FakeClock()
    service = GameService(store, clock=clock)
    await new_lobby(service, players=players)
    return clock, service


def test_an_input_is_applied_logged_and_notified(make_store: Any) -> None:
    async def go() -> None:
        async with make_store() as store:
            clock, rec = FakeClock(), Recorder()
            service = GameService(store, [Broken(), rec], clock=clock)
            await new_lobby(service)
            clock.tick(7)
            out = await service.submit("g1", A.Start(HOST), key="u1")
            assert out.accepted and out.game.running and out.attempts == 1
            assert await store.load("g1") == out.game
            entries = await store.log("g1")
            assert entries[-1] == {"as": HOST, "do": "start", "at": clock.now, "key": "u1"}
            assert len(entries) == out.game.version  # one entry per version
            assert rec.calls[-1] == (out.game.version, out.events)  # despite the broken port
            assert any(e.kind is Kind.TIMER for e in out.events)

    run(go())


def test_a_refused_input_changes_nothing(make_store: Any) -> None:
    async def go() -> None:
        async with make_store() as store:
            rec, service = recorded(store)
            game = await new_lobby(service)
            before = await store.load("g1")
            calls = len(rec.calls)
            out = await service.submit("g1", A.Start("p1"), key="u2")
            assert out.rejected is not None and out.rejected.code == "host_only"
            assert not out.accepted and out.game == before
            assert await store.load("g1") == before
            assert await store.applied("g1", "u2") is None  # a refusal is not remembered
            assert len(rec.calls) == calls and game.id == "g1"
            with pytest.raises(GameNotFound):
                await service.submit("nope", A.Start(HOST))

    run(go())


def test_each_key_delivered_five_times_is_applied_once(make_store: Any) -> None:
    async def go() -> None:
        async with make_store() as store:
            rec, service = recorded(store)
            await new_lobby(service)
            before = (await service.load("g1")).version
            outs: list[Outcome] = []
            for n in range(20):
                action = A.SetOption(HOST, None, "vote_seconds", float(n))
                for _ in range(5):
                    outs.append(await service.submit("g1", action, key=f"update:{n}"))
            assert sum(o.accepted for o in outs) == 20
            assert sum(o.duplicate for o in outs) == 80
            game = await service.load("g1")
            assert game.version == before + 20
            values = [e["value"] for e in (await store.log("g1"))[before:]]
            assert values == [float(n) for n in range(20)]
            assert len(rec.calls) == 5 + 20  # five joins, twenty options; duplicates silent

    run(go())


def test_concurrent_duplicates_in_one_process_apply_once(make_store: Any) -> None:
    import asyncio

    async def go() -> None:
        async with make_store() as store:
            service = GameService(store, clock=FakeClock())
            await new_lobby(service)
            before = (await service.load("g1")).version
            jobs = [
                service.submit("g1", A.SetOption(HOST, None, "vote_seconds", float(n)), key=f"k{n}")
                for n in range(10)
                for _ in range(5)
            ]
            outs = await asyncio.gather(*jobs)
            assert sum(o.accepted for o in outs) == 10
            game = await service.verify("g1")
            assert game.version == before + 10
            keys = [e.get("key") for e in await store.log("g1")][before:]
            assert sorted(keys) == sorted(f"k{n}" for n in range(10))

    run(go())


class Racing:
    """A store wrapper that lets a rival input win the race before our first commit."""

    def __init__(self, store: Any, rival: A.Action, clock: FakeClock) -> None:
        self.store, self.rival, self.clock, self.raced = store, rival, clock, False

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    async def commit(
        self, game_id: str, expected: int, game: Game, entry: Any, key: str | None = None, **kw: Any
    ) -> CommitResult:
        if not self.raced:
            self.raced = True
            rival = GameService(self.store, clock=self.clock)
            assert (await rival.submit(game_id, self.rival, key=repr(self.rival))).accepted
        result: CommitResult = await self.store.commit(game_id, expected, game, entry, key, **kw)
        return result


def test_a_lost_race_is_retried_on_the_fresh_state(make_store: Any) -> None:
    async def go() -> None:
        async with make_store() as store:
            clock, service = await lobby_service(store)
            racing = GameService(Racing(store, A.Join("p9", None, "P9"), clock), clock=clock)
            out = await racing.submit("g1", A.Join("p8", None, "P8"), key="mine")
            assert out.accepted and out.attempts == 2
            game = await service.verify("g1")
            assert game.players[-2:] == ("p9", "p8")
            # A retry re-validates: a now-illegal input is refused, not forced in.
            racing = GameService(Racing(store, A.Join("p7", None, "Same"), clock), clock=clock)
            out = await racing.submit("g1", A.Join("p6", None, "same"), key="mine2")
            assert out.rejected is not None and out.rejected.code == "name_taken"

    run(go())


def test_a_stale_cached_copy_is_never_trusted(make_store: Any) -> None:
    async def go() -> None:
        async with make_store() as store:
            clock = FakeClock()
            mine, other = GameService(store, clock=clock), GameService(store, clock=clock)
            await new_lobby(mine)
            assert (await mine.submit("g1", A.Start(HOST))).accepted  # mine caches v7
            game = await other.load("g1")
            clock.now = game.phase.deadline or clock.now
            moved = await other.submit("g1", A.Deadline(None, game.phase.seq))
            assert moved.accepted  # behind mine's back: mission -> discussion
            # Refused on mine's stale copy (no such phase yet), accepted on a fresh load.
            seq = moved.game.phase.seq
            clock.now = moved.game.phase.deadline or clock.now
            out = await mine.submit("g1", A.Deadline(None, seq), key="d")
            assert out.accepted and out.attempts == 2
            # Accepted on the stale copy, refused by the version check, then redone.
            assert (await other.submit("g1", A.SetLanguage(HOST, None, "sr"))).accepted
            out = await mine.submit("g1", A.Pause(HOST))
            assert out.accepted and out.attempts == 2 and out.game.lang == "sr"
            assert (await mine.verify("g1")).version == out.game.version

    run(go())


def test_a_new_game_cut_short_by_a_crash_is_completed_on_redelivery(make_store: Any) -> None:
    """The worker died after storing the game, before binding the host and
    claiming a code: the redelivered "new game" finishes those steps."""

    async def go() -> None:
        async with make_store() as store:
            service = GameService(store, clock=FakeClock())
            held = await store.claim("update:9", "g9")  # what the first delivery did...
            assert await store.create(new_game("station", held, HOST, "s", lang="en"))
            assert await store.whereis(HOST) is None and await store.code_for(held) is None
            again = await service.create_game("station", HOST, key="update:9")
            assert again.duplicate and again.game.id == held
            assert again.code is not None and await store.game_for_code(again.code) == held
            assert await store.whereis(HOST) == (held, HOST)
            third = await service.create_game("station", HOST, key="update:9")
            assert third.code == again.code  # no second code

    run(go())


class DiesAfterCommit:
    """A store whose worker dies the moment its first commit has landed."""

    def __init__(self, store: Any) -> None:
        self.store = store

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    async def commit(self, *args: Any, **kwargs: Any) -> CommitResult:
        await self.store.commit(*args, **kwargs)
        raise SystemExit("killed")


def test_a_join_cut_short_by_a_crash_after_its_commit_is_bound(make_store: Any) -> None:
    """The binding lands with the join itself: the redelivery is a duplicate
    (nothing left to do), and the player's next text still finds the game."""

    async def go() -> None:
        async with make_store() as store:
            await new_lobby(GameService(store, clock=FakeClock()), players=3)
            dying = GameService(DiesAfterCommit(store), clock=FakeClock())
            with pytest.raises(SystemExit):
                await dying.submit("g1", A.Join("+4790000009", None, "Nina"), key="SM1")
            again = await GameService(store, clock=FakeClock()).submit(
                "g1", A.Join("+4790000009", None, "Nina"), key="SM1"
            )
            assert again.duplicate
            assert await store.whereis("+4790000009") == ("g1", "+4790000009")

    run(go())


def test_create_game_codes_identities_and_active_set(make_store: Any) -> None:
    async def go() -> None:
        async with make_store() as store:
            service = GameService(store, clock=FakeClock())
            made = await service.create_game("station", HOST, key="update:1")
            again = await service.create_game("station", HOST, key="update:1")
            assert again.duplicate and again.game == made.game and again.code == made.code
            assert made.code is not None and len(made.code) == 4
            gid = made.game.id
            assert await store.game_for_code(made.code) == gid
            assert await store.whereis(HOST) == (gid, HOST)
            for p in ("tg:1", "+4790000002", "tg:3", "tg:4", "tg:5"):
                assert (await service.submit(gid, A.Join(p, None, p[-1] + "x"))).accepted
            assert await store.whereis("+4790000002") == (gid, "+4790000002")
            assert (await service.submit(gid, A.Leave("tg:3"))).accepted
            assert await store.whereis("tg:3") is None
            assert await service.sweep() == [gid]
            assert (await service.submit(gid, A.Join("tg:3", None, "3x"))).accepted
            assert (await service.submit(gid, A.Start(HOST))).accepted
            assert (await service.submit(gid, A.End(HOST))).accepted
            assert await store.whereis("tg:1") is None
            assert await store.game_for_code(made.code) is None
            assert await store.active_games() == []
            assert await service.sweep() == []

    run(go())


def test_deadlines_are_deduplicated_by_game_and_version(make_sqlite: Any) -> None:
    async def go() -> None:
        async with make_sqlite() as store:
            clock, service = await lobby_service(store)
            game = (await service.submit("g1", A.Start(HOST))).game
            deadline = game.phase.deadline
            assert deadline is not None
            key = f"deadline:g1:{game.phase.seq}"
            early = await service.submit("g1", A.Deadline(None, game.phase.seq), key=key)
            assert early.rejected is not None and early.rejected.code == "not_due"
            clock.now = deadline
            outs = [
                await service.submit("g1", A.Deadline(None, game.phase.seq), key=key)
                for _ in range(3)
            ]
            assert [o.accepted for o in outs] == [True, False, False]
            assert (await service.load("g1")).phase.seq == game.phase.seq + 1

    run(go())


async def play(
    service: GameService, clock: FakeClock, game_id: str, seed: int, limit: int = 600
) -> Game:
    """Play a started game to its end through the service with a random policy."""
    rng = random.Random(seed)
    game = await service.load(game_id)
    for n in range(limit):
        if game.over:
            break
        clock.tick(rng.choice((0.5, 2.0, 20.0)))
        action = random_action(game, rng)
        if action is None or (rng.random() < 0.05 and not game.phase.paused):
            clock.now = max(clock.now, game.phase.deadline or clock.now)
            action = A.Deadline(None, game.phase.seq)
        game = (await service.submit(game_id, action, key=f"i{n}")).game
    return game


def replay_script(script: dict[str, Any]) -> tuple[Game, dict[str, Any]]:
    game, rejected = replay_run(script)
    return game, record(game, rejected)


def same_game(live: Game, replayed: Game) -> None:
    def norm(g: Game) -> Game:  # replays run with auto-advance off, and "host" as the host
        opts = tuple(o for o in g.options if o[0] != "auto_advance")
        return g._replace(options=opts, host="host")

    assert norm(replayed) == norm(live)


@pytest.mark.parametrize("seed", range(6))
def test_the_log_replays_and_the_export_reproduces_the_game(make_sqlite: Any, seed: int) -> None:
    async def go() -> tuple[Game, dict[str, Any], Game]:
        async with make_sqlite() as store:
            clock, service = await lobby_service(store, players=5 + seed * 2)
            await service.submit("g1", A.SetOption(HOST, None, "vote_seconds", 45.0))
            await service.submit("g1", A.SetLanguage(HOST, None, "sr"))
            clock.tick(3)
            assert (await service.submit("g1", A.Start(HOST))).accepted
            final = await play(service, clock, "g1", seed)
            assert await service.verify("g1") == final
            initial = await store.initial("g1")
            assert initial is not None
            assert replay_log(initial, await store.log("g1")) == final
            return final, await export_game(store, "g1"), initial

    final, script, _ = run(go())
    assert final.over
    autos = [s for s in script["steps"] if s.get("auto")]
    assert autos or final.ended_by_host  # a game played out has phases that ended by themselves
    assert script["lang"] == "sr" and script["options"]["vote_seconds"] == 45.0
    replayed, rec = replay_script(json.loads(json.dumps(script)))
    assert rec["rejected"] == []
    same_game(final, replayed)
    assert rec["version"] == final.version and rec["winner"] == final.winner


def test_export_of_a_running_game_and_through_the_cli(make_store: Any, tmp_path: Any) -> None:
    async def go() -> Game:
        async with make_store() as store:
            clock, service = await lobby_service(store, players=6)
            await service.submit("g1", A.Start(HOST))
            game = await service.load("g1")
            for p in game.players:  # everyone chooses: the mission ends by itself
                clock.tick(1)
                out = await service.submit("g1", Choose(p, None, 1, "radio"))
                assert out.accepted
            assert out.game.phase.name == "discussion"
            clock.tick(1)
            await service.submit("g1", A.Pause(HOST))
            return await service.load("g1")

    async def export(channel_ids: bool = True) -> dict[str, Any]:
        async with make_store() as store:
            return await export_game(store, "g1", channel_ids=channel_ids)

    live = run(go())
    script = run(export())
    if make_store.kind == "sqlite":  # the CLI, on the same file
        out = cli("bots.cli", "export", "g1", "--store", str(tmp_path / "games.sqlite3"))
        # the CLI leaves channel ids out by default
        assert json.loads(out) == run(export(channel_ids=False))
    path = tmp_path / "game.json"
    path.write_text(json.dumps(script))
    rec = json.loads(cli("bots.cli", "replay", str(path)))
    assert rec["version"] == live.version and rec["rejected"] == [] and not rec["over"]
    same_game(live, replay_script(script)[0])
    assert [s for s in script["steps"] if s.get("auto")] == [
        {"do": "advance", "auto": True, "at": script["steps"][5]["at"]}
    ]


def test_export_of_a_lobby_and_of_a_missing_game(make_sqlite: Any) -> None:
    async def go() -> None:
        async with make_sqlite() as store:
            service = GameService(store, clock=FakeClock())
            await new_lobby(service, players=3)
            script = await export_game(store, "g1")
            assert script["players"] == ["p1", "p2", "p3"] and script["steps"] == []
            assert script["names"]["p2"] == "P2"
            with pytest.raises(LookupError):
                await export_game(store, "nope")

    run(go())


def test_export_script_refuses_a_log_the_core_refuses() -> None:
    from gameflow.core.engine import new_game

    initial = new_game("station", "g", HOST, "s")
    with pytest.raises(ValueError):
        export_script(initial, [{"as": HOST, "do": "start", "at": 1.0}])  # nobody joined


def test_status_values_are_stable() -> None:
    assert [s.value for s in Status] == ["ok", "conflict", "duplicate", "missing"]


def _kinds() -> list[Any]:
    from gameflow.core.rules import known_games

    return [
        pytest.param(kind, seed, marks=getattr(pytest.mark, kind), id=f"{kind}-{seed}")
        for kind in known_games()
        for seed in range(2)
    ]


@pytest.mark.parametrize(("kind", "seed"), _kinds())
def test_every_game_survives_the_store_and_its_export(
    make_sqlite: Any, kind: str, seed: int
) -> None:
    """Whatever game: snapshots decode, the log replays to the snapshot, and the
    export replays to the same final state (only the store path is generic here;
    the game's own rules are tested by its own suite)."""
    from gameflow.core.rules import rules_for

    async def go() -> tuple[Game, dict[str, Any]]:
        async with make_sqlite() as store:
            clock = FakeClock()
            service = GameService(store, clock=clock)
            made = await service.create_game(kind, HOST, lang="en", seed=f"s{seed}", game_id="g1")
            for i in range(rules_for(kind).min_players + seed):
                assert (await service.submit("g1", A.Join(f"p{i}", None, f"P{i}"))).accepted
            game = (await service.submit("g1", A.Start(HOST))).game
            rng = random.Random(seed)
            for _ in range(1500):
                if game.over:
                    break
                clock.tick(rng.choice((0.5, 5.0)))
                try:
                    action = random_action(game, rng)
                except ValueError:
                    continue  # a spec value this naive policy can't turn into a step
                if action is None or rng.random() < 0.03:
                    clock.now = max(clock.now, game.phase.deadline or clock.now)
                    action = A.Deadline(None, game.phase.seq)
                game = (await service.submit("g1", action)).game
            assert await service.verify("g1") == game
            assert made.game.kind == kind
            return game, await export_game(store, "g1")

    final, script = run(go())
    assert final.version > 10
    replayed, rec = replay_script(json.loads(json.dumps(script)))
    assert rec["rejected"] == []
    same_game(final, replayed)


def test_verify_catches_a_snapshot_the_log_does_not_lead_to(make_sqlite: Any) -> None:
    async def go() -> None:
        async with make_sqlite() as store:
            service = GameService(store, clock=FakeClock())
            game = await new_lobby(service, players=5)
            current = await service.load("g1")
            assert game.version == 0 and current.version == 5
            forged = current._replace(version=6, lang="sr")  # not what the entry does
            entry = {"as": HOST, "do": "set_language", "lang": "en", "at": 1.0}
            assert (await store.commit("g1", 5, forged, entry)).status is Status.OK
            with pytest.raises(ValueError, match="differ in lang"):
                await service.verify("g1")

    run(go())


class LostReply:
    """A store whose first commit reaches the store but whose reply is lost, and
    is sent again (as a client retrying on a dropped connection would)."""

    def __init__(self, store: Any) -> None:
        self.store, self.lost = store, False

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    async def commit(self, *args: Any, **kwargs: Any) -> CommitResult:
        first: CommitResult = await self.store.commit(*args, **kwargs)
        if not self.lost:
            self.lost = True
            assert first.status is Status.OK
            again: CommitResult = await self.store.commit(*args, **kwargs)
            return again
        return first


def test_an_input_without_a_key_is_not_applied_twice_by_a_resent_commit(
    make_store: Any,
) -> None:
    async def go() -> None:
        async with make_store() as store:
            rec, service = recorded(LostReply(store))
            await service.create_game("station", HOST, game_id="g1")
            out = await service.submit("g1", A.Join("p1", None, "P1"))
            assert out.accepted and out.game.version == 1 and len(rec.calls) == 1
            assert (await service.load("g1")).version == 1
            assert len(await store.log("g1")) == 1

    run(go())
