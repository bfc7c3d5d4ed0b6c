"""Judging one candidate: apply a model's reply to a working tree, run the tests in the sandbox, grade.

Also the failure signature of the observed state and, from bench.score.feedback, what each feedback condition
of the repair loop tells the model about it.
"""

from __future__ import annotations

import shutil
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

from bench import pyast
from bench.attempt import DEFAULT_EDIT_FORMAT
from bench.errors import EditError
from bench.sandbox.cleanup import tree_scratch
from bench.loop.signature import candidate_digest, failure_signature, top_error_line
from bench.probes.verify import Verification
# clean_text and full_feedback are also read from here (bench check, predictions)
from bench.score.feedback import clean_text, count_feedback, full_feedback, invalid_edit_feedback  # noqa: F401
from bench.score.spare_core import busy
from bench.score.task_env import PreparedTask, limits_for
from bench.verdict.grade import Verdict, grade
from bench.verdict.run_tests import GuardRequest, run_tests


@dataclass(frozen=True)
class Evaluation:
    outcome: str  # solved | model_miss | tampered | invalid_edit
    reason: str
    verdict: Verdict | None  # None for invalid_edit
    edited_files: tuple[str, ...]
    diff: str
    candidate_digest: str  # "" when nothing applied
    compiles: bool
    failing: tuple[str, ...]
    signature: str
    feedback_full: str
    feedback_count: str
    # The verified tier's check of a resolved candidate (bench.probes.verify); None when not resolved or off.
    verification: Verification | None = None

    @property
    def resolved(self) -> bool:
        """Solved and no pass_to_pass test broken: the headline."""
        return self.verdict is not None and self.verdict.resolved

    @property
    def verified(self) -> bool | None:
        """Resolved and every probe answered as the reference does; None when the tier did not run."""
        return None if self.verification is None else self.verification.verified


