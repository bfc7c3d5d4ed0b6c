"""Numbers the report shows, computed from typed runs; no formatting here (see ``tables``/``sections``).

Everything is keyed and sorted by names, so results do not depend on the order of the records.
Runs touched by an infrastructure error are excluded from every rate (docs/ARCHITECTURE.md §2: never a model
miss) and counted separately by the callers.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence, TypeVar

from bench.report import markov, stats
from bench.report.runs import AttemptRun, LoopRun

FULL, COUNT_ONLY, RESAMPLE = "full", "count-only", "resample"
CONDITION_ORDER = (FULL, COUNT_ONLY, RESAMPLE)
DIFFICULTY_ORDER = ("trivial", "easy", "medium", "hard")
BOOTSTRAP_RESAMPLES = 10_000
BOOTSTRAP_SEED = 0

T = TypeVar("T")


@dataclass(frozen=True)
class Rate:
    successes: int
    n: int
    interval: stats.Interval

    @property
    def value(self) -> float | None:
        return self.successes / self.n if self.n else None


@dataclass(frozen=True)
class PairedComparison:
    first: str  # label of the first arm, e.g. "full"
    second: str
    budget: int | None  # success = solved within this many turns; None = converged at all
    tasks: int
    both: int
    first_only: int
    second_only: int
    neither: int
    test: stats.McNemar
    diff: stats.PairedDiff


@dataclass(frozen=True)
class MarkovSummary:
    condition: str
    fit: markov.ChainFit
    rates: markov.LoopRates
    observed: tuple[float, ...]
    predicted: tuple[float, ...]
    gap: float


def rate(successes: int, n: int) -> Rate:
    return Rate(successes, n, stats.wilson_interval(successes, n))


def group(items: Iterable[T], key: Callable[[T], str]) -> dict[str, list[T]]:
    """Items grouped by ``key``, groups in sorted key order, items in their given order."""
    groups: dict[str, list[T]] = defaultdict(list)
    for item in items:
        groups[key(item)].append(item)
    return {name: groups[name] for name in sorted(groups)}


def ordered_conditions(conditions: Iterable[str]) -> tuple[str, ...]:
    return _known_first(conditions, CONDITION_ORDER)


def ordered_difficulties(difficulties: Iterable[str]) -> tuple[str, ...]:
    return _known_first(difficulties, DIFFICULTY_ORDER)


def _known_first(names: Iterable[str], order: tuple[str, ...]) -> tuple[str, ...]:
    present = set(names)
    return tuple([name for name in order if name in present] + sorted(present - set(order)))


def usable(loops: Iterable[LoopRun]) -> list[LoopRun]:
    """Runs that count in rates: no infrastructure error in any turn; sorted by (task, sample)."""
    return sorted((run for run in loops if not run.infrastructure_error), key=lambda run: (run.task_id, run.sample))


def convergence_rate(loops: Sequence[LoopRun]) -> Rate:
    return rate(sum(run.converged for run in loops), len(loops))


def horizon(loops: Iterable[LoopRun]) -> int:
    return max((run.budget for run in loops), default=0)


def curve(loops: Sequence[LoopRun], turns: int) -> tuple[float, ...]:
    """Observed P(converged by turn t), t = 1..turns; for resampling this is best-of-t."""
    return markov.observed_curve([_first_solved(run) for run in loops], turns)


def markov_summary(condition: str, loops: Sequence[LoopRun]) -> MarkovSummary:
    turns = horizon(loops)
    fit = markov.fit_chain(run.states for run in loops)
    predicted = markov.predicted_curve(fit, turns)
    observed = curve(loops, turns)
    return MarkovSummary(condition, fit, markov.loop_rates(fit), observed, predicted, markov.max_abs_gap(observed, predicted))


def paired_comparison(
    first: tuple[str, Sequence[LoopRun]], second: tuple[str, Sequence[LoopRun]], budget: int | None = None
) -> PairedComparison | None:
    """McNemar and bootstrap on tasks present in both arms (first sample of each); None if none are shared."""
    paired = paired_outcomes(first[1], second[1], budget)
    if paired is None:
        return None
    a, b = paired
    first_only = sum(x and not y for x, y in zip(a, b))
    second_only = sum(y and not x for x, y in zip(a, b))
    both = sum(x and y for x, y in zip(a, b))
    return PairedComparison(
        first=first[0],
        second=second[0],
        budget=budget,
        tasks=len(a),
        both=both,
        first_only=first_only,
        second_only=second_only,
        neither=len(a) - both - first_only - second_only,
        test=stats.mcnemar(first_only, second_only),
        diff=stats.paired_bootstrap_diff(a, b, resamples=BOOTSTRAP_RESAMPLES, seed=BOOTSTRAP_SEED),
    )


def paired_outcomes(first: Sequence[LoopRun], second: Sequence[LoopRun],
                    budget: int | None = None) -> tuple[list[bool], list[bool]] | None:
    """Whether each task run in both arms succeeded in each (first sample, tasks sorted); None if none shared."""
    first_by_task = _first_sample_by_task(first)
    second_by_task = _first_sample_by_task(second)
    shared = sorted(set(first_by_task) & set(second_by_task))
    if not shared:
        return None
    return ([_succeeded(first_by_task[task], budget) for task in shared],
            [_succeeded(second_by_task[task], budget) for task in shared])


def pass_at_k_table(attempts: Sequence[AttemptRun]) -> tuple[tuple[int, ...], tuple[float, ...], int]:
    """(ks, mean pass@k over tasks, tasks) for k in 1, 2, 5, 10, 20, 50, 100 up to the fewest samples per task."""
    per_task = group((run for run in attempts if run.outcome != "infrastructure_error"), key=lambda run: run.task_id)
    if not per_task:
        return (), (), 0
    fewest = min(len(runs) for runs in per_task.values())
    ks = tuple(k for k in (1, 2, 5, 10, 20, 50, 100) if k <= fewest)
    values = tuple(
        sum(stats.pass_at_k(len(runs), sum(r.resolved for r in runs), k) for runs in per_task.values())
        / len(per_task)
        for k in ks
    )
    return ks, values, len(per_task)


def _first_solved(run: LoopRun) -> int | None:
    return run.first_solved_turn if run.converged else None


def _succeeded(run: LoopRun, budget: int | None) -> bool:
    solved_at = _first_solved(run)
    return solved_at is not None and (budget is None or solved_at <= budget)


def _first_sample_by_task(loops: Sequence[LoopRun]) -> dict[str, LoopRun]:
    chosen: dict[str, LoopRun] = {}
    for run in sorted(loops, key=lambda run: (run.task_id, run.sample)):
        chosen.setdefault(run.task_id, run)
    return chosen
