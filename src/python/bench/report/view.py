"""`bench view`: a run as static HTML pages, one per task, linked from a summary page. No server, no script.

``index.html`` lists every unit (task, condition, sample) with its outcome or convergence class, whether it
resolved, and its turns, each row linking to the task's page. A task's page shows every unit of the task and,
per turn, the outcome, the failure signature, the failing tests, the edit as a diff of that turn's change and
the tests' messages as the built-in loop's full feedback gives them (a unit of the count-only or resample
condition says its model never saw them) — read from the run's ``units/`` folder,
which the runner writes beside the records. A run without it (older, or a committed folder, which keeps no
diffs of real-code tasks) shows the records alone. Pages quote diffs only, never whole files. Records are
``bench.loop.records.UnitRecord``; a single attempt shows as one turn.
"""

from __future__ import annotations

import html
import json
from collections import defaultdict
from pathlib import Path
from typing import Sequence

from bench.loop.records import NO_CANDIDATE_OUTCOMES, TurnRecord, UnitRecord
from bench.report.html import CSS

VIEW_CSS = CSS + """
pre { background: #f6f8fa; border: 1px solid #e4e8ec; padding: .6rem .8rem; overflow-x: auto; font-size: .85rem;
      line-height: 1.35; white-space: pre; }
.diff .add { color: #116329; background: #dafbe1; display: inline-block; width: 100%; }
.diff .del { color: #82071e; background: #ffebe9; display: inline-block; width: 100%; }
.diff .hunk { color: #0550ae; }
.tag { display: inline-block; padding: .05rem .45rem; border-radius: 10px; font-size: .82rem; font-weight: 600; }
.ok { background: #dafbe1; color: #116329; } .bad { background: #ffebe9; color: #82071e; }
.other { background: #eaeef2; color: #424a53; }
.turn { border-left: 3px solid #d0d7de; padding-left: .9rem; margin: 1rem 0 1.6rem; }
.muted { color: #57606a; font-size: .9rem; }
.not-shown { background: #fff8c5; border-left: 3px solid #d4a72c; padding: .3rem .6rem; font-size: .9rem; }
"""


def write_view(records: Sequence[UnitRecord], run_dir: Path, out_dir: Path) -> Path:
    """Write ``out_dir/index.html`` and ``out_dir/tasks/<task_id>.html``; returns the index's path."""
    from bench.store.atomic import write_atomic

    by_task: dict[str, list[UnitRecord]] = defaultdict(list)
    for record in records:
        by_task[record.task_id].append(record)
    for task_id, units in sorted(by_task.items()):
        units.sort(key=lambda r: (r.model, r.condition, r.sample))
        page = _task_page(task_id, units, run_dir)
        write_atomic(out_dir / "tasks" / f"{_file_name(task_id)}.html", page.encode("utf-8"))
    index = out_dir / "index.html"
    write_atomic(index, _index_page(by_task, run_dir).encode("utf-8"))
    return index


def _file_name(task_id: str) -> str:
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in task_id)


def _page(title: str, body: str) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>{html.escape(title)}</title>\n<style>\n{VIEW_CSS}\n</style>\n</head>\n<body>\n{body}\n"
            "</body>\n</html>\n")


def _verdict(record: UnitRecord) -> str:
    return (record.convergence_class or record.outcome).value


def _tag(record: UnitRecord) -> str:
    text, resolved = _verdict(record), bool(record.resolved)
    kind = "ok" if resolved else ("other" if text == "infrastructure_error" else "bad")
    return f'<span class="tag {kind}">{html.escape(text)}</span>'


def _verified(record: UnitRecord) -> str:
    """The verified tier of a resolved unit: yes, no (a probe diverged), no probes; "" when it did not run."""
    return {"verified": "yes", "diverged": "no", "no probes": "no probes"}.get(record.verification or "", "")


def _index_page(by_task: dict, run_dir: Path) -> str:
    rows = []
    counts: dict[str, int] = defaultdict(int)
    for task_id, units in sorted(by_task.items()):
        for record in units:
            counts[_verdict(record)] += 1
            link = f'<a href="tasks/{_file_name(task_id)}.html">{html.escape(task_id)}</a>'
            rows.append(f"<tr><td>{link}</td><td>{html.escape(record.condition)}</td>"
                        f"<td class=\"num\">{record.sample}</td><td>{_tag(record)}</td>"
                        f"<td>{'yes' if record.resolved else 'no'}</td><td>{_verified(record)}</td>"
                        f"<td class=\"num\">{len(record.turns or ()) or 1}</td></tr>")
    summary = ", ".join(f"{html.escape(k)} {v}" for k, v in sorted(counts.items()))
    units = sum(len(u) for u in by_task.values())
    body = (f"<h1>Run {html.escape(run_dir.name)}</h1>\n<p>{units} units of {len(by_task)} tasks: {summary}.</p>\n"
            "<div class=\"table-block\"><table><thead><tr><th>task</th><th>condition</th><th class=\"num\">sample"
            "</th><th>outcome / class</th><th>resolved</th><th>verified</th><th class=\"num\">turns</th></tr></thead>"
            "<tbody>\n"
            + "\n".join(rows) + "\n</tbody></table></div>")
    return _page(f"Run {run_dir.name}", body)


