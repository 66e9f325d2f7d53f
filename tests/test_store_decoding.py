"""The Redis store decodes a snapshot only when its text is new to it
(adapters/store/redis_store.py, `RedisStore._decode`): the next input after
this process's own commit, or a view of an unchanged game, reads the same
text and gets the state already in memory. A text another worker committed
is always decoded: two stores on one real Redis stand for two workers.
"""

from __future__ import annotations

import pytest

from adapters.store import redis_store
from adapters.store.redis_store import RedisStore
from gameflow.core import actions as A
from gameflow.core.state import Game
from tests.store_helpers import (
    drop_prefix,
    lobby,
    redis_url_or_fail,
    run,
    step,
    unique_prefix,
)

pytestmark = pytest.mark.store


def test_a_snapshot_is_decoded_once_and_another_workers_commit_always(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    decoded: list[str] = []
    real = redis_store.decode_game

    def counting(text: str) -> Game:
        decoded.append(text)
        return real(text)

    monkeypatch.setattr(redis_store, "decode_game", counting)
    url, prefix = redis_url_or_fail(), unique_prefix()

    async def go() -> None:
        mine = RedisStore.from_url(url, prefix=prefix)
        theirs = RedisStore.from_url(url, prefix=prefix)
        try:
            game = lobby(5)
            await mine.create(game)
            assert await mine.load("g1") == game
            assert len(decoded) == 1  # a text new to this store
            assert await mine.load("g1") == game
            assert await mine.load_with("g1", "n") == (game, None)
            assert len(decoded) == 1  # the same text: no decoding

            moved, entry = step(game, A.Join("p7", None, "P7"))
            assert (await mine.commit("g1", game.version, moved, entry)).version == moved.version
            assert await mine.load("g1") is moved  # its own commit: the state it holds
            assert len(decoded) == 1

            # Another worker commits: this one's copy is behind, and the text
            # it reads now is decoded, never taken for the copy.
            later, entry = step(moved, A.Join("p8", None, "P8"))
            assert await theirs.load("g1") == moved
            assert (await theirs.commit("g1", moved.version, later, entry)).version == later.version
            seen = len(decoded)
            assert await mine.load("g1") == later
            assert len(decoded) == seen + 1
            assert (await mine.load_with("g1", "n"))[0] == later
            assert len(decoded) == seen + 1
        finally:
            await mine.close()
            await theirs.close()
            await drop_prefix(url, prefix)

    run(go())
