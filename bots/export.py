"""`muldvarp export CODE`: a stored game as a game script.

The script (docs/game-scripts.md) reproduces the game under
`muldvarp replay`: the same record and the same final state. Bug reports and
audits start from it. It reveals the seed, and with it every secret of the
deal: it is an operator's tool. The players' channel identities (`tg:201`, a
Telegram user id; `sms:...`, a keyed hash of a phone number) are replaced by
neutral ids unless asked for (`without_channel_ids`): `anon:1`, `anon:2`, ...,
the ones the store writes once the game's contacts are forgotten
(service/forget.py). A bug report needs the game, not who played it.

The log holds every accepted input from the lobby on, each with its time. The
lobby folds into the script's envelope (players in seat order, their names,
options, language, the start time `at`); the steps after the start follow
with their `at`. One difference needs care: live games advance by themselves
when everyone is ready, replays never do. So the log is re-applied twice side
by side, once as it ran live and once as the replay will run it, and wherever
the live game moved to the next phase on its own the exporter writes
`{"do": "advance", "auto": true, "at": ...}` (see `gameflow.replay.advance_when_ready`).
The envelope's `version` carries the version counter past the folded lobby.

The players' talk through the bot is no game input and not in the script.
Only a game whose host turned `talk_record` on at its creation keeps it
(service/talk.py), and only `--with-talk` adds it, as `talk`: each line's
time, the speaker's seat and game name, `table` or `team`, and its text
(`muldvarp replay` ignores it). Without the option it is an empty list.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from gameflow.core import actions as A
from gameflow.core.codec import encode_game
from gameflow.core.engine import apply
from gameflow.core.result import Rejected
from gameflow.core.state import LOBBY, Game
from gameflow.replay import HOST, advance_when_ready, parse_step, setup_game
from service.forget import neutral, numbering, swap
from service.ports import GameStore
from service.talk import kept as talk_kept

_HOST_KINDS = (
    A.Pause,
    A.Resume,
    A.Advance,
    A.End,
    A.SetLanguage,
    A.SetOption,
    A.Kick,
    A.Start,
    A.MoveWindow,
)


def _accept(game: Game, action: A.Action, now: float, where: str) -> Game:
    result = apply(game, action, now)
    if isinstance(result, Rejected):
        raise ValueError(f"{where}: refused on re-applying the log ({result.code})")
    return result.state


def export_script(initial: Game, entries: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The game script for a game created as `initial` with log `entries`."""
    live = lobby = initial
    steps = list(entries)
    i = 0
    start_at: float | None = None
    while i < len(steps) and live.phase.name == LOBBY:
        action = parse_step(live, steps[i])
        lobby, live = live, _accept(live, action, float(steps[i]["at"]), f"log entry {i}")
        if isinstance(action, A.Start):
            start_at = float(steps[i]["at"])
        i += 1
    if start_at is None:
        lobby = live
    started = live.version
    options = {k: v for k, v in lobby.options if k != "auto_advance"}
    script: dict[str, Any] = {
        "game": initial.kind,
        "id": initial.id,
        "players": list(lobby.players),
        "names": dict(zip(lobby.players, lobby.names, strict=True)),
        "seed": initial.seed,
        "lang": lobby.lang,
        "options": options,
        "setup": json.loads(initial.setup),
        "at": start_at,
        "version": started if start_at is not None else None,
        "steps": [],
    }
    if live.zone:
        script["zone"] = [list(pair) for pair in live.zone]
    if start_at is None:
        return script  # still in the lobby: nothing happened that a script can hold
    replica, _ = setup_game(script)
    # A host who is not also a player acts only as the host (game-specific host
    # steps too, such as Traitors' scoring); one who plays keeps their id for play.
    hosting = initial.host not in lobby.players
    out: list[dict[str, Any]] = script["steps"]
    for j in range(i, len(steps)):
        entry = steps[j]
        at = float(entry["at"])
        action = parse_step(live, entry)
        live = _accept(live, action, at, f"log entry {j}")
        step = {k: v for k, v in entry.items() if k != "key"}
        if step.get("as") == initial.host and (hosting or isinstance(action, _HOST_KINDS)):
            step["as"] = HOST  # replays call the host "host"
        out.append(step)
        replica = _accept(replica, parse_step(replica, step), at, f"script step {len(out) - 1}")
        if live.phase.seq != replica.phase.seq:
            moved = advance_when_ready(replica, at)
            if isinstance(moved, Rejected) or moved.state.phase.seq != live.phase.seq:
                raise ValueError(f"log entry {j}: the phase moved on in a way a script can't say")
            out.append({"do": "advance", "auto": True, "at": at})
            replica = moved.state
    return script


