"""The load probe's verdict (bench/knee.py): the knee is read between two
steps, and a ramp whose first step is already over the line says so instead
of guessing a figure from that one step (a Cluster run printed 26 inputs/s
that way, for a step that carried 99). Synthetic steps; nothing timed."""

from __future__ import annotations

from bench.knee import Window, knee, verdict


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
