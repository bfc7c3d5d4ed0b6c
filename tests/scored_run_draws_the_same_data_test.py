"""Two scorings of the same candidate end in the same failing state even when the failure's message holds
random draws (requests' tests compare against a local server's random bytes): the scored run starts Python's
``random`` from one fixed state, as PYTHONHASHSEED=0 fixes str hashes. Without it the error line, and so the
signature the convergence classes compare, differed between the run and its `bench verify`."""

from __future__ import annotations

import shutil

from bench.score.evaluate import evaluate
from bench.testing.support import prepared_task, whole_file_edit

TASK = "synthetic.caesar_shift"
DRAWS = '''
import random as _random

_plain_shift = shift


def shift(text, k):
    return _plain_shift(text, k) + str(_random.randrange(10 ** 9))
'''


def test_a_candidate_whose_failure_message_holds_random_draws_keeps_its_signature(tmp_path):
    task = prepared_task(TASK, tmp_path / "prepared")
    signatures = []
    for run in range(2):
        tree = tmp_path / f"tree{run}"
        shutil.copytree(task.pristine, tree, symlinks=True)
        source = (tree / "caesar.py").read_text()
        result = evaluate(task, tree, whole_file_edit("caesar.py", source, source + DRAWS), cache=None)
        assert result.outcome == "model_miss", result.reason
        top = result.verdict.failures[0][3]
        assert "Khoor" in top or "assert" in top, top
        signatures.append(result.signature)
    assert signatures[0] == signatures[1]
