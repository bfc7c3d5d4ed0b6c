"""What each feedback condition tells a model, from verdicts graded from real JUnit reports
(docs/ARCHITECTURE.md §2 "What a model is told")."""

from __future__ import annotations

from bench.score.feedback import count_feedback, full_feedback
from bench.spec.model import Provenance, TaskSpec
from bench.verdict.grade import grade
from bench.verdict.junit import parse_junit
from bench.verdict.run_tests import TestRun

SPEC = TaskSpec(task_id="t", kind="synthetic", repo="r", source_files=("m.py",), test_files=("tests/test_m.py",),
                fail_to_pass=("tests/test_m.py::test_fix",),
                pass_to_pass=("tests/test_m.py::test_guard", "tests/test_m.py::test_other",
                              "tests/test_m.py::test_kept"),
                image="i", lockfile="l", provenance=Provenance("authored"))
TRACE = "def test_guard():\n&gt;       assert m.f(2) == 4\nE       assert 5 == 4\n\ntests/test_m.py:9: AssertionError"


def _verdict(failing=(), missing=()):
    cases = []
    for name in ("test_fix", "test_guard", "test_other", "test_kept"):
        if name in missing:
            continue
        failure = f'<failure message="assert 5 == 4">{TRACE}</failure>' if name in failing else ""
        cases.append(f'<testcase classname="tests.test_m" name="{name}">{failure}</testcase>')
    xml = f"<testsuites><testsuite>{''.join(cases)}</testsuite></testsuites>".encode()
    run = TestRun(exit_code=1 if failing else 0, timed_out=False, oom_killed=False,
                  report=parse_junit(xml, SPEC.test_files), junit_sha256="", log_sha256="", log_tail="",
                  wall_seconds=0.0)
    return grade(SPEC, run)


SECTION = ("### tests/test_m.py::test_guard (failed)\n"
           "def test_guard():\n>       assert m.f(2) == 4\nE       assert 5 == 4\n\ntests/test_m.py:9: AssertionError")


def test_feedback_names_a_broken_pass_to_pass_test():
    verdict = _verdict(failing=("test_guard",))
    assert (verdict.outcome, verdict.resolved) == ("solved", False)
    assert full_feedback(verdict, verdict.failures) == (
        "The target tests pass now, but your edit broke 1 test that passed before it:\n\n" + SECTION)


def test_count_only_feedback_says_the_targets_pass_and_counts_what_broke_without_naming_it():
    verdict = _verdict(failing=("test_guard",))
    assert count_feedback(verdict, SPEC) == (
        "1 of 4 tests fail: the target tests pass now, but your edit broke 1 test that passed before it.")


def test_feedback_names_a_broken_pass_to_pass_test_that_did_not_run():
    verdict = _verdict(failing=("test_guard",), missing=("test_other",))
    assert verdict.pass_to_pass_broken == ("tests/test_m.py::test_guard", "tests/test_m.py::test_other")
    assert full_feedback(verdict, verdict.failures) == (
        "The target tests pass now, but your edit broke 2 tests that passed before it:\n\n" + SECTION + "\n\n"
        "### tests/test_m.py::test_other (not run)\nit did not run (no result in the test report)")
    assert count_feedback(verdict, SPEC) == (
        "2 of 4 tests fail: the target tests pass now, but your edit broke 2 tests that passed before it.")


def test_no_feedback_of_a_failing_verdict_says_everything_passed():
    verdicts = {
        "guard broken": _verdict(failing=("test_guard",)),
        "guard not run": _verdict(missing=("test_kept",)),
        "target and guard fail": _verdict(failing=("test_fix", "test_guard")),
        "target fails": _verdict(failing=("test_fix",)),
    }
    for name, verdict in verdicts.items():
        assert not verdict.resolved, name
        for text in (full_feedback(verdict, verdict.failures), count_feedback(verdict, SPEC)):
            assert "all target tests pass" not in text.lower(), (name, text)
            assert "fail" in text or "broke" in text, (name, text)
    # A missed target keeps the text the committed studies were scored with.
    missed = verdicts["target fails"]
    assert full_feedback(missed, missed.failures) == (
        "The tests still fail: 1 of 1 target tests not passed.\n\n"
        + SECTION.replace("test_guard (failed)", "test_fix (failed)"))
    assert count_feedback(missed, SPEC) == "1 of 4 tests fail."
    resolved = _verdict()
    assert resolved.resolved
    assert full_feedback(resolved, resolved.failures) == count_feedback(resolved, SPEC) == "All target tests pass."

