"""From a test run to a verdict, exactly as docs/ARCHITECTURE.md §2 defines the outcomes.

solved       every fail_to_pass test executed and passed (skipped or xfailed is not passed)
model_miss   the edit applied but a target still fails, or the edit broke collection / the run, or the run
             left no usable report (none, malformed, oversized: the code under test wrote it)
tampered     the edit was caught trying to influence the verdict (the static edit scan before the run, or the
             audit guard or a canary test during it); never solved, always in the denominator
invalid_edit / model_timeout / infrastructure_error are decided before tests run (see bench.score). The outcomes
are ``bench.loop.records.Outcome``, defined with the record that holds them.

``resolved`` (the headline, as SWE-bench defines it) is solved *and* no pass_to_pass test broken.
"""

from __future__ import annotations

from dataclasses import dataclass

from bench.spec.model import TaskSpec
from bench.verdict.run_tests import PYTEST_OK, PYTEST_TESTS_FAILED, TestRun


UNUSABLE_REPORT = "unusable test report: "


@dataclass(frozen=True)
class Verdict:
    outcome: str
    reason: str
    results: tuple[tuple[str, str], ...]  # (test id, outcome) for the task's target and guard tests
    still_failing: tuple[str, ...]  # fail_to_pass tests not passed
    pass_to_pass_broken: tuple[str, ...]
    exit_code: int | None
    junit_sha256: str
    log_sha256: str
    # (test id, outcome, message, failure text) of what did not pass: the material for feedback
    failures: tuple[tuple[str, str, str, str], ...] = ()

    @property
    def solved(self) -> bool:
        return self.outcome == "solved"

    @property
    def resolved(self) -> bool:
        return self.outcome == "solved" and not self.pass_to_pass_broken

    @property
    def report_unusable(self) -> bool:
        """The run left a report that could not be read: its failures hold the log's tail, cut wherever the
        output happened to stand when the report grew past its bound."""
        return self.reason.startswith(UNUSABLE_REPORT)


def grade(spec: TaskSpec, run: TestRun) -> Verdict:
    def verdict(outcome: str, reason: str, results=(), failing=spec.fail_to_pass, broken=()) -> Verdict:
        return Verdict(outcome, reason, tuple(results), tuple(failing), tuple(broken), run.exit_code,
                       run.junit_sha256, run.log_sha256, _failures(run, set(failing) | set(broken)))

    if run.tampering:
        return verdict("tampered", "; ".join(run.tampering))
    if run.timed_out:
        return verdict("model_miss", "tests timed out")
    if run.oom_killed:
        return verdict("model_miss", "tests ran out of memory")
    if run.report is None:
        if run.report_problem:
            return verdict("model_miss", UNUSABLE_REPORT + run.report_problem)
        return verdict("model_miss", f"no test report (pytest exit {run.exit_code}): collection or run broken")
    by_id = run.report.by_id()
    watched = spec.fail_to_pass + spec.pass_to_pass
    results = tuple((t, by_id[t].outcome if t in by_id else "missing") for t in watched)
    failing = tuple(t for t in spec.fail_to_pass if t not in by_id or by_id[t].outcome != "passed")
    broken = tuple(t for t in spec.pass_to_pass if t not in by_id or by_id[t].outcome != "passed")
    if run.exit_code not in (PYTEST_OK, PYTEST_TESTS_FAILED):
        return verdict("model_miss", f"pytest exit {run.exit_code}", results, spec.fail_to_pass, broken)
    if failing:
        missing = sum(1 for t in failing if t not in by_id)
        why = f"{len(failing)} of {len(spec.fail_to_pass)} target tests not passed"
        return verdict("model_miss", why + (f" ({missing} not executed)" if missing else ""), results, failing,
                       broken)
    if run.tampering_if_solved:
        return verdict("tampered", "; ".join(run.tampering_if_solved), results, (), broken)
    return verdict("solved", "all target tests passed", results, (), broken)


def _failures(run: TestRun, wanted: set[str]) -> tuple[tuple[str, str, str, str], ...]:
    if run.report is None:
        return (("<run>", "error", f"pytest exit {run.exit_code}", run.log_tail),) if run.log_tail else ()
    found = [(o.test_id, o.outcome, o.message, o.detail) for o in run.report.outcomes if o.test_id in wanted]
    found += [(o.test_id, o.outcome, o.message, o.detail) for o in run.report.collection_errors]
    return tuple(found)
