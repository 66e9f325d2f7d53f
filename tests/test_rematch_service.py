"""Running a game back in the service (issue #32, item 5; service/rematch.py),
on both stores: only the host, only once the game has ended; the rematch has
the old game's kind, language, options and host, a new seed and a new code;
asked twice it is one game and the invitations are written once; a player
of the old table rejoins under their old name (with a number when a
newcomer took it), anyone else is told there is no such rematch. The channels' own sides: tests/test_rematch.py."""

from __future__ import annotations

from typing import Any

import pytest

from gameflow.core import actions as A
from gameflow.core.state import Game
from gameflow.i18n import render
from service import rematch
from service.games import GameService
from service.outbox import OutboxMessage
from tests.store_helpers import FakeClock, run, store_fixture

pytestmark = pytest.mark.store
make_store = store_fixture(("sqlite", "redis"))

HOST = "tg:1"
TABLE = {"tg:10": "Ana", "tg:11": "Bo", "tg:12": "Cy", "tg:13": "Dag", "tg:14": "Eli"}


class Inviter:
    """A channel's inviter as the service sees it: one message per player."""

    def __init__(self) -> None:
        self.woken: list[str] = []

    def invite(self, old: Game, new: Game, code: str) -> list[OutboxMessage]:
        return [
            OutboxMessage("test", f"again:{p}", {"to": p, "code": code, "name": name})
            for p, name in zip(old.players, old.names, strict=True)
        ]

    def wake(self, game_id: str) -> None:
        self.woken.append(game_id)


def test_run_it_back_on_both_stores(make_store: Any) -> None:
    async def main() -> None:
        async with make_store() as store:
            service = GameService(store, clock=FakeClock())
            inviter = Inviter()
            rematch.add_inviter(service.inviters, inviter)
            rematch.add_inviter(service.inviters, Inviter())  # registered again: replaced
            assert service.inviters[0] is not inviter and len(service.inviters) == 1
            inviter = service.inviters[0]
            created = await service.create_game(
                "station", HOST, lang="sr", options={"vote_seconds": 90}
            )
            old = created.game
            for player, name in TABLE.items():
                assert (await service.submit(old.id, A.Join(player, None, name))).accepted
            assert (await service.submit(old.id, A.Start(HOST))).accepted
            early = await rematch.run_back(service, old.id, HOST)
            assert early.refused is not None and early.game is None
            assert render(early.refused, "en").startswith("That game has not ended yet")
            assert (await service.submit(old.id, A.End(HOST))).accepted
            old = await service.load(old.id)
            assert old.over

            player = await rematch.run_back(service, old.id, "tg:10")
            assert player.refused is not None and player.game is None
            assert render(player.refused, "en") == "Only the host can do that."

            done = await rematch.run_back(service, old.id, HOST)
            new = done.game
            assert new is not None and done.code and not done.duplicate
            assert (new.kind, new.lang, new.host, new.options) == (
                old.kind, old.lang, old.host, old.options
            )  # fmt: skip
            assert new.seed != old.seed and new.id != old.id and not new.players
            assert await store.game_for_code(done.code) == new.id
            assert await store.whereis(HOST) == (new.id, HOST)  # the host's commands work
            again = await rematch.run_back(service, old.id, HOST)
            assert again.game is not None and again.game.id == new.id and again.duplicate
            assert again.code == done.code
            sent = await store.take("test", new.id, "w")
            assert sorted(e.payload["to"] for e in sent) == sorted(TABLE)
            assert {e.payload["code"] for e in sent} == {done.code}
            assert inviter.woken == [new.id]  # the second time wrote nothing

            # A newcomer joins the rematch's lobby first, as Ana: Ana is Ana 2.
            assert (await service.submit(new.id, A.Join("tg:50", None, "ána"))).accepted
            stranger, why = await rematch.rejoin(service, done.code, "tg:99", key="k0")
            assert stranger is None and why is not None
            assert render(why, "en") == f"There is no rematch with the code {done.code}."
            for i, player_id in enumerate(TABLE):
                outcome, why = await rematch.rejoin(
                    service, done.code.lower(), player_id, key=f"k{i + 1}"
                )
                assert outcome is not None and outcome.accepted and why is None
            twice, _ = await rematch.rejoin(service, done.code, "tg:11", key="k2")
            assert twice is not None and twice.duplicate  # a redelivered tap
            version = (await service.load(new.id)).version
            again_ana, _ = await rematch.rejoin(service, done.code, "tg:10", key="k9")
            assert again_ana is not None and again_ana.rejected is not None
            assert (await service.load(new.id)).version == version  # a second tap: nothing
            new = await service.load(new.id)
            names = dict(zip(new.players, new.names, strict=True))
            assert names == {"tg:50": "ána", **TABLE, "tg:10": "Ana 2"}
            assert (await service.submit(new.id, A.Start(HOST))).accepted

    run(main())
