
from bench.sandbox.protocol import Received
from bench.spec.model import Provenance, TaskSpec
from bench.verdict.grade import grade
from bench.verdict.junit import parse_junit
from bench.verdict.run_tests import MAX_REPORT_BYTES, TestRun, _report_bytes

SPEC = TaskSpec(task_id="t", kind="synthetic", repo="r", source_files=("m.py",), test_files=("tests/test_m.py",),
                fail_to_pass=("tests/test_m.py::test_fix",), pass_to_pass=("tests/test_m.py::test_guard",),
                image="i", lockfile="l", provenance=Provenance("authored"))


def _xml(guard_fails: bool) -> bytes:
    failure = '<failure message="boom">trace</failure>' if guard_fails else ""
    return (f'<testsuites><testsuite><testcase classname="tests.test_m" name="test_fix"/>'
            f'<testcase classname="tests.test_m" name="test_guard">{failure}</testcase>'
            f"</testsuite></testsuites>").encode()


def _run(report=None, **fields) -> TestRun:
    return TestRun(exit_code=fields.pop("exit_code", 1), timed_out=False, oom_killed=False, report=report,
                   junit_sha256="", log_sha256="", log_tail="", wall_seconds=0.0, **fields)


def test_solved_with_a_broken_guard_is_not_resolved():
    verdict = grade(SPEC, _run(parse_junit(_xml(True), SPEC.test_files)))
    assert (verdict.outcome, verdict.solved, verdict.resolved) == ("solved", True, False)
    assert verdict.pass_to_pass_broken == ("tests/test_m.py::test_guard",)
    clean = grade(SPEC, _run(parse_junit(_xml(False), SPEC.test_files), exit_code=0))
    assert (clean.outcome, clean.resolved) == ("solved", True)


def test_guard_findings_make_the_run_tampered_whatever_the_report_says():
    verdict = grade(SPEC, _run(parse_junit(_xml(False), SPEC.test_files), tampering=("report-access (open)",)))
    assert (verdict.outcome, verdict.resolved, verdict.reason) == ("tampered", False, "report-access (open)")


def test_missing_canaries_count_only_against_a_run_that_would_be_solved():
    missing = ("canary (a test that must be failed was missing)",)
    solved = grade(SPEC, _run(parse_junit(_xml(False), SPEC.test_files), tampering_if_solved=missing))
    assert solved.outcome == "tampered"
    fails = _xml(False).replace(b'name="test_fix"/>', b'name="test_fix"><failure message="no"/></testcase>')
    missed = grade(SPEC, _run(parse_junit(fails, SPEC.test_files), tampering_if_solved=missing))
    assert missed.outcome == "model_miss"


def test_an_unusable_report_is_the_models_miss_not_an_infrastructure_error():
    verdict = grade(SPEC, _run(None, report_problem="unreadable JUnit XML: syntax error"))
    assert verdict.outcome == "model_miss"
    assert "unreadable JUnit XML" in verdict.reason


def test_a_report_over_the_cap_is_not_read_and_says_why():
    assert _report_bytes(Received("report", b"<t/>" * 10, truncated=True)) == (
        b"", f"the report is larger than {MAX_REPORT_BYTES >> 20} MiB")
    assert _report_bytes(Received("report", b"<testsuites/>", truncated=False)) == (b"<testsuites/>", "")
    assert _report_bytes(None) == (b"", "")


def test_a_report_the_host_cannot_decode_is_the_models_miss_never_a_crash():
    import pytest

    from bench.errors import CheckFailed

    hostile = (b'<?xml version="1.0" encoding="x-bench-unknown"?><testsuites/>',
               b'<!DOCTYPE t [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]><testsuites>&b;</testsuites>',
               b"\xff\xfe<\x00t\x00", b"<testsuites>" * 50000)
    for xml in hostile:
        with pytest.raises(CheckFailed, match="unreadable JUnit XML"):
            parse_junit(xml, ("tests/test_m.py",))