def source_snapshot(tree: Path, paths: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    out = []
    for rel in paths:
        path = tree / rel
        out.append((rel, path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""))
    return tuple(out)


def apply_reply(tree: Path, reply: str, allowed: tuple[str, ...], edit_format: str = DEFAULT_EDIT_FORMAT):
    """Parse and apply a reply in ``edit_format`` (bench.attempt.formats), all or nothing; EditError when
    invalid."""
    from bench.attempt.formats import edit_format as format_named

    return format_named(edit_format).apply(tree, reply, allowed)


def evaluate(task: PreparedTask, tree: Path, reply: str, *, cache=None, fresh_copy: bool = True,
             scan: bool = True, edit_format: str = DEFAULT_EDIT_FORMAT, verify: bool = True) -> Evaluation:
    """Apply `reply` to `tree` (edited in place) and judge the result. `fresh_copy=False` lets the tests run
    in `tree` itself, for callers that throw the tree away afterwards. A resolved candidate then replays the
    task's probes (the verified tier) unless `verify` is False."""
    spec = task.spec
    try:
        applied = apply_reply(tree, reply, spec.source_files, edit_format)
    except EditError as exc:
        return _invalid(task, tree, exc)
    sources = source_snapshot(tree, spec.source_files)
    # The replay starts beside the test run, once the static scan has passed the edit (nothing of a flagged edit
    # runs anywhere).
    clean = not scan or not scan_findings(task, sources)
    verification = begin_verification(task, sources, cache=cache) if verify and clean else None
    with busy():
        verdict = judge(task, tree, sources, cache=cache, fresh_copy=fresh_copy, scan=scan)
    verified = verification() if verification is not None and verdict.resolved else None
    return _evaluation(task, verdict, sources, tuple(c.path for c in applied.files), applied.diff, verified)


def begin_verification(task: PreparedTask, sources, *, cache=None):
    """The verified tier's check, started beside the test run (bench.score.probe_sets.begin_verification)."""
    from bench.score.probe_sets import begin_verification as begin

    return begin(task, sources, cache=cache)


def verify_resolved(task: PreparedTask, verdict: Verdict, sources, *, cache=None) -> Verification | None:
    """The verified tier's check of a resolved candidate (None for any other verdict)."""
    if not verdict.resolved:
        return None
    from bench.score.probe_sets import verify_candidate

    return verify_candidate(task, sources, cache=cache)


def judge(task: PreparedTask, tree: Path, sources, *, cache=None, fresh_copy: bool = True,
          scan: bool = True) -> Verdict:
    """Scan the edit, run the tests guarded and grade; cached by content. Tests may write files, so by
    default they run in a fresh copy of `tree` and the tree itself stays exactly as the edits left it.

    `sources` are the candidate's source files; the task's pristine tree is the base they are compared with:
    what the edit adds is scanned statically (bench.verdict.edit_scan) before anything of it runs, and its
    changed lines tell the run's audit guard which calls are the edit's own (bench.verdict.guard).
    `scan=False` leaves the static scan out: the red-team suite uses it to show what the run-time layers stop
    on their own."""
    from bench.verdict.guard import changed_lines
    from bench.verdict.masks import task_packages

    spec = task.spec
    base = source_snapshot(task.pristine, spec.source_files)
    findings = scan_findings(task, sources)
    if findings and scan:
        return tampered_by_scan(spec, findings)
    key = None
    if cache is not None:
        key = cache.key({**task.verdict_key(), "candidate": candidate_digest(sources), "kind": "verdict-v3",
                         "scan": scan})
        hit = cache.get(key)
        if hit is not None:
            return verdict_from_json(hit)
    # A scratch folder only for a fresh copy: on a disk mounted with discard an unused one costs milliseconds.
    with tree_scratch(tree, "bench-run-") if fresh_copy else nullcontext() as scratch:
        run_dir = Path(scratch) / "work" if fresh_copy else tree
        if fresh_copy:
            shutil.copytree(tree, run_dir, symlinks=True)
        changed = tuple(sorted((p, tuple(lines)) for p, lines in changed_lines(base, sources).items()))
        run = run_tests(task.run_environment, workdir=run_dir, test_files=spec.test_files, limits=limits_for(spec),
                        guard=GuardRequest(changed, task_packages(spec.source_files), task.allowed_rules,
                                           task.content_masks, tuple(spec.source_files),
                                           tuple(spec.fail_to_pass)))
    verdict = grade(task.spec, run)
    if cache is not None and key is not None:
        cache.put(key, verdict_to_json(verdict))
    return verdict


def scan_findings(task: PreparedTask, sources) -> tuple:
    """What the static edit scan flags in the candidate's source files, less the rules lifted for the task."""
    from bench.verdict.edit_scan import scan_edit

    spec = task.spec
    base = source_snapshot(task.pristine, spec.source_files)
    findings = scan_edit(base, sources, test_names=spec.fail_to_pass + spec.pass_to_pass + spec.test_files)
    return tuple(f for f in findings if f.rule not in task.allowed_rules)


def tampered_by_scan(spec, findings) -> Verdict:
    reason = "edit scan: " + "; ".join(f.describe() for f in findings)
    return Verdict("tampered", reason, (), tuple(spec.fail_to_pass), (), None, "", "")


def verdict_to_json(verdict: Verdict) -> bytes:
    from dataclasses import asdict

    from bench.store.canonical import canonical_json

    return canonical_json(asdict(verdict))


def verdict_from_json(raw: bytes) -> Verdict:
    import json

    data = json.loads(raw)
    return Verdict(**{k: _tuples(v) for k, v in data.items()})


def _tuples(value):
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def _evaluation(task, verdict: Verdict, sources, edited, diff, verification=None) -> Evaluation:
    compiles = all(pyast.compiles(text, path) for path, text in sources if path.endswith(".py"))
    failing = tuple(sorted(set(verdict.still_failing) | set(verdict.pass_to_pass_broken)))
    details = verdict.failures
    return Evaluation(
        outcome=verdict.outcome, reason=verdict.reason, verdict=verdict, edited_files=edited, diff=diff,
        candidate_digest=candidate_digest(sources), compiles=compiles, failing=failing,
        signature="" if verdict.resolved else failure_signature(compiles, failing, _signed_line(verdict)),
        feedback_full=full_feedback(verdict, details), feedback_count=count_feedback(verdict, task.spec),
        verification=verification,
    )


def _signed_line(verdict: Verdict) -> str:
    """The error line a failing state is known by: the first failure's. A run whose report was unusable is
    known by why: the log tail it leaves ends wherever a runaway writer stood when the bound was passed, which
    differs between two runs of the same code."""
    if verdict.report_unusable:
        return verdict.reason
    for _, _, message, detail in verdict.failures:
        top = top_error_line(detail) or message
        if top:
            return top
    return ""


def _invalid(task: PreparedTask, tree: Path, exc: EditError) -> Evaluation:
    text = invalid_edit_feedback(exc.reason, str(exc))
    return Evaluation(
        outcome="invalid_edit", reason=str(exc), verdict=None, edited_files=(), diff="", candidate_digest="",
        compiles=True, failing=(), signature="", feedback_full=text, feedback_count=text,
    )

