from __future__ import annotations

from bench.gate.sets import RunSummary, decide, derive_sets


def run(side, index, **outcomes):
    results = tuple(sorted((f"t.py::{k}", v) for k, v in outcomes.items()))
    return RunSummary(side, index, 1, False, results, (), True)


def test_sets_from_k_runs_each_side():
    runs = [
        run("base", 0, a="failed", b="passed", c="failed", d="failed", e="error"),
        run("base", 1, a="failed", b="passed", c="passed", d="failed", e="failed"),
        run("fix", 0, a="passed", b="passed", c="passed", d="failed", e="passed"),
        run("fix", 1, a="passed", b="passed", c="passed", d="failed", e="passed"),
    ]
    sets = derive_sets(runs)
    assert sets.fail_to_pass == ("t.py::a", "t.py::e")  # failed and error are both "not passing"
    assert sets.pass_to_pass == ("t.py::b",)
    assert sets.flaky == ("t.py::c",)
    assert sets.baseline_failing == ("t.py::d",)
    assert decide(runs, sets).admitted


def test_flaky_claimed_target_is_dropped():
    runs = [run("base", 0, a="failed"), run("base", 1, a="passed"), run("fix", 0, a="passed"),
            run("fix", 1, a="passed")]
    sets = derive_sets(runs)
    assert sets.flaky == ("t.py::a",)
    assert decide(runs, sets, claimed_fail_to_pass=("t.py::a",)).reason == "flaky_target"
    assert decide(runs, sets).reason == "nothing_flips"


def test_skipped_target_with_fix_is_dropped():
    runs = [run("base", 0, a="failed"), run("fix", 0, a="skipped")]
    sets = derive_sets(runs)
    assert sets.skipped_targets == ("t.py::a",)
    assert decide(runs, sets).reason == "target_skipped"
    xfail = [run("base", 0, a="failed"), run("fix", 0, a="xfailed")]
    assert decide(xfail, derive_sets(xfail)).reason == "target_skipped"


def test_collection_failure_on_fix_side_is_dropped():
    runs = [run("base", 0, a="failed"),
            RunSummary("fix", 0, 2, False, (), ("<collection>::t",), True)]
    assert decide(runs, derive_sets(runs)).reason == "collection_failed"
    no_report = [run("base", 0, a="failed"), RunSummary("fix", 0, 4, False, (), (), False)]
    assert decide(no_report, derive_sets(no_report)).reason == "collection_failed"


def test_too_many_targets_and_uncertified_claim():
    runs = [run("base", 0, a="failed", b="failed"), run("fix", 0, a="passed", b="passed")]
    sets = derive_sets(runs)
    assert decide(runs, sets, max_targets=1).reason == "too_many_targets"
    assert decide(runs, sets, claimed_fail_to_pass=("t.py::zzz",)).reason.startswith("claimed_target_not")


def test_timeout_drops():
    runs = [RunSummary("base", 0, None, True, (), (), False), run("fix", 0, a="passed")]
    assert decide(runs, derive_sets(runs)).reason == "timeout"


def test_a_drop_after_an_oom_kill_names_the_oom_kill():
    killed = RunSummary("fix", 0, None, False, (), (), False, oom_killed=True)
    runs = [run("base", 0, a="failed"), killed]
    assert decide(runs, derive_sets(runs)).reason == "oom_killed:collection_failed"
    timed_out = RunSummary("base", 1, None, True, (), (), False, oom_killed=True)
    assert decide([*runs, timed_out], derive_sets(runs)).reason == "timeout"


def test_an_oom_kill_in_a_run_that_still_admits_changes_nothing():
    runs = [run("base", 0, a="failed"), RunSummary("fix", 0, 0, False, (("t.py::a", "passed"),), (), True,
                                                   oom_killed=True)]
    assert decide(runs, derive_sets(runs)).reason == "admitted"
