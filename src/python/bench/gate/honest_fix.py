"""A task must be solvable by its own fix through the path a model's reply takes.

The static edit scan (:mod:`bench.verdict.edit_scan`) flags constructs an edit adds that tamper with the verdict
(`sys.argv`, import machinery, `globals()`, text naming `/proc/` …). A maintainer's fix that itself adds one
would be scored `tampered` when a model writes it, so a benchmark admitting it asks for an answer it refuses.
Admission scans the fix (base → fix text of the task's source files, laid out by the task's kind) and drops a
candidate it flags (``honest_fix_flagged:…``) rather than lifting the rule for it: lifting a rule such as import
machinery opens the very door the rule closes. Nothing of the task's code runs.
"""

from __future__ import annotations

from pathlib import Path

from bench.sandbox.cleanup import scratch_dir
from bench.spec.kind_registry import get_kind
from bench.spec.model import TaskSpec
from bench.verdict.allowances import allowed_rules
from bench.verdict.edit_scan import Finding, scan_edit


def honest_fix_findings(spec: TaskSpec, root: Path, *, mirror: Path | None = None) -> tuple[Finding, ...]:
    """What the edit scan flags in the task's own fix, less the rules lifted for the task by name."""
    before, after = (_source_texts(spec, side, mirror) for side in ("base", "fix"))
    found = scan_edit(before, after, test_names=spec.fail_to_pass + spec.pass_to_pass + spec.test_files)
    allowed = allowed_rules(root, spec.task_id)
    return tuple(finding for finding in found if finding.rule not in allowed)


def drop_reason(findings: tuple[Finding, ...]) -> str:
    """``honest_fix_flagged:<rule>:<detail>`` of the first finding and how many more there are."""
    first = findings[0]
    more = f" (+{len(findings) - 1} more)" if len(findings) > 1 else ""
    return f"honest_fix_flagged:{first.rule}:{first.detail} in {first.path}{more}"


def _source_texts(spec: TaskSpec, side: str, mirror: Path | None) -> tuple[tuple[str, str], ...]:
    with scratch_dir(prefix="bench-honest-fix-") as scratch:
        get_kind(spec.kind).lay_out(spec, side, scratch / side, mirror=mirror)
        return tuple((path, _text(scratch / side / path)) for path in spec.source_files)


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
