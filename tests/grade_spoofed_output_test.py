"""A candidate that prints PASSED lines and forces exit code 0 while the target tests fail is not solved:
verdicts come from the JUnit XML written to a path the code under test is not told in advance, never from
printed text or the exit code alone. The static edit scan flags the hard exit (tampered); without it the run
leaves no report and the candidate is a plain miss."""

from __future__ import annotations

from pathlib import Path
import shutil

import pytest

from bench.score.evaluate import evaluate
from bench.testing.support import checkout_root, prepared_task, whole_file_edit

TASK = "synthetic.caesar_shift"


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    return prepared_task(TASK, tmp_path_factory.mktemp("prepared"))


def _tree(task, tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    shutil.copytree(task.pristine, tree, symlinks=True)
    return tree


SPOOF_AT_EXIT = '''
import atexit, os, sys
print("tests/test_caesar.py::test_uppercase_keeps_case PASSED")
print("========== 8 passed in 0.01s ==========")
atexit.register(lambda: os._exit(0))
'''

SPOOF_AT_IMPORT = '''
import os, sys
sys.stdout.write("tests/test_caesar.py::test_uppercase_keeps_case PASSED\\n8 passed in 0.01s\\n")
sys.stdout.flush()
os._exit(0)
'''


@pytest.mark.parametrize("scan,expected", [(True, "tampered"), (False, "model_miss")], ids=["scan", "no-scan"])
@pytest.mark.parametrize("payload", [SPOOF_AT_EXIT, SPOOF_AT_IMPORT], ids=["atexit", "import"])
def test_printed_passed_and_exit_zero_is_not_solved(task, tmp_path, payload, scan, expected):
    tree = _tree(task, tmp_path)
    source = (tree / "caesar.py").read_text()
    result = evaluate(task, tree, whole_file_edit("caesar.py", source, source + payload), scan=scan)
    assert (result.outcome, result.resolved) == (expected, False)
    assert set(result.verdict.still_failing) == set(task.spec.fail_to_pass)


def test_reference_solution_is_solved_and_initial_is_not(task, tmp_path):
    tree = _tree(task, tmp_path)
    source = (tree / "caesar.py").read_text()
    reference = (checkout_root() / task.spec.synthetic_dir / "reference" / "caesar.py").read_text()
    solved = evaluate(task, tree, whole_file_edit("caesar.py", source, reference))
    assert (solved.outcome, solved.resolved) == ("solved", True)
    again = _tree(task, tmp_path / "again")
    assert evaluate(task, again, whole_file_edit("caesar.py", source, source + "\n")).outcome == "model_miss"


def test_edit_to_a_test_file_is_invalid_and_changes_nothing(task, tmp_path):
    tree = _tree(task, tmp_path)
    test_file = "tests/test_caesar.py"
    text = (tree / test_file).read_text()
    result = evaluate(task, tree, whole_file_edit(test_file, text, "def test_nothing():\n    pass\n"))
    assert result.outcome == "invalid_edit"
    assert (tree / test_file).read_text() == text
