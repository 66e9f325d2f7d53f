"""The load probe's verdict (bench/knee.py): the knee is read between two
steps, and a ramp whose first step is already over the line says so instead
of guessing a figure from that one step (a Cluster run printed 26 inputs/s
that way, for a step that carried 99). Synthetic steps; nothing timed."""

from __future__ import annotations

from bench.knee_reading import Window, goal, knee, reach, scaling, verdict


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


def test_two_workers_are_read_against_one_at_their_knees() -> None:
    # one worker crosses 100 ms between 100 and 150 inputs/s (125), two between
    # 150 and 250 (200): 1.6x, just the goal
    one = [step(50, 500, 20.0), step(100, 1000, 60.0), step(150, 1500, 140.0)]
    two = [step(100, 1000, 20.0), step(150, 1500, 60.0), step(250, 2500, 140.0)]
    for w in one + two:
        w.cpu = {"worker": w.rate * 0.004}  # 4 CPU ms an input
    said = scaling({1: one, 2: two})
    assert said[0] == (
        "per machine: 2 workers against 1: 200 against 125 inputs/s at p99 100 ms"
        " = 1.60x (goal >= 1.6x): met"
    )
    assert said[1].endswith("100 games 4.0 -> 4.0, 150 games 4.0 -> 4.0")
    two[-1] = step(200, 2000, 140.0)  # crosses at 175: 1.4x
    assert scaling({1: one, 2: two})[0].endswith("= 1.40x (goal >= 1.6x): NOT met")


def test_a_knee_beyond_a_ramp_gives_a_bound_or_no_ratio() -> None:
    one = [step(50, 500, 20.0), step(100, 1000, 60.0), step(150, 1500, 140.0)]
    under = [step(100, 1000, 20.0), step(180, 1800, 60.0)]
    assert scaling({1: one, 2: under})[0].endswith(
        "above 180 against 125 inputs/s = at least 1.44x (goal >= 1.6x): not shown (ramp higher)"
    )
    under.append(step(250, 2500, 60.0))
    assert scaling({1: one, 2: under})[0].endswith("at least 2.00x (goal >= 1.6x): met")
    over = [step(100, 990, 380.0)]
    assert scaling({1: one, 2: over})[0].endswith("below 99 against 125 inputs/s = under 0.79x"
                                                  " (goal >= 1.6x): NOT met")  # fmt: skip
    assert "no ratio (1 worker's knee lies above its last step" in scaling({1: under, 2: one})[0]
    assert "no ratio (1 worker already crossed" in scaling({1: over, 2: one})[0]
    assert scaling({1: one, 2: []}) == ["per machine: 2 workers against 1: a ramp measured no step"]
