"""The top of a report: one headline sentence (what the run found) and the run's settings (what was run).

The headline counts as the tables below it do: infrastructure errors are excluded, a loop counts when it
converged (some turn resolved the task), an attempt when it resolved. The settings come from the records (models,
tasks, conditions, turns, samples, benchmark commits) and, when the report is built from a run's folder, from
its ``run.json`` and ``summary.json`` (:class:`RunInfo`): the task selector and the date the run was written.
Without a date of its own, a run is dated by its benchmark commits when the checkout knows them.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from bench.report import study
from bench.report.document import Block, Paragraph, Table
from bench.report.runs import RecordSet

CONDITION_PHRASES = {
    study.FULL: "with full feedback",
    study.COUNT_ONLY: "with the failure count only",
    study.RESAMPLE: "by best-of-{budget} resampling",
}
SHOWN_COMMITS = 3


@dataclass(frozen=True)
class RunInfo:
    """What a run's folder says about it besides its records (all optional)."""

    settings: Mapping[str, Any] | None = None  # run.json
    selector: str | None = None  # summary.json's selection: the task selector the run was given
    date: str | None = None  # summary.json's "written" (UTC), the day the run's summary was last written
    interrupted: bool = False
    commit_dates: tuple[tuple[str, str], ...] = ()  # (benchmark commit, its date) the checkout knows


def read_run_info(run_dir: Path | None, commits: Sequence[str] = (), root: Path | None = None) -> RunInfo:
    """The run.json and summary.json of ``run_dir`` (either may be missing) and the dates of ``commits`` in the
    git history around ``root`` (default: ``run_dir``; none outside a git checkout)."""
    settings = summary = None
    if run_dir is not None:
        settings = _json(run_dir / "run.json")
        summary = _json(run_dir / "summary.json")
    selection = (summary or {}).get("selection") or {}
    written = (summary or {}).get("written")
    return RunInfo(settings=settings, selector=selection.get("selector") if isinstance(selection, dict) else None,
                   date=str(written)[:10] if written else None, interrupted=bool((summary or {}).get("interrupted")),
                   commit_dates=commit_dates(commits, root or run_dir))


def commit_dates(commits: Sequence[str], root: Path | None) -> tuple[tuple[str, str], ...]:
    """(commit, committer date YYYY-MM-DD) for each commit the git history of ``root`` holds."""
    import subprocess

    if root is None or not Path(root).is_dir():
        return ()
    found = []
    for commit in sorted(set(commits)):
        if not commit:
            continue
        done = subprocess.run(["git", "show", "-s", "--format=%cs", commit, "--"], cwd=root, capture_output=True,
                              text=True)
        if done.returncode == 0 and done.stdout.strip():
            found.append((commit, done.stdout.strip().splitlines()[0]))
    return tuple(found)


def headline(record_set: RecordSet) -> str:
    """One sentence per model: its loops' convergence per condition, then its single attempts' resolved rate."""
    sentences = []
    models = sorted({run.model for run in record_set.loops} | {run.model for run in record_set.attempts})
    for model in models:
        parts = []
        loops = [run for run in record_set.loops if run.model == model]
        usable = study.usable(loops)
        for condition in study.ordered_conditions(run.condition for run in loops):
            runs = [run for run in usable if run.condition == condition]
            budget = study.horizon(runs)
            phrase = CONDITION_PHRASES.get(condition, f"under `{condition}`").format(budget=budget)
            parts.append(f"{_share(sum(run.converged for run in runs), len(runs), 'runs')} {phrase}")
        if loops:
            turns = study.horizon(loops)
            parts[-1] += f" (at most {turns} turn{'s' * (turns != 1)} each)"
        attempts = [run for run in record_set.attempts if run.model == model]
        scored = [run for run in attempts if run.outcome != "infrastructure_error"]
        if attempts:
            parts.append(_share(sum(run.resolved for run in scored), len(scored), "single attempts"))
        verb = "converged or resolved in" if loops and attempts else ("converged in" if loops else "resolved")
        excluded = (len(loops) - len(usable)) + (len(attempts) - len(scored))
        note = f"; {excluded} unit{'s' * (excluded != 1)} hit infrastructure errors and are not counted" \
            if excluded else ""
        sentences.append(f"`{model}` {verb} {_join(parts)}{note}.")
    return " ".join(sentences)


