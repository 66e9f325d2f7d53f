"""The talk is part of a game's record only where the host turned that on
at creation (issue #33, item 5: the option `talk_record`, service/talk.py),
and `muldvarp export` gives it only when asked (`--with-talk`), never by
default; a game without the option exports no talk even when asked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from adapters.store.sqlite_store import SqliteStore
from service import talk
from service.games import GameService
from tests.campaign_helpers import oslo
from tests.store_helpers import FakeClock, run
from tests.test_export_cli import _cli
from tests.test_talk_service import seated


def _talked(path: Path, options: dict[str, Any]) -> str:
    """A campaign in a new SQLite store at `path` in which p0 says two lines
    to the table and p1 one that floods nobody; its id."""

    async def main() -> str:
        store = SqliteStore(str(path))
        try:
            service = GameService(store, clock=FakeClock(oslo(15, 12)))
            game_id = await seated(service, options)
            for n, (who, text) in enumerate([("p0", "I trust P1"), ("p1", "ok\u202e  then")]):
                said = await service.talk(game_id, who, text, key=f"sms:{n}")
                assert said.status == talk.SENT
            again = await service.talk(game_id, "p1", "ok then", key="sms:1")  # redelivered
            assert again.status == talk.DUPLICATE
            return game_id
        finally:
            await store.close()

    return run(main())


def _export(store: Path, game_id: str, *flags: str) -> Any:
    """`muldvarp export` of the game in `store` (an id may start with "-")."""
    return _cli("export", "--store", str(store), *flags, "--", game_id, cwd=store.parent)


def test_a_game_that_keeps_its_talk_exports_it_only_when_asked(tmp_path: Path) -> None:
    store = tmp_path / "kept.sqlite3"
    game_id = _talked(store, {"talk_record": "yes"})
    plain = _export(store, game_id)
    assert plain.returncode == 0, plain.stderr
    assert "talk" not in json.loads(plain.stdout) and "I trust" not in plain.stdout
    asked = _export(store, game_id, "--with-talk")
    assert asked.returncode == 0, asked.stderr
    script = json.loads(asked.stdout)
    assert script["options"]["talk_record"] is True
    lines = [(x["seat"], x["name"], x["to"], x["text"]) for x in script["talk"]]
    assert lines == [(0, "P0", "table", "I trust P1"), (1, "P1", "table", "ok then")]
    assert all(x["at"] == oslo(15, 12) for x in script["talk"])
    assert "sms:" not in asked.stdout  # no channel id, in the talk either


def test_a_game_without_the_option_keeps_no_talk(tmp_path: Path) -> None:
    store = tmp_path / "plain.sqlite3"
    game_id = _talked(store, {})
    asked = _export(store, game_id, "--with-talk")
    assert asked.returncode == 0, asked.stderr
    assert json.loads(asked.stdout)["talk"] == []

    async def record() -> str | None:
        kept = SqliteStore(str(store))
        try:
            return await kept.get_attr(game_id, talk.ATTR)
        finally:
            await kept.close()

    raw = run(record())
    assert raw is not None and "trust" not in raw  # not even in the store
