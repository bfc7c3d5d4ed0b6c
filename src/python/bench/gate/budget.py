"""How long each of the gate's suite runs may take, derived from the runs that already finished.

A repository under certification is untrusted: a test that sleeps forever would otherwise hold the gate for
its full limit on every one of its 2K runs (900 s × 6 = 90 minutes) before a verdict. So the first run of a
side gets ``cap_seconds``, a bound that any honest suite of the pool stays far below; once a run of the side
has finished, its later runs get ``factor`` × the slowest finished run, at least ``floor_seconds`` (so small
suites are not cut by machine noise) and at most ``cap_seconds``. A run that times out or ends without a
report already drops the task (see :func:`bench.gate.sets.decide`), so the gate stops there: at most one run
at the cap is spent on a suite that hangs.

The limits are not part of a certificate (it records only whether a run timed out), so certificates of tasks
whose runs finish in time are the same bytes as before.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

from bench.gate.sets import RunSummary
from bench.sandbox.protocol import Limits


@dataclass(frozen=True)
class RunBudget:
    floor_seconds: float = 60.0
    cap_seconds: float = 900.0
    factor: float = 5.0

    def wall_seconds(self, finished: tuple[float, ...]) -> float:
        """The limit of the next run of a side whose earlier runs finished in ``finished`` seconds."""
        if not finished:
            return self.cap_seconds
        return min(self.cap_seconds, max(self.floor_seconds, self.factor * max(finished)))


GATE_BUDGET = RunBudget()


def ends_the_gate(run: RunSummary) -> bool:
    """A run after which no further run can change the decision: it timed out, or it left no report (the
    task is dropped as a timeout, an OOM kill or a collection failure whatever the other runs do)."""
    return run.timed_out or not run.had_report


def runs_of_side(run_one: Callable[[int, Limits], tuple[RunSummary, float]], *, k: int, limits: Limits,
                 budget: RunBudget = GATE_BUDGET) -> list[RunSummary]:
    """Up to ``k`` runs of one side, each limited as the budget says; stops after a run that ends the gate.

    ``run_one(index, limits)`` returns the run's summary and its wall seconds."""
    summaries: list[RunSummary] = []
    finished: list[float] = []
    for index in range(k):
        wall = budget.wall_seconds(tuple(finished))
        summary, seconds = run_one(index, replace(limits, wall_seconds=wall))
        summaries.append(summary)
        if ends_the_gate(summary):
            break
        finished.append(seconds)
    return summaries
