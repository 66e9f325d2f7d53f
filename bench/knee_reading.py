"""How bench/knee.py reads its ramp: the steps it measured (`Window`), the knee
between them, the last line's verdict, issue #20's goal on the run's floor,
what the driver and Redis leave a worker at that rate, and how several workers
scale against one (issue #31: throughput per machine). Pure functions of the
figures, apart from the probe that measures them, so that they are tested on
synthetic steps (tests/test_bench_knee.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

from bench.common import pct

LINE = 0.100  # the p99 the knee is read at, seconds
# Issue #20's goal: five times the first probe's knee (2026-12-02: 0.013x the
# floor), as a ratio to the floor so that it travels between machines.
GOAL = 5 * 0.013
# Issue #31's goal per machine: each worker added carries at least 0.8 of one
# (two workers: 1.6 times one worker's knee).
SCALE_GOAL = 0.8


@dataclass
class Window:
    """The webhooks sent in one step's measured stretch."""

    games: int
    start: float
    end: float
    lat: list[float] = field(default_factory=list)
    cpu: dict[str, float] = field(default_factory=dict)
    texts: int = 0  # texts the fake Twilio took in the window
    calls: dict[str, int] = field(default_factory=dict)  # Redis commands in the window

    @property
    def rate(self) -> float:
        return len(self.lat) / (self.end - self.start)


def knee(windows: list[Window]) -> float | None:
    """Inputs/s where p99 crosses LINE, interpolated between the last step under
    it and the first over it; None if no step crossed. A first step over the
    line has no step under it to interpolate from: no figure (`main` says
    the knee is below that step), never a guess from that step alone."""
    below: Window | None = None
    for w in windows:
        p99 = pct(w.lat, 0.99) / 1000
        if p99 > LINE:
            if below is None:
                return None
            b99 = pct(below.lat, 0.99) / 1000
            return below.rate + (LINE - b99) * (w.rate - below.rate) / (p99 - b99)
        below = w
    return None


def verdict(windows: list[Window], floor_pairs: float) -> str:
    """The probe's last line: the knee and its ratio to the floor, or which
    side of the ramp it lies beyond."""
    found = knee(windows)
    first = windows[0]
    if found is None and pct(first.lat, 0.99) / 1000 > LINE:
        return (
            f"knee: below {first.rate:.0f} inputs/s (the first step already crossed "
            "p99 100 ms: start the ramp lower)"
        )
    if found is None:
        return f"knee: above {windows[-1].rate:.0f} inputs/s (no step crossed p99 100 ms)"
    return (
        f"knee: {found:.0f} inputs/s at p99 100 ms = {found / floor_pairs:.3f}x the floor's "
        f"{floor_pairs:,.0f} pairs/s"
    )


def reach(windows: list[Window], cores: int, target: float) -> str:
    """What this machine leaves a worker at `target` inputs/s: the driver and
    Redis share its cores, so the worker gets what they don't take, and must
    spend less than that per input to carry the rate at all (a knee needs
    headroom besides). Their CPU per input is read from the busiest step."""
    w = windows[-1]
    spent = (w.cpu.get("driver", 0.0) + w.cpu.get("redis", 0.0)) / max(w.rate, 1e-9)
    if spent <= 0:
        return "reach: the driver's and Redis's CPU were not measured"
    left = cores - spent * target
    now = w.cpu.get("worker", 0.0) / max(w.rate, 1e-9) * 1000
    if left <= 0:
        return (
            f"reach: at {target:.0f} inputs/s the driver and Redis alone ({spent * 1000:.1f}"
            f" CPU ms an input) would take more than {cores} cores: not measurable here"
        )
    return (
        f"reach: at {target:.0f} inputs/s the driver and Redis ({spent * 1000:.1f} CPU ms an"
        f" input) take {spent * target:.2f} of {cores} cores; the worker, on the rest, must"
        f" spend under {left / target * 1000:.2f} CPU ms an input (at the busiest step it"
        f" spent {now:.2f})"
    )


def goal(floor_pairs: float) -> float:
    """Issue #20's goal on this run's floor, in inputs/s."""
    return GOAL * floor_pairs


def _cpu_ms(w: Window) -> float:
    return w.cpu.get("worker", 0.0) / max(w.rate, 1e-9) * 1000


def scaling(ramps: dict[int, list[Window]]) -> list[str]:
    """Several worker counts ramped in one run (`--workers 1,2`): each count's
    knee against the fewest workers' (goal: SCALE_GOAL of a worker for each
    one, 1.6x for two), and at the steps both ran the workers' CPU per input
    summed, which is steadier than a knee on a shared machine. A knee beyond
    a ramp's end gives a bound, not a ratio."""
    base = min(ramps)
    label = f"{base} worker" + ("s" if base > 1 else "")
    one = knee(ramps[base]) if ramps[base] else None
    out = []
    for n in sorted(ramps)[1:]:
        found = knee(ramps[n]) if ramps[n] else None
        target = SCALE_GOAL * n / base
        name = f"{n} workers against {base}"
        if not ramps[n] or not ramps[base]:
            out.append(f"per machine: {name}: a ramp measured no step")
            continue
        crossed_first = pct(ramps[n][0].lat, 0.99) / 1000 > LINE
        if one is None:
            if pct(ramps[base][0].lat, 0.99) / 1000 > LINE:
                said = f"no ratio ({label} already crossed at its first step: start lower)"
            else:
                said = f"no ratio ({label}'s knee lies above its last step: ramp higher)"
        elif found is not None:
            ratio = found / one
            verdict_ = "met" if ratio >= target else "NOT met"
            said = (
                f"{found:.0f} against {one:.0f} inputs/s at p99 100 ms = {ratio:.2f}x"
                f" (goal >= {target:.1f}x): {verdict_}"
            )
        elif crossed_first:
            ratio = ramps[n][0].rate / one
            said = (
                f"below {ramps[n][0].rate:.0f} against {one:.0f} inputs/s = under"
                f" {ratio:.2f}x (goal >= {target:.1f}x): NOT met"
            )
        else:
            ratio = ramps[n][-1].rate / one
            verdict_ = "met" if ratio >= target else "not shown (ramp higher)"
            said = (
                f"above {ramps[n][-1].rate:.0f} against {one:.0f} inputs/s = at least"
                f" {ratio:.2f}x (goal >= {target:.1f}x): {verdict_}"
            )
        out.append(f"per machine: {name}: {said}")
        steps = {w.games: w for w in ramps[base]}
        both = [(steps[w.games], w) for w in ramps[n] if w.games in steps]
        if both:
            out.append(
                f"  CPU ms an input, {base} -> {n} workers (summed), at the steps both ran: "
                + ", ".join(
                    f"{a.games} games {_cpu_ms(a):.1f} -> {_cpu_ms(b):.1f}" for a, b in both
                )
            )
    return out
