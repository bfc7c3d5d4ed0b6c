"""The table `bench score` prints at the end: solve rates with 95 % Wilson intervals and outcome counts."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Iterable, Sequence

from bench.loop.records import CLASSES, OUTCOMES
from bench.report.stats import pass_at_k, wilson_interval


def summary_lines(records: Sequence[dict]) -> list[str]:
    lines: list[str] = []
    attempts = [r for r in records if r["kind"] == "attempt"]
    loops = [r for r in records if r["kind"] in ("loop", "resample")]
    if attempts:
        lines += _attempt_table(attempts)
    if loops:
        lines += _loop_table(loops)
    from bench.report.prompts import console_lines  # it reads resolved() from here
    from bench.report.tiers import tier_line

    if any(r.get("verification") for r in records):
        lines += ["", tier_line(records)]
    return lines + console_lines(records)


def _rate(solved: int, n: int) -> str:
    if n == 0:  # nothing scored (every unit an infrastructure error): no rate, as the report shows it
        return f"{solved:>4}/{n:<4} {'–':>6}  {'–':<16}"
    ci = wilson_interval(solved, n)
    share = solved / n if n else 0.0
    return f"{solved:>4}/{n:<4} {share:6.1%}  [{ci.low:5.1%}, {ci.high:5.1%}]"


def resolved(record: dict) -> bool:
    """Solved and no pass_to_pass test broken (records made before the field existed: derived)."""
    if "resolved" in record:
        return bool(record["resolved"])
    return record.get("outcome") == "solved" and not record.get("pass_to_pass_broken")


def _attempt_table(records: Sequence[dict]) -> list[str]:
    groups = defaultdict(list)
    for r in records:
        groups[r["library"]].append(r)
    header = f"{'library':<22} {'resolved/n':>9}  {'rate':>6}  {'95% Wilson':<16} " + " ".join(
        f"{o[:10]:>10}" for o in OUTCOMES)
    lines = ["", header, "-" * len(header)]
    for name, rows in sorted(groups.items()) + [("overall", list(records))]:
        counts = Counter(r["outcome"] for r in rows)
        scored = [r for r in rows if r["outcome"] != "infrastructure_error"]
        lines.append(f"{name:<22} {_rate(sum(resolved(r) for r in scored), len(scored))} "
                     + " ".join(f"{counts[o]:>10}" for o in OUTCOMES))
    samples = max(r["sample"] for r in records) + 1
    if samples > 1:
        lines.append(f"pass@k over {samples} samples per task: " + ", ".join(
            f"pass@{k}={_mean_pass_at_k(records, samples, k):.3f}" for k in sorted({1, samples})))
    return lines


def _mean_pass_at_k(records: Iterable[dict], n: int, k: int) -> float:
    solved_by_task: dict[str, int] = Counter()
    tasks = set()
    for r in records:
        tasks.add(r["task_id"])
        solved_by_task[r["task_id"]] += resolved(r)
    return sum(pass_at_k(n, solved_by_task[t], k) for t in tasks) / len(tasks)


def _loop_table(records: Sequence[dict]) -> list[str]:
    header = f"{'condition':<12} {'converged/n':>11}  {'rate':>6}  {'95% Wilson':<16} " + " ".join(
        f"{c:>11}" for c in CLASSES) + f" {'infra':>6}"
    lines = ["", header, "-" * len(header)]
    by_condition = defaultdict(list)
    for r in records:
        by_condition[r["condition"]].append(r)
    for condition in sorted(by_condition, key=lambda c: ("full", "count-only", "resample").index(c)
                            if c in ("full", "count-only", "resample") else 9):
        rows = by_condition[condition]
        infra = sum(r.get("outcome") == "infrastructure_error" for r in rows)
        usable = [r for r in rows if r.get("outcome") != "infrastructure_error"]
        counts = Counter(r.get("class") for r in usable)
        lines.append(f"{condition:<12} {_rate(counts['CONVERGED'], len(usable))} "
                     + " ".join(f"{counts[c]:>11}" for c in CLASSES) + f" {infra:>6}")
    return lines
