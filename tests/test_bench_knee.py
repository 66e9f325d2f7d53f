"""The load probe's verdict (bench/knee.py): the knee is read between two
steps, and a ramp whose first step is already over the line says so instead
of guessing a figure from that one step (a Cluster run printed 26 inputs/s
that way, for a step that carried 99). Synthetic steps; nothing timed."""

from __future__ import annotations

from bench.knee_reading import Window, goal, knee, reach, verdict


def step(games: int, inputs: int, p99_ms: float) -> Window:
    """A 10 s step of `inputs` webhooks (round trips in seconds): the slowest
    2 % take `p99_ms`, the rest 1 ms."""
    slow = max(2, inputs // 50)
    return Window(games, 0.0, 10.0, [0.001] * (inputs - slow) + [p99_ms / 1000] * slow)


def test_the_knee_is_read_between_the_steps_around_the_line() -> None:
    ramp = [step(50, 500, 20.0), step(100, 1000, 60.0), step(150, 1500, 140.0)]
    found = knee(ramp)
    assert found is not None and 100 < found < 150
    assert abs(found - 125.0) < 1e-6  # halfway: 60 -> 140 ms crosses 100 ms at the middle
    assert (
        verdict(ramp, 5000.0)
        == "knee: 125 inputs/s at p99 100 ms = 0.025x the floor's 5,000 pairs/s"
    )


def test_a_first_step_over_the_line_gives_no_figure() -> None:
    ramp = [step(100, 990, 380.0), step(130, 1140, 930.0)]
    assert knee(ramp) is None
    assert verdict(ramp, 4637.0).startswith("knee: below 99 inputs/s (the first step already")


def test_a_ramp_that_never_crosses_says_above_its_last_step() -> None:
    ramp = [step(50, 500, 20.0), step(100, 1000, 60.0)]
    assert knee(ramp) is None
    assert verdict(ramp, 5000.0) == "knee: above 100 inputs/s (no step crossed p99 100 ms)"


def test_the_reach_is_what_the_driver_and_redis_leave_the_worker() -> None:
    # 200 inputs/s; the driver at 40 % of a core and Redis at 10 %: 2.5 ms an
    # input between them. At 400 inputs/s they take 1 core of 2, leaving the
    # worker 1 core for 400 inputs: 2.5 ms each. At 900 they would need 2.25.
    w = step(200, 2000, 50.0)
    w.cpu = {"worker": 0.9, "driver": 0.4, "redis": 0.1}
    said = reach([w], 2, 400.0)
    assert "(2.5 CPU ms an input) take 1.00 of 2 cores" in said
    assert "must spend under 2.50 CPU ms an input" in said
    assert "it spent 4.50)" in said
    assert "under 0.83 CPU ms" in reach([w], 2, 600.0)  # (2 - 1.5) / 600
    assert reach([w], 2, 900.0).endswith("would take more than 2 cores: not measurable here")
    w.cpu = {"worker": 0.9}
    assert reach([w], 2, 400.0) == "reach: the driver's and Redis's CPU were not measured"


def test_the_goal_is_five_times_the_first_probe_on_this_floor() -> None:
    assert abs(goal(10_000.0) - 650.0) < 1e-9
