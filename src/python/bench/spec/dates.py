"""Tasks by date: the quarter a task falls in, and a pool's or a run's split at a training cut-off.

A task's date (:attr:`bench.spec.model.TaskSpec.date`) is a PR's merge, a mutated release's upload or a synthetic
task's authoring. A model can only be said to meet a task it has not seen when the task is dated after the
model's training cut-off; ``after:``/``before:`` select by it, ``bench report --cutoff`` splits by it.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Iterable

from bench.spec.model import TaskSpec

UNDATED = "undated"


def quarter(day: str) -> str:
    """``2024-08-30`` → ``2024Q3``; "" → ``undated``."""
    if not day:
        return UNDATED
    return f"{day[:4]}Q{(int(day[5:7]) - 1) // 3 + 1}"


def side_of(day: str, cutoff: str) -> str:
    """``after`` (on or after the cut-off), ``before``, or ``undated``: the two sides ``after:``/``before:`` select."""
    if not day:
        return UNDATED
    return "after" if day >= cutoff else "before"


def tasks_per_quarter(specs: Iterable[TaskSpec]) -> dict[str, dict[str, int]]:
    """For each quarter (oldest first, undated last), how many tasks of each kind it holds."""
    counts: dict[str, Counter] = defaultdict(Counter)
    for spec in specs:
        counts[quarter(spec.date)][spec.kind] += 1
    dated = sorted(q for q in counts if q != UNDATED)
    order = _every_quarter(dated[0], dated[-1]) if dated else []
    order += [UNDATED] if UNDATED in counts else []
    return {q: dict(sorted(counts[q].items())) for q in order}


def _every_quarter(first: str, last: str) -> list[str]:
    """The quarters from ``first`` to ``last`` inclusive (``2023Q4``, ``2024Q1``, …): empty ones shown too."""
    year, q = int(first[:4]), int(first[5])
    out = []
    while f"{year}Q{q}" <= last:
        out.append(f"{year}Q{q}")
        year, q = (year + 1, 1) if q == 4 else (year, q + 1)
    return out


def quarter_table(per_quarter: dict[str, dict[str, int]]) -> list[str]:
    """``bench pool stats``' table: tasks per quarter and kind, with a bar of the quarter's total."""
    kinds = sorted({kind for row in per_quarter.values() for kind in row})
    lines = [f"{'tasks by date':<14}" + "".join(f"{k:>11}" for k in kinds) + f"{'all':>7}"]
    for name, row in per_quarter.items():
        total = sum(row.values())
        lines.append(f"{name:<14}" + "".join(f"{row.get(k, 0):>11}" for k in kinds) + f"{total:>7}  "
                     + "#" * max(1, round(total / 10)))
    return lines