def without_channel_ids(
    script: dict[str, Any], new: dict[str, str] | None = None
) -> dict[str, Any]:
    """`script` with each player's id (`tg:201`, `sms:3f9c...`) replaced by a
    neutral one, everywhere (players, names, setup, steps): `new`, the
    numbering the store's forgetting gives the game (service/forget.py:
    `anon:1`, `anon:2`, ... in the old ids' order, so whatever the rules order
    by id plays out the same; `export_game` passes it), else the same
    numbering of the script's own ids. The seats stay as they were; the setup
    keeps its keys sorted, as a stored deal's are. So an export stripped
    before CONTACTS_RETENTION_HOURS equals the plain export after it."""
    if new is None:
        ids = set(script["players"]) | {
            str(step["as"]) for step in script["steps"] if step.get("as") not in (None, HOST)
        }
        new = numbering(ids)
    kept = ("game", "id", "seed", "lang")  # never a player's id
    out = {k: v if k in kept else swap(v, new) for k, v in script.items()}
    out["setup"] = json.loads(json.dumps(out["setup"], sort_keys=True))
    return out


async def export_game(
    store: GameStore, game: str, *, channel_ids: bool = True, talk: bool = False
) -> dict[str, Any]:
    """The script of `game`: its id, or the join code a host was shown (of a
    game that runs or one that has ended, while the store keeps it); without
    `channel_ids`, with the players' ids as the store's forgetting writes them;
    with `talk`, the players' talk the game kept (`talk`, see the module doc)."""
    script = await _script(store, game, channel_ids=channel_ids)
    if talk:
        stored = await store.load(script["id"])
        script["talk"] = await talk_kept(store, stored) if stored is not None else []
    return script


async def _script(store: GameStore, game: str, *, channel_ids: bool) -> dict[str, Any]:
    initial = await store.initial(game)
    if initial is None and len(game) <= 8:
        found = await store.game_last_with_code(game.upper())
        initial = await store.initial(found) if found else None
    if initial is None:
        raise LookupError(f"no game with the id or join code {game!r}")
    entries = await store.log(initial.id)
    script = export_script(initial, entries)
    if channel_ids:
        return script
    snapshot = await store.load(initial.id)
    new = neutral(
        json.loads(encode_game(snapshot or initial)), json.loads(encode_game(initial)), entries
    )
    return without_channel_ids(script, new)


def open_store(url: str) -> GameStore:
    """A store from `--store`: redis://... (or rediss://, unix://, a Cluster's
    redis+cluster://), else a SQLite file path, which must exist (an export
    creates nothing)."""
    if url.startswith(
        ("redis://", "rediss://", "unix://", "redis+cluster://", "rediss+cluster://")
    ):
        from adapters.store.redis_store import RedisStore

        return RedisStore.from_url(url)
    from pathlib import Path

    from adapters.store.sqlite_store import SqliteStore

    path = url.removeprefix("sqlite:///").removeprefix("sqlite://")
    if not Path(path).is_file():
        raise LookupError(f"no store at {path}")
    return SqliteStore(path)


def settings_store(env_file: str | None) -> GameStore:
    """The store `muldvarp serve` uses, from the same settings (`.env`,
    `DATA_DIR`, `REDIS_URL`, `MULDVARP_PREFIX`); a missing SQLite store is an
    error, never created."""
    from bots.app import open_store as serve_store
    from bots.settings import load_settings

    settings = load_settings(env_file if env_file is not None else ".env")
    if not settings.redis_url and not settings.sqlite_path.is_file():
        raise LookupError(f"no games stored at {settings.sqlite_path} (DATA_DIR)")
    return serve_store(settings)


def main(
    game: str,
    store_url: str | None = None,
    env_file: str | None = None,
    *,
    channel_ids: bool = False,
    talk: bool = False,
) -> int:
    """Print the game's script as JSON on stdout (the players' channel ids
    replaced, unless `channel_ids`; the talk kept only with `talk`)."""
    import asyncio
    import sys

    from bots.settings import SettingsError

    async def go() -> dict[str, Any]:
        store = open_store(store_url) if store_url else settings_store(env_file)
        try:
            return await export_game(store, game, channel_ids=channel_ids, talk=talk)
        finally:
            await store.close()

    try:
        script = asyncio.run(go())
    except (LookupError, ValueError, SettingsError) as exc:
        print(f"muldvarp export: {exc}", file=sys.stderr)
        return 1
    sys.stdout.write(json.dumps(script, ensure_ascii=False, indent=1) + "\n")
    return 0
