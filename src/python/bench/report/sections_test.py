from __future__ import annotations

from bench.report.runs import AttemptRun
from bench.report.sections import attempt_section


def test_a_library_with_nothing_scored_gets_no_error_bar():
    attempts = [AttemptRun("a", "alpha", "", "m", 0, "infrastructure_error"),
                AttemptRun("b", "beta", "", "m", 0, "solved"), AttemptRun("c", "beta", "", "m", 0, "model_miss")]
    _, (plot,) = attempt_section("m", attempts, "m")
    assert plot.categories == ("alpha", "beta")
    assert (plot.values[0], plot.lows[0], plot.highs[0]) == (0.0, 0.0, 0.0)
    assert plot.lows[1] < plot.values[1] == 0.5 < plot.highs[1]
