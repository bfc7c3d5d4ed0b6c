"""Certification throughput from admission logs: wall time per admitted task and where it went.

An admission log (``admit-log-<library>.json``, written by ``bench mine --admit``) holds one entry per
candidate tried: its outcome, wall seconds and, since admission times its phases, the seconds spent locking,
building the environment, preparing the two workspaces and running the tests. The test runs (K per side) are
the physical limit of certification: the rest is overhead this summary makes visible. Dropped candidates cost
time too, so the cost per admitted task is also given with every attempt's time shared out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from bench.errors import BenchError
from bench.gate.phase_clock import PHASES


@dataclass(frozen=True)
class Throughput:
    tried: int
    admitted: int
    timed_admitted: int  # admitted entries that carry phase times
    median_seconds: float  # per admitted task, its own admission
    p90_seconds: float
    seconds_per_admitted_all_attempts: float  # every attempt's wall, shared out over the admitted tasks
    phase_share: tuple[tuple[str, float], ...]  # over the timed admitted tasks; "other" is what no phase holds
    tests_median_seconds: float  # the task's own 2K test runs alone
    wall_over_tests_median: float  # per task: admission wall / its test runs, median


def read_logs(paths: tuple[Path, ...]) -> tuple[dict, ...]:
    entries: list[dict] = []
    for path in paths:
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError) as error:
            raise BenchError(f"{path}: not an admission log: {error}") from error
        if not isinstance(data, list) or not all(isinstance(e, dict) and "outcome" in e for e in data):
            raise BenchError(f"{path}: not an admission log (a list of entries with an outcome)")
        entries.extend(data)
    return tuple(entries)


def percentile(values: list[float], share: float) -> float:
    """The nearest-rank percentile (no interpolation: a figure that is one task's)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, -(-int(share * 100) * len(ordered) // 100))
    return ordered[rank - 1]


def summarise(entries: tuple[dict, ...]) -> Throughput:
    tried = [e for e in entries if e["outcome"] in ("admitted", "dropped", "error")]
    admitted = [e for e in tried if e["outcome"] == "admitted"]
    timed = [e for e in admitted if e.get("phases")]
    walls = [float(e["seconds"]) for e in admitted]
    total_timed = sum(float(e["seconds"]) for e in timed)
    shares = []
    for name in PHASES:
        spent = sum(float(e["phases"].get(name, 0.0)) for e in timed)
        shares.append((name, round(spent / total_timed, 3) if total_timed else 0.0))
    shares.append(("other", round(1.0 - sum(share for _, share in shares), 3) if total_timed else 0.0))
    tests = [float(e["phases"].get("tests", 0.0)) for e in timed]
    ratios = [float(e["seconds"]) / float(e["phases"]["tests"]) for e in timed if e["phases"].get("tests")]
    return Throughput(
        tried=len(tried), admitted=len(admitted), timed_admitted=len(timed),
        median_seconds=percentile(walls, 0.5), p90_seconds=percentile(walls, 0.9),
        seconds_per_admitted_all_attempts=round(sum(float(e["seconds"]) for e in tried) / len(admitted), 1)
        if admitted else 0.0,
        phase_share=tuple(shares), tests_median_seconds=percentile(tests, 0.5),
        wall_over_tests_median=round(percentile(ratios, 0.5), 2),
    )
