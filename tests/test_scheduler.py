"""The deadline scheduler on APScheduler with a controlled clock (time-machine).

Real Station games are the state; `MemoryService` applies the deadlines through
the core as the game service does. The clock never ticks by itself: a test moves
it, wakes APScheduler up and lets the event loop run the due jobs, so a ten-minute
phase takes milliseconds and no test sleeps for real.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
import time_machine

from gameflow.core import actions as A
from gameflow.core.result import Accepted
from gameflow.core.state import Game
from gameflow.games.station.actions import Choose
from gameflow.replay import EPOCH, HOST, setup_game
from scheduler.deadlines import DeadlineScheduler
from scheduler.memory import MemoryGames, MemoryService
from scheduler.plan import DEADLINE, REMINDER, plan
from scheduler.ports import deadline_key

pytestmark = pytest.mark.scheduler

PLAYERS = ["ana", "bo", "cy", "dag", "eli"]


def station(game_id: str = "g1", **options: Any) -> Game:
    """A started Station game (mission phase, deadline EPOCH + 600 s)."""
    script = {"game": "station", "players": PLAYERS, "seed": 3, "id": game_id, "options": options}
    game, _ = setup_game(script)
    return game


class Rig:
    """A scheduler, a store and a service sharing one frozen clock."""

    def __init__(self, clock: time_machine.Coordinates, *games: Game) -> None:
        self.clock = clock
        self.games = MemoryGames(list(games))
        self.service = MemoryService(self.games)
        self.sched = DeadlineScheduler(self.games, self.service)
        self.service.listeners.append(self.sched.on_transition)
        self.resyncs = True  # `at` resyncs (False: the scheduler hears of nothing)

    def game(self, game_id: str = "g1") -> Game:
        return self.games.games[game_id]

    async def settle(self) -> None:
        """Let APScheduler process due jobs and their tasks run to completion."""
        for _ in range(3):
            if self.sched.running:
                self.sched.aps.wakeup()
            for _ in range(30):
                await asyncio.sleep(0)

    async def at(self, t: float) -> None:
        """Move the clock to `t` and run whatever is due: the time between
        had its periodic resyncs, which arm what comes into the look-ahead
        window from the deadline index (one here, at `t`)."""
        self.clock.move_to(t)
        if self.resyncs and self.sched.running:
            await self.sched.rearm_all()
        await self.settle()

    def act(self, action: A.Action, game_id: str = "g1") -> None:
        result = self.service.act(game_id, action)
        assert isinstance(result, Accepted), result


@pytest.fixture
def clock() -> Iterator[time_machine.Coordinates]:
    with time_machine.travel(EPOCH, tick=False) as traveller:
        yield traveller


def run(
    clock: time_machine.Coordinates, body: Callable[[Rig], Awaitable[None]], *games: Game
) -> Rig:
    rig = Rig(clock, *(games or (station(),)))

    async def main() -> None:
        await rig.sched.start()
        try:
            await body(rig)
        finally:
            rig.sched.stop()

    asyncio.run(main())
    return rig


# -- deadlines and reminders at the right times ------------------------------------


def test_deadline_and_reminder_fire_at_their_times(clock: time_machine.Coordinates) -> None:
    async def body(rig: Rig) -> None:
        seq = rig.game().phase.seq
        assert rig.game().phase.deadline == EPOCH + 600
        await rig.at(EPOCH + 539.9)
        assert rig.service.reminders == []
        await rig.at(EPOCH + 540)  # the core's reminder_before: 60 s
        assert rig.service.reminders == [("g1", seq, (0, 1, 2, 3, 4), EPOCH + 540)]
        await rig.at(EPOCH + 599.9)
        assert rig.service.submissions == []
        assert rig.game().phase.name == "mission"
        await rig.at(EPOCH + 600)
        assert [(s.seq, s.code, s.at) for s in rig.service.submissions] == [
            (seq, "accepted", EPOCH + 600)
        ]
        assert rig.game().phase.name == "discussion"
        assert rig.game().phase.seq == seq + 1
        # the next phase is armed from the new state: 180 s of discussion
        assert rig.sched.armed("g1")[f"d|g1|{seq + 1}"] == EPOCH + 780
        await rig.at(EPOCH + 720)  # discussion reminder time: nobody owes an input
        assert len(rig.service.reminders) == 1
        await rig.at(EPOCH + 780)
        assert rig.game().phase.name == "vote"
        assert [s.code for s in rig.service.submissions] == ["accepted", "accepted"]

    run(clock, body)


def test_a_deadline_missed_while_down_fires_once_at_start(
    clock: time_machine.Coordinates,
) -> None:
    clock.move_to(EPOCH + 3600)  # the process was down for an hour

    async def body(rig: Rig) -> None:
        await rig.settle()
        assert [(s.seq, s.code) for s in rig.service.submissions] == [(1, "accepted")]
        assert rig.game().phase.name == "discussion"
        # the next phase runs from the firing time; its stale reminder was not sent
        assert rig.game().phase.deadline == EPOCH + 3600 + 180
        assert rig.service.reminders == []
        await rig.at(EPOCH + 3600 + 179)
        assert len(rig.service.submissions) == 1

    run(clock, body)


def test_restart_rearms_from_state_not_from_a_job_store(clock: time_machine.Coordinates) -> None:
    games = [station(f"g{i}") for i in range(3)]

    async def body(rig: Rig) -> None:
        assert rig.sched.job_count() == 6  # a deadline and a reminder per game
        rig.sched.stop()
        assert rig.sched.job_count() == 0
        again = DeadlineScheduler(rig.games, rig.service)
        assert await again.start() == 3
        rig.sched = again
        await rig.at(EPOCH + 600)
        assert sorted(s.game_id for s in rig.service.accepted) == ["g0", "g1", "g2"]
        again.stop()

    run(clock, body, *games)


# -- pause, resume, host advance, end -------------------------------------------


def test_pause_keeps_the_remaining_time_and_resume_rearms(
    clock: time_machine.Coordinates,
) -> None:
    async def body(rig: Rig) -> None:
        await rig.at(EPOCH + 100)
        rig.act(A.Pause(HOST))  # 500 s left
        assert rig.sched.armed("g1") == {}
        await rig.at(EPOCH + 2000)  # long past the old deadline: nothing fires
        assert rig.service.submissions == []
        rig.act(A.Resume(HOST))  # the core emits TIMER at EPOCH + 2500
        assert rig.sched.armed("g1") == {
            "d|g1|1": EPOCH + 2500,
            "r|g1|1|1700002440.000": EPOCH + 2440,
        }
        await rig.at(EPOCH + 2499)
        assert rig.service.submissions == []
        assert len(rig.service.reminders) == 1
        await rig.at(EPOCH + 2500)
        assert [s.code for s in rig.service.submissions] == ["accepted"]

    run(clock, body)


def test_an_old_job_is_harmless_when_the_resume_was_never_notified(
    clock: time_machine.Coordinates,
) -> None:
    async def body(rig: Rig) -> None:
        rig.service.listeners.clear()  # the scheduler hears nothing from now on
        rig.resyncs = False
        await rig.at(EPOCH + 100)
        rig.act(A.Pause(HOST))
        await rig.at(EPOCH + 300)
        rig.act(A.Resume(HOST))  # new deadline EPOCH + 800
        await rig.at(EPOCH + 600)  # the old job fires, reloads and re-arms
        assert rig.service.submissions == []
        assert rig.sched.stats["early"] == 1
        assert rig.sched.armed("g1")["d|g1|1"] == EPOCH + 800
        await rig.at(EPOCH + 800)
        assert [s.code for s in rig.service.submissions] == ["accepted"]
        assert rig.game().phase.name == "discussion"

    run(clock, body)


def test_a_stale_deadline_submitted_anyway_changes_nothing(
    clock: time_machine.Coordinates,
) -> None:
    async def body(rig: Rig) -> None:
        await rig.at(EPOCH + 600)
        before = rig.game()
        await rig.service.submit_deadline("g1", 1, deadline_key("g1", 1))  # again
        await rig.service.submit_deadline("g1", 1, "another-key")  # phase moved on
        await rig.service.submit_deadline("g1", 2, deadline_key("g1", 2))  # not yet due
        assert [s.code for s in rig.service.submissions] == [
            "accepted",
            "duplicate",
            "stale",
            "not_due",
        ]
        assert rig.game() is before

    run(clock, body)


def test_host_advance_drops_the_old_deadline(clock: time_machine.Coordinates) -> None:
    async def body(rig: Rig) -> None:
        await rig.at(EPOCH + 600)  # into the discussion: nobody owes anything
        assert rig.game().phase.name == "discussion"
        await rig.at(EPOCH + 650)
        rig.act(A.Advance(HOST))  # the host ends the discussion early
        assert rig.game().phase.name == "vote"
        assert list(rig.sched.armed("g1")) == ["d|g1|3", "r|g1|3|1700000710.000"]
        await rig.at(EPOCH + 769)
        assert len(rig.service.submissions) == 1
        await rig.at(EPOCH + 770)  # the vote's own deadline: 120 s after the advance
        await rig.at(EPOCH + 780)  # the discussion's old deadline: nothing for seq 2
        assert [(s.seq, s.code) for s in rig.service.submissions] == [
            (1, "accepted"),
            (3, "accepted"),
        ]

    run(clock, body)


def test_an_ended_game_holds_no_jobs(clock: time_machine.Coordinates) -> None:
    async def body(rig: Rig) -> None:
        assert rig.sched.job_count() == 2
        rig.act(A.End(HOST))
        assert rig.sched.job_count() == 0
        assert rig.sched.aps.get_jobs() == []
        await rig.at(EPOCH + 10_000)
        assert rig.service.submissions == []

    run(clock, body)


def test_two_schedulers_firing_together_end_the_phase_once(
    clock: time_machine.Coordinates,
) -> None:
    async def body(rig: Rig) -> None:
        other = DeadlineScheduler(rig.games, rig.service)
        await other.start()
        await rig.at(EPOCH + 600)
        other.aps.wakeup()
        await rig.settle()
        assert len(rig.service.accepted) == 1
        assert rig.game().phase.name == "discussion"
        assert rig.game().version == station().version + 1
        other.stop()

    run(clock, body)


def test_a_failing_service_is_retried_until_the_phase_moves_on(
    clock: time_machine.Coordinates,
) -> None:
    async def body(rig: Rig) -> None:
        real = rig.service.submit_deadline
        calls: list[float] = []

        async def flaky(game_id: str, seq: int, key: str) -> None:
            calls.append(rig.service.clock())
            if len(calls) < 3:
                raise ConnectionError("service down")
            await real(game_id, seq, key)

        rig.sched.sink = type(
            "Sink",
            (),
            {"submit_deadline": staticmethod(flaky), "send_reminder": rig.service.send_reminder},
        )()
        await rig.at(EPOCH + 600)
        await rig.at(EPOCH + 602)
        await rig.at(EPOCH + 606)
        assert calls == [EPOCH + 600, EPOCH + 602, EPOCH + 606]
        assert [s.code for s in rig.service.submissions] == ["accepted"]
        assert rig.sched.stats["errors"] == 2

    run(clock, body)


def test_reminders_go_only_to_players_still_awaited(clock: time_machine.Coordinates) -> None:
    async def body(rig: Rig) -> None:
        rig.act(Choose("ana", None, 1, "guard"))
        rig.act(Choose("cy", None, 2, "radio"))
        await rig.at(EPOCH + 540)
        assert [r[2] for r in rig.service.reminders] == [(1, 3, 4)]  # bo, dag, eli
        rig.act(Choose("bo", None, 1, "guard"))  # a transition re-plans the game
        await rig.sched.rearm_all()  # and so does a resync
        await rig.at(EPOCH + 545)
        assert len(rig.service.reminders) == 1  # sent once, not again
        for p in ("dag", "eli"):
            rig.act(Choose(p, None, 1, "guard"))
        # everyone is ready: auto-advance is off in scripts, so the phase waits
        assert rig.sched.armed("g1") == {"d|g1|1": EPOCH + 600}

    run(clock, body)


def test_plan_is_derived_from_state_alone() -> None:
    game = station()
    jobs = plan(game, EPOCH)
    assert [(j.kind, j.seq, j.at) for j in jobs] == [
        (DEADLINE, 1, EPOCH + 600),
        (REMINDER, 1, EPOCH + 540),
    ]
    # no reminder when the phase is shorter than twice the reminder time
    short = station(mission_seconds=100.0)
    assert [j.kind for j in plan(short, EPOCH)] == [DEADLINE]
    # a paused or finished game holds nothing
    paused = game._replace(phase=game.phase._replace(deadline=None, paused_left=10.0))
    assert plan(paused, EPOCH) == ()
    # a past deadline is still listed (it fires at once); its reminder is not
    assert [j.kind for j in plan(game, EPOCH + 5000)] == [DEADLINE]
    # the discussion awaits nobody: no reminder job at all
    talk = game._replace(phase=game.phase._replace(name="discussion"))
    assert [j.kind for j in plan(talk, EPOCH)] == [DEADLINE]


def test_a_scheduler_in_doubt_about_its_lease_holds_back(clock: time_machine.Coordinates) -> None:
    leader = {"valid": False}

    async def body(rig: Rig) -> None:
        rig.sched.may_fire = lambda: leader["valid"]
        await rig.at(EPOCH + 600)
        await rig.at(EPOCH + 601)
        assert rig.service.submissions == []
        assert rig.sched.stats["held"] == 1  # once, then it waits for the backoff
        leader["valid"] = True
        await rig.at(EPOCH + 602)
        assert [s.code for s in rig.service.submissions] == ["accepted"]

    run(clock, body)
