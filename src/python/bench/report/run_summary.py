"""What a finished run says for scripts and people: ``summary.json`` beside its records, and the lines naming
the units that hit infrastructure errors (which make ``bench score`` exit 3).

``summary.json`` (canonical JSON, rewritten at the end of every run and resume, and when a run is interrupted,
for the units finished so far): the model, the selection (the task selector, ``null`` for the whole pool or
predictions, and the number of tasks planned), when it was written and whether the run was interrupted, units by
outcome, figures per condition (units, scored, resolved, rate and Wilson 95 % interval, errored, and a loop's
classes), the ids of resolved, solved and verified units, the tiers (``bench.report.tiers``: solved ⊇ resolved
⊇ verified), errored units with their reasons, tokens, the run's wall time, and cost when the endpoint reported
one (no provider here reports cost yet: ``null``). A unit is ``task_id/condition/sample``.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Sequence

INFRA = "infrastructure_error"
SHOWN_ERRORS = 10  # distinct reasons printed; the rest are counted in one line


def unit_name(record: dict) -> str:
    return f"{record['task_id']}/{record.get('condition', 'single')}/{record.get('sample', 0)}"


def errored(record: dict) -> bool:
    """The unit (or one turn of its loop) hit an infrastructure error: not a model failure, not scored."""
    return record.get("outcome") == INFRA or any(t.get("outcome") == INFRA for t in record.get("turns") or ())


def error_reason(record: dict) -> str:
    reasons = [record.get("reason", "")] + [t.get("reason", "") for t in record.get("turns") or ()
                                            if t.get("outcome") == INFRA]
    return next((r for r in reasons if r), "no reason recorded")


def run_summary(records: Sequence[dict], *, ran: int, resumed: int, wall_seconds: float,
                selection: dict | None = None, interrupted: bool = False, now: float | None = None) -> dict:
    from bench.report.console import resolved
    from bench.report.tiers import tiers

    outcomes = Counter(r.get("class") or r.get("outcome", "") for r in records)
    tokens = sum(_tokens(r) for r in records)
    models = sorted({str(r.get("model", "")) for r in records})
    return {
        "model": models[0] if len(models) == 1 else models,
        "selection": selection if selection is not None else {"selector": None, "tasks": len(
            {r.get("task_id") for r in records})},
        "written": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now)), "interrupted": interrupted,
        "units": len(records), "ran_now": ran, "resumed": resumed, "wall_seconds": round(wall_seconds, 1),
        "by_condition": by_condition(records),
        "by_outcome": dict(sorted(outcomes.items())),
        "resolved": sorted(unit_name(r) for r in records if resolved(r) and not errored(r)),
        "solved": sorted(unit_name(r) for r in records if solved(r) and not errored(r)),
        "verified": sorted(unit_name(r) for r in records if r.get("verification") == "verified" and not errored(r)),
        "tiers": tiers(records).to_json(),
        "errored": {unit_name(r): error_reason(r) for r in sorted(records, key=unit_name) if errored(r)},
        "tokens": tokens, "cost": None,
    }


def by_condition(records: Sequence[dict]) -> dict:
    """Per condition (``single`` for attempts): units, scored (no infrastructure error), resolved (for a loop:
    converged), the rate and its Wilson 95 % interval (null when nothing was scored), errored units, and the
    classes of loops and resampling runs."""
    from bench.report.console import resolved
    from bench.report.stats import wilson_interval

    groups: dict[str, list[dict]] = {}
    for record in records:
        groups.setdefault(str(record.get("condition", "single")), []).append(record)
    figures = {}
    for condition, members in sorted(groups.items()):
        scored = [r for r in members if not errored(r)]
        done = sum(resolved(r) for r in scored)
        interval = wilson_interval(done, len(scored)) if scored else None
        entry = {"units": len(members), "scored": len(scored), "resolved": done,
                 "rate": round(done / len(scored), 4) if scored else None,
                 "ci95": [round(interval.low, 4), round(interval.high, 4)] if interval else None,
                 "errored": len(members) - len(scored)}
        classes = Counter(r["class"] for r in scored if r.get("class"))
        if classes:
            entry["classes"] = dict(sorted(classes.items()))
        figures[condition] = entry
    return figures


def write_summary(out_dir: Path, summary: dict) -> Path:
    from bench.store.atomic import write_atomic
    from bench.store.canonical import canonical_json

    path = out_dir / "summary.json"
    write_atomic(path, canonical_json(summary) + b"\n")
    return path


def error_lines(records: Sequence[dict], out_dir: Path) -> list[str]:
    """One line per distinct reason (how many units, one of them), then how to run them again."""
    by_reason: dict[str, list[str]] = {}
    for record in records:
        if errored(record):
            by_reason.setdefault(error_reason(record), []).append(unit_name(record))
    if not by_reason:
        return []
    total = sum(len(units) for units in by_reason.values())
    lines = [f"{total} unit{'s' * (total != 1)} hit infrastructure errors (not scored):"]
    ranked = sorted(by_reason.items(), key=lambda item: (-len(item[1]), item[0]))
    for reason, units in ranked[:SHOWN_ERRORS]:
        lines.append(f"  {len(units)} × {reason.splitlines()[0][:300]}  (e.g. {units[0]})")
    if len(ranked) > SHOWN_ERRORS:
        lines.append(f"  … and {len(ranked) - SHOWN_ERRORS} other reasons (all in {out_dir / 'summary.json'})")
    lines.append(f"fix the cause, then run the same command with --retry-errors --out {out_dir} to run them again")
    return lines


def solved(record: dict) -> bool:
    """Targets passed (guards ignored): the attempt, or some turn of the loop."""
    turns = record.get("turns") or ()
    return record.get("outcome") == "solved" or any(t.get("outcome") == "solved" for t in turns)


def _tokens(record: dict) -> int:
    usage = record.get("usage") or {}
    total = int(usage.get("total_tokens") or 0)
    for turn in record.get("turns") or ():
        total += int(turn.get("worker_tokens") or 0) + int(turn.get("controller_tokens") or 0)
    return total
