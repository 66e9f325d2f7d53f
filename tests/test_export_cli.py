"""`muldvarp export` finds the games `serve` made, from the same settings
(`.env`, DATA_DIR, MULDVARP_PREFIX), by the join code a host was shown (of a
game that has ended too), creates nothing where there is no store, and leaves
the players' channel ids out unless asked for them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bots.app import open_store
from bots.export import export_game
from bots.settings import load_settings
from gameflow.core import actions as A
from gameflow.games.station.actions import Choose
from gameflow.replay import record
from gameflow.replay import run as replay
from service.games import GameService
from service.ports import GameStore
from tests.store_helpers import FakeClock, run, store_fixture

pytestmark = pytest.mark.store
make_store = store_fixture(("sqlite", "redis"))


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATA_DIR", "REDIS_URL")}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parent.parent)
    return subprocess.run(
        [sys.executable, "-m", "bots.cli", *args],
        capture_output=True, text=True, timeout=60, check=False, cwd=cwd, env=env,
    )  # fmt: skip


async def _night(store: GameStore, *, end: bool = False) -> str:
    """A Station game hosted over Telegram (ids tg:...), started, a round's
    choices made, and ended by its host if `end`: its join code."""
    service = GameService(store, clock=FakeClock())
    created = await service.create_game("station", "tg:1", lang="en")
    players = [f"tg:{201 + i}" for i in range(5)]
    for i, p in enumerate(players):
        await service.submit(created.game.id, A.Join(p, name=f"P{i}"))
    await service.submit(created.game.id, A.Start("tg:1"))
    for i, p in enumerate(players):
        partner = players[(i + 1) % 5]
        await service.submit(created.game.id, Choose(p, plan=1, job="radio", partner=partner))
    if end:
        await service.submit(created.game.id, A.End("tg:1"))
    assert created.code is not None
    return created.code


def test_export_reads_serves_settings_and_takes_the_join_code(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("DATA_DIR=night\n")
    settings = load_settings(str(tmp_path / ".env"), DATA_DIR=str(tmp_path / "night"))

    async def host() -> str:
        store = open_store(settings)
        try:
            return await _night(store, end=True)
        finally:
            await store.close()

    code = run(host())  # the game has ended: its code is free again, and still finds it
    out = _cli("export", code.lower(), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    script = json.loads(out.stdout)
    assert script["game"] == "station" and len(script["players"]) == 5
    assert "tg:" not in out.stdout  # by default, no channel id
    kept = _cli("export", code, "--with-channel-ids", cwd=tmp_path)
    assert kept.returncode == 0, kept.stderr
    raw = json.loads(kept.stdout)
    assert raw["players"] == [f"tg:{201 + i}" for i in range(5)]
    # the same game either way: the records match, id for id
    same = dict(zip(raw["players"], script["players"], strict=True))
    mapped = json.dumps(record(*replay(raw)))
    for old, new in same.items():
        mapped = mapped.replace(f'"{old}"', f'"{new}"')
    assert mapped == json.dumps(record(*replay(script)))
    assert script["steps"] and record(*replay(script))["over"]


def test_a_game_that_has_ended_is_found_by_its_join_code(make_store: Any) -> None:
    async def main() -> tuple[str | None, dict[str, Any], dict[str, Any]]:
        async with make_store() as store:
            code = await _night(store, end=True)
            live = await _night(store)
            return (
                await store.game_for_code(code),
                await export_game(store, code),
                await export_game(store, live),
            )

    holder, ended, running = run(main())
    assert holder is None  # the code is free for another game ...
    assert ended["game"] == "station" and ended["steps"]  # ... and still finds this one
    assert running["steps"] and running["id"] != ended["id"]


def test_export_without_a_store_says_so_and_creates_nothing(tmp_path: Path) -> None:
    out = _cli("export", "ABCD", cwd=tmp_path)
    assert out.returncode == 1
    assert "no games stored" in out.stderr and "Traceback" not in out.stderr
    assert list(tmp_path.iterdir()) == []
    out = _cli("export", "ABCD", "--store", str(tmp_path / "x.sqlite3"), cwd=tmp_path)
    assert out.returncode == 1 and "no store at" in out.stderr
    assert list(tmp_path.iterdir()) == []


def test_version_and_help() -> None:
    out = _cli("--version", cwd=Path.cwd())
    assert out.returncode == 0 and out.stdout.startswith("muldvarp ")
    out = _cli("--help", cwd=Path.cwd())
    assert "as they land" not in out.stdout


def test_without_channel_ids_every_game_replays_the_same(scenarios: Path) -> None:
    """The public scenarios of all three games, their players given Telegram
    ids in a shuffled order: with the ids replaced, each replays to the same
    record, id for id, and no channel id is left."""
    import random

    from bots.export import without_channel_ids

    for path in sorted(scenarios.glob("*.json")):
        if path.name.endswith(".expected.json"):
            continue
        text = path.read_text()
        players = json.loads(text)["players"]
        rng = random.Random(path.name)
        for p in players:
            text = text.replace(f'"{p}"', f'"tg:{rng.randrange(10**6)}"')
        script = json.loads(text)
        stripped = without_channel_ids(script)
        assert "tg:" not in json.dumps(stripped), path.name
        mapped = json.dumps(record(*replay(script)))
        for old, new in zip(script["players"], stripped["players"], strict=True):
            mapped = mapped.replace(f'"{old}"', f'"{new}"')
        assert mapped == json.dumps(record(*replay(stripped))), path.name