def _task_page(task_id: str, units: list[UnitRecord], run_dir: Path) -> str:
    parts = [f'<p><a href="../index.html">← all tasks</a></p>\n<h1>{html.escape(task_id)}</h1>']
    for record in units:
        parts.append(f"<h2>{html.escape(record.model)} · {html.escape(record.condition)} · "
                     f"sample {record.sample} {_tag(record)}</h2>")
        reason = record.class_reason or record.reason or ""
        if reason:
            parts.append(f'<p class="muted">{html.escape(reason)}</p>')
        if record.verification:
            parts.append(f"<p>Verified tier: {html.escape(_verified(record))}"
                         + (f"; first divergence: <code>{html.escape(record.divergence)}</code>"
                            if record.divergence else "") + "</p>")
        detail = _detail(run_dir, record)
        for turn in record.turns or (_as_turn(record),):
            parts.append(_turn(turn.turn, turn, detail.get(turn.turn, {}), record.condition))
        if not detail:
            parts.append('<p class="muted">No diffs or test messages were kept for this unit (the run\'s units/ '
                         "folder is absent).</p>")
    return _page(task_id, "\n".join(parts))


def _as_turn(record: UnitRecord) -> TurnRecord:
    """A single attempt (or a loop that never had a turn) shown as its one turn."""
    return TurnRecord(turn=1, outcome=record.outcome, resolved=record.resolved,
                      failing=record.still_failing or ())


def _detail(run_dir: Path, record: UnitRecord) -> dict[int, dict]:
    from bench.store.records import detail_path

    path = detail_path(run_dir, record.task_id, record.model, record.condition, record.sample)
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return {int(turn["turn"]): turn for turn in data.get("turns", ())}


# What the model was shown of the test output, by condition, where it is not the full output this page quotes.
NOT_SHOWN = {
    "count-only": "The model did not see this output: under the count-only condition it was told only how many "
                  "tests still fail, of how many (or that its edit was rejected as tampering).",
    "resample": "The model did not see this output: resampling draws each attempt afresh, with no feedback.",
}


def _turn(number: int, turn: TurnRecord, detail: dict, condition: str = "full") -> str:
    failing = turn.failing
    lines = [f'<div class="turn"><h3>Turn {number}: {html.escape(turn.outcome.value)}'
             f'{" (resolved)" if turn.resolved else ""}</h3>']
    if turn.signature:
        lines.append(f'<p class="muted">signature <code>{html.escape(turn.signature)}</code></p>')
    if failing:
        items = "".join(f"<li><code>{html.escape(test)}</code></li>" for test in failing[:30])
        more = f"<li>… and {len(failing) - 30} more</li>" if len(failing) > 30 else ""
        lines.append(f"<p>Failing tests:</p><ul>{items}{more}</ul>")
    if detail.get("diff"):
        lines.append(f'<p>The edit:</p><pre class="diff">{_diff_html(detail["diff"])}</pre>')
    if detail.get("feedback"):
        lines.append("<p>What the tests said (the full output):</p>")
        if condition in NOT_SHOWN and turn.outcome not in NO_CANDIDATE_OUTCOMES:  # an unusable edit's message
            # is the same under every condition
            lines.append(f'<p class="not-shown">{html.escape(NOT_SHOWN[condition])}</p>')
        lines.append(f"<pre>{html.escape(detail['feedback'])}</pre>")
    lines.append("</div>")
    return "\n".join(lines)


def _diff_html(diff: str) -> str:
    out = []
    for line in diff.splitlines():
        escaped = html.escape(line)
        if line.startswith("+") and not line.startswith("+++"):
            out.append(f'<span class="add">{escaped}</span>')
        elif line.startswith("-") and not line.startswith("---"):
            out.append(f'<span class="del">{escaped}</span>')
        elif line.startswith("@@"):
            out.append(f'<span class="hunk">{escaped}</span>')
        else:
            out.append(escaped)
    return "\n".join(out)
