"""A player's sheet is worked out once per state (adapters/sms/sheet.py,
`_parts`): a commit's composer asks about the state before and after, and the
next input's gateway about the same state again. The memory is checked by
identity, so another state of the same game and version (one computed for a
commit that lost its race) is worked out afresh, never answered for.
"""

from __future__ import annotations

import pytest

from adapters.sms import sheet as S
from gameflow.core import actions as A
from gameflow.core.engine import apply
from gameflow.core.question import question
from gameflow.core.state import Game
from tests.store_helpers import HOST, T0, lobby, ok

pytestmark = pytest.mark.sms


def test_a_sheet_is_worked_out_once_per_state_object(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []

    def counting(game: Game, player: str) -> object:
        asked.append(player)
        return question(game, player)

    monkeypatch.setattr(S, "question", counting)
    started = ok(apply(lobby(5, game_id="memo"), A.Start(HOST), T0))
    players = [p for p in started.players if S.key_of(started, p) is not None]
    assert players, "someone is asked something once the game starts"
    first = len(asked)
    for p in players:
        assert S.key_of(started, p) is not None
        assert S.sheet(started, p) is not None
    assert len(asked) == first  # the same state again: nothing worked out anew

    # The same game and version, another state: worked out for itself.
    other = started._replace(players=started.players)  # equal, but another object
    assert other is not started
    assert [S.key_of(other, p) for p in players] == [S.key_of(started, p) for p in players]
    assert len(asked) > first
    lobbied = lobby(5, game_id="memo")._replace(version=started.version)
    assert all(S.key_of(lobbied, p) is None for p in players)  # its own answer, not started's
