"""A project whose pytest config stops at the first failure (``addopts = -x``, as transitions' does) is still
scored on every test: the guarded run's decoys must fail for an honest fix, and under ``-x`` the first of them
ended the run before the canary, so the honest fix read as ``tampered`` (bench.verdict.run_tests.pytest_argv
passes ``--maxfail=0`` after the project's options)."""

from __future__ import annotations

import shutil

from bench.score.evaluate import evaluate
from bench.testing.support import checkout_root, load_task, local_pr_task, whole_file_edit


def test_an_honest_fix_of_a_project_that_stops_at_the_first_failure_resolves_untampered(tmp_path):
    task = local_pr_task(tmp_path / "pr", pytest_ini="[pytest]\naddopts = -x -rf\n", task_id="exitfirst-pr-1")
    reference = checkout_root() / load_task("synthetic.caesar_shift").synthetic_dir / "reference" / "caesar.py"
    tree = tmp_path / "tree"
    shutil.copytree(task.pristine, tree, symlinks=True)
    assert (tree / "pytest.ini").read_text().startswith("[pytest]\naddopts = -x")
    reply = whole_file_edit("caesar.py", (tree / "caesar.py").read_text(), reference.read_text())
    result = evaluate(task, tree, reply)
    assert (result.outcome, result.resolved) == ("solved", True), result.reason
    # every target and pass_to_pass test ran and left its result, not only those before a first failure
    assert {test_id for test_id, _ in result.verdict.results} == {*task.spec.fail_to_pass, *task.spec.pass_to_pass}
