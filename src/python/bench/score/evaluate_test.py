from bench.loop.signature import failure_signature
from bench.score.evaluate import _signed_line
from bench.verdict.grade import UNUSABLE_REPORT, Verdict


def _verdict(reason: str, detail: str) -> Verdict:
    return Verdict("model_miss", reason, (), ("t.py::test_a",), (), -9, "", "",
                   (("<run>", "error", "pytest exit -9", detail),))


def test_two_runs_that_overflow_the_report_bound_at_different_points_share_a_signature():
    reason = UNUSABLE_REPORT + "the report is larger than 16 MiB"
    first = _verdict(reason, "E   ValueError: stopped at item 1201\n")
    second = _verdict(reason, "E   ValueError: stopped at item 1377\n")
    assert first.report_unusable and second.report_unusable
    assert _signed_line(first) == _signed_line(second) == reason
    assert (failure_signature(True, first.still_failing, _signed_line(first))
            == failure_signature(True, second.still_failing, _signed_line(second)))


def test_a_run_with_a_report_is_known_by_its_first_error_line():
    verdict = _verdict("1 of 1 target tests not passed", "    def test_a():\nE   assert 3 == 4\n")
    assert not verdict.report_unusable
    assert _signed_line(verdict) == "assert 3 == 4"
    assert _signed_line(_verdict("1 of 1 target tests not passed", "")) == "pytest exit -9"