def settings_table(record_set: RecordSet, records: Sequence[Mapping[str, Any]], info: RunInfo) -> Table:
    """The run's settings, one row each: model, selection, turns, conditions, samples, date, benchmark commit."""
    settings = info.settings or {}
    units = [r for r in records if r.get("kind") in ("attempt", "loop", "resample")]
    models = sorted({str(r.get("model")) for r in units}) or ([str(settings["model"])] if settings.get("model") else [])
    rows = [("model", ", ".join(f"`{m}`" for m in models) or "–")]
    rows.append(("selection", _selection(units, info)))
    loops = list(record_set.loops)
    turns = settings.get("turns", study.horizon(loops))
    rows.append(("turns", "single attempts" if not turns else f"{turns} per loop"
                 + (" (and single attempts)" if record_set.attempts else "")))
    conditions = study.ordered_conditions({str(r.get("condition", "single")) for r in units})
    rows.append(("conditions", ", ".join(f"`{c}`" for c in conditions) or "–"))
    samples = settings.get("samples", max((int(r.get("sample", 0)) + 1 for r in units), default=0))
    rows.append(("samples per task", str(samples)))
    if settings.get("controller"):
        rows.append(("controller", f"`{settings['controller']}`"))
    rows.append(("date", _date(info)))
    rows.append(("benchmark commit", _commits(units)))
    return Table(("setting", "value"), tuple(rows), caption="Run settings", numeric=(False, False))


def header_blocks(record_set: RecordSet, records: Sequence[Mapping[str, Any]], info: RunInfo) -> list[Block]:
    """The headline and the settings; nothing without a loop or an attempt (the report says so below)."""
    if not record_set.loops and not record_set.attempts:
        return []
    return [Paragraph(headline(record_set)), settings_table(record_set, records, info)]


def _selection(units: Sequence[Mapping[str, Any]], info: RunInfo) -> str:
    kind_of = {str(r.get("task_id")): str(r.get("task_kind", "?")) for r in units}
    tasks, kinds = set(kind_of), Counter(kind_of.values())
    libraries = {str(r.get("library")) for r in units if r.get("library") not in (None, "", "unknown", "synthetic")}
    by_kind = ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items()))
    text = f"{len(tasks)} task{'s' * (len(tasks) != 1)} ({by_kind})"
    if libraries:
        text += f" of {len(libraries)} librar{'ies' if len(libraries) != 1 else 'y'}"
    if info.selector:
        text = f"`{info.selector}`: {text}"
    return text


def _date(info: RunInfo) -> str:
    if info.date:
        return f"{info.date} (summary written{', run interrupted' if info.interrupted else ''})"
    dates = sorted({date for _, date in info.commit_dates})
    if not dates:
        return "not recorded"
    span = dates[0] if len(dates) == 1 else f"{dates[0]} to {dates[-1]}"
    return f"not recorded; benchmark commit{'s' * (len(info.commit_dates) != 1)} of {span}"


def _commits(units: Sequence[Mapping[str, Any]]) -> str:
    counts = Counter(str((r.get("integrity") or {}).get("benchmark_commit") or "") for r in units)
    counts.pop("", None)
    if not counts:
        return "not recorded"
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    if len(ranked) == 1:
        return f"`{ranked[0][0][:12]}`"
    shown = ", ".join(f"`{commit[:12]}` ({count} units)" for commit, count in ranked[:SHOWN_COMMITS])
    more = f", and {len(ranked) - SHOWN_COMMITS} more" if len(ranked) > SHOWN_COMMITS else ""
    return f"{shown}{more}"


def _share(count: int, total: int, things: str) -> str:
    return f"{count} of {total} {things} ({100.0 * count / total:.1f} %)" if total else f"0 of 0 {things}"


def _join(parts: Sequence[str]) -> str:
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def _json(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
