"""The gate's per-run time limits: a hanging suite costs one run at the cap, not 2K runs of 15 minutes."""

from __future__ import annotations

from bench.gate.budget import GATE_BUDGET, RunBudget, runs_of_side
from bench.gate.certify import GATE_LIMITS
from bench.gate.sets import RunSummary

BUDGET = RunBudget(floor_seconds=60.0, cap_seconds=900.0, factor=5.0)


def test_first_run_gets_the_cap_later_runs_five_times_the_slowest_within_floor_and_cap():
    assert BUDGET.wall_seconds(()) == 900.0
    assert BUDGET.wall_seconds((2.0,)) == 60.0  # a small suite is not cut by machine noise
    assert BUDGET.wall_seconds((30.0, 40.0)) == 200.0
    assert BUDGET.wall_seconds((400.0,)) == 900.0
    assert GATE_LIMITS.wall_seconds == GATE_BUDGET.cap_seconds  # the first run's limit is what it always was


def _side(outcomes: list[tuple[bool, bool, float]], k: int = 3) -> tuple[list[int], list[float]]:
    """Run a side whose runs (timed out, had report, seconds) are given; returns (indexes run, limits)."""
    limits_seen: list[float] = []

    def run_one(index, limits):
        limits_seen.append(limits.wall_seconds)
        timed_out, had_report, seconds = outcomes[index]
        return RunSummary("base", index, None if timed_out else 1, timed_out, (), (), had_report), seconds

    runs = runs_of_side(run_one, k=k, limits=GATE_LIMITS, budget=BUDGET)
    return [r.index for r in runs], limits_seen


def test_a_suite_that_hangs_is_run_once():
    assert _side([(True, False, 900.0)] * 3) == ([0], [900.0])


def test_a_suite_that_hangs_after_its_first_run_is_cut_at_five_times_its_time():
    assert _side([(False, True, 20.0), (True, False, 100.0), (False, True, 20.0)]) == ([0, 1], [900.0, 100.0])


def test_a_run_without_a_report_ends_the_side():
    assert _side([(False, True, 3.0), (False, False, 1.0), (False, True, 3.0)]) == ([0, 1], [900.0, 60.0])


def test_an_honest_suite_gets_its_k_runs_with_limits_from_the_slowest():
    assert _side([(False, True, 30.0), (False, True, 50.0), (False, True, 10.0)]) == ([0, 1, 2],
                                                                                     [900.0, 150.0, 250.0])
