"""The batch's early stop: a mutant the gate must drop costs one suite run, an admissible one costs K."""

from __future__ import annotations

from bench.gate.mutation_batch import base_runs_until_decided
from bench.gate.sets import RunSummary

TESTS = tuple(f"tests/test_m.py::test_{n}" for n in range(30))


def _run(side: str, index: int, failing: int = 0, timed_out: bool = False) -> RunSummary:
    results = tuple((t, "failed" if n < failing else "passed") for n, t in enumerate(TESTS))
    return RunSummary(side, index, 1 if failing else 0, timed_out, results, (), True)


FIX_RUNS = tuple(_run("fix", i) for i in range(3))


def _calls(failing: int, timed_out: bool = False, max_targets: int | None = 20) -> list[int]:
    calls: list[int] = []

    def run_base(index: int) -> RunSummary:
        calls.append(index)
        return _run("base", index, failing, timed_out)

    runs = base_runs_until_decided(run_base, FIX_RUNS, k=3, max_targets=max_targets)
    assert [r.index for r in runs] == calls
    return calls


def test_an_admissible_mutant_gets_all_k_base_runs():
    assert _calls(failing=4) == [0, 1, 2]


def test_an_undetected_mutant_stops_after_one_run():
    assert _calls(failing=0) == [0]


def test_a_broad_mutant_stops_after_one_run():
    assert _calls(failing=25) == [0]
    assert _calls(failing=25, max_targets=None) == [0, 1, 2]


def test_a_timed_out_mutant_stops_after_one_run():
    assert _calls(failing=3, timed_out=True) == [0]


def test_a_release_run_with_no_passing_test_cannot_judge_mutants():
    from bench.gate.mutation_batch import _unusable

    assert not _unusable(_run("fix", 0, failing=3))
    assert _unusable(RunSummary("fix", 0, 1, False, (("tests/test_m.py::TestSuite", "error"),), (), True))
    assert _unusable(RunSummary("fix", 0, 2, False, (), ("<collection>::",), True))
    assert _unusable(_run("fix", 0, timed_out=True))


def test_a_retired_mutant_is_decided_and_not_admitted_again(tmp_path):
    from bench.gate.mutation_batch import _already_decided

    task_id = "mutation.widgets.1.0.0.0000abcd"
    assert not _already_decided(task_id, tmp_path, [])
    (tmp_path / "tasks" / "_retired" / "mutation-widgets").mkdir(parents=True)
    (tmp_path / "tasks" / "_retired" / "mutation-widgets" / f"{task_id}.json").write_text("{}")
    assert _already_decided(task_id, tmp_path, [])


def test_a_release_whose_suite_cannot_run_leaves_no_lock_it_resolved(tmp_path, monkeypatch):
    """A newcomer's run of a release whose suite does not collect left its fresh lock in lockfiles/tasks/."""
    from types import SimpleNamespace

    import pytest

    from bench.errors import EnvironmentBuildError
    from bench.gate import mutation_batch

    spec = SimpleNamespace(lockfile="lockfiles/tasks/mutation-widgets-1.0.0.lock")
    lock = tmp_path / spec.lockfile

    def resolved(first, root, **_):
        lock.parent.mkdir(parents=True, exist_ok=True)
        lock.write_text("# resolved\n")

    def broken(first, root, **_):
        raise EnvironmentBuildError("widgets-1.0.0.tar.gz: the release's own suite does not run")

    monkeypatch.setattr(mutation_batch, "lock_candidate", resolved)
    monkeypatch.setattr(mutation_batch, "_usable_release", broken)
    monkeypatch.setattr("bench.source.sdist.release_upload_time", lambda sdist: "")
    spec.sdist = None
    with pytest.raises(EnvironmentBuildError):
        mutation_batch._open_release(spec, tmp_path, k=3, sandbox_name="bwrap", relock=False)
    assert not lock.exists()
    lock.write_text("# the pool's tasks of this release hold it\n")  # a lock that was there before stays
    with pytest.raises(EnvironmentBuildError):
        mutation_batch._open_release(spec, tmp_path, k=3, sandbox_name="bwrap", relock=False)
    assert lock.read_text() == "# the pool's tasks of this release hold it\n"
