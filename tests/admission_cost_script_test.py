"""benchmarks/admission_cost.py: what it reads from the admission logs, and what --fresh removes from a pool."""

import json

from bench.testing.support import script_module



def _module():
    return script_module("benchmarks/admission_cost.py", "admission_cost")


ENTRIES = [
    {"task_id": "a-1", "outcome": "admitted", "seconds": 12.0, "phases": {"tests": 4.0, "lock": 3.0}},
    {"task_id": "a-2", "outcome": "dropped", "seconds": 10.0, "phases": {"tests": 1.0, "lock": 3.0}},
    {"task_id": "a-3", "outcome": "dropped", "seconds": 5.0, "phases": {"lock": 5.0}},  # no lock: no tests ran
    {"task_id": "a-4", "outcome": "admitted", "seconds": 9.0, "phases": {"tests": 4.5, "lock": 1.0}},
]


def test_ratios_set_each_admission_against_its_own_test_runs_and_skip_those_that_ran_none():
    module = _module()
    assert module.ratios(ENTRIES, admitted_only=True) == [3.0, 2.0]
    assert module.ratios(ENTRIES, admitted_only=False) == [3.0, 10.0, 2.0]


def test_describe_prints_the_medians_and_the_locking_share_of_one_commit(tmp_path):
    module = _module()
    side = object.__new__(module.Side)
    side.commit, side.sha, side.logs = "HEAD", "0123456789ab", tmp_path
    (tmp_path / "admit-log-a.json").write_text(json.dumps(ENTRIES))
    line, median = module.describe(side)
    assert median == 2.0
    assert "tried   4  admitted   2" in line and "lock share 19.0%" in line and "all that ran tests (3)" in line


def test_fresh_forgets_only_the_candidates_files_in_the_worktrees_pool(tmp_path):
    module = _module()
    side = object.__new__(module.Side)
    side.root = tmp_path
    kept = [tmp_path / "tasks" / "lib" / "lib-10.json", tmp_path / "lockfiles" / "tasks" / "lib-10.lock"]
    gone = [tmp_path / "tasks" / "lib" / "lib-1.json", tmp_path / "tasks" / "_dropped" / "lib-2.json",
            tmp_path / "lockfiles" / "tasks" / "lib-1.lock", tmp_path / "results" / "certificates" / "lib-1.json.gz"]
    for path in kept + gone:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x")
    assert side.forget({"lib-1", "lib-2"}) == 4
    assert all(p.exists() for p in kept) and not any(p.exists() for p in gone)
