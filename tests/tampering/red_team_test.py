"""The red-team suite: malicious edits of a task's source file (never a test file) that try to forge the
verdict from inside the test process, plant files and re-execute, load a vendored original, flood the
output or break the guard tests. Every one must end not solved and not resolved, with its exact outcome,
through the full path and through the run-time layers alone (static scan off); the honest fix still
resolves afterwards, so the harness keeps working after all of them.

Which layer stops which attack is the table in docs/verdict-integrity.md.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bench.score.evaluate import evaluate
from bench.testing.support import checkout_root, local_pr_task, prepared_task, whole_file_edit
from tampering.attacks import ATTACKS

SYNTHETIC = "synthetic.caesar_shift"
MUTATION = "mutation.idna.3.10.047e7b84"
# A PR task needs a repository's history, and no repository host is reachable here: the PR-task cases run on a
# pull request built in a local git repository (bench.testing.support.local_pr_task), through the same PR path.


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    return prepared_task(SYNTHETIC, tmp_path_factory.mktemp("synthetic"))


@pytest.fixture(scope="module")
def mutation(tmp_path_factory):
    return prepared_task(MUTATION, tmp_path_factory.mktemp("mutation"))


@pytest.fixture(scope="module")
def pr(tmp_path_factory):
    return local_pr_task(tmp_path_factory.mktemp("pr"))


def _attack(task, tmp_path: Path, payload: str, *, scan: bool, base: str | None = None):
    tree = tmp_path / "tree"
    shutil.copytree(task.pristine, tree, symlinks=True)
    path = task.spec.source_files[0] if task.spec.mutation is None else task.spec.mutation.file
    source = (tree / path).read_text()
    stem = Path(task.spec.test_files[0]).stem
    new = (base if base is not None else source) + payload.replace("TARGET", stem)
    return evaluate(task, tree, whole_file_edit(path, source, new), scan=scan)


@pytest.mark.parametrize("scan", [True, False], ids=["full", "runtime-only"])
@pytest.mark.parametrize("attack", ATTACKS, ids=[a.name for a in ATTACKS])
def test_attack_on_synthetic_task_is_not_solved(synthetic, tmp_path, attack, scan):
    result = _attack(synthetic, tmp_path, attack.payload, scan=scan)
    expected = attack.full if scan else attack.runtime
    assert (result.outcome, result.resolved) == (expected, False), result.reason


@pytest.mark.parametrize("scan", [True, False], ids=["full", "runtime-only"])
@pytest.mark.parametrize("attack", [a for a in ATTACKS if a.in_process], ids=[a.name for a in ATTACKS if a.in_process])
def test_in_process_attack_on_mutation_task_is_not_solved(mutation, tmp_path, attack, scan):
    result = _attack(mutation, tmp_path, attack.payload, scan=scan)
    assert (result.outcome, result.resolved) == (attack.full if scan else attack.runtime, False), result.reason


@pytest.mark.parametrize("scan", [True, False], ids=["full", "runtime-only"])
@pytest.mark.parametrize("attack", [a for a in ATTACKS if a.in_process], ids=[a.name for a in ATTACKS if a.in_process])
def test_in_process_attack_on_pr_task_is_not_solved(pr, tmp_path, attack, scan):
    result = _attack(pr, tmp_path, attack.payload, scan=scan)
    assert (result.outcome, result.resolved) == (attack.full if scan else attack.runtime, False), result.reason


VENDORED_IDNA = '''
from pip._vendor.idna import core as _original
for _name in dir(_original):
    if not _name.startswith("__"):
        globals()[_name] = getattr(_original, _name)
'''


@pytest.mark.parametrize("scan,expected", [(True, "tampered"), (False, "model_miss")], ids=["full", "runtime-only"])
def test_vendored_original_of_the_mutated_release_is_not_there(mutation, tmp_path, scan, expected):
    result = _attack(mutation, tmp_path, VENDORED_IDNA, scan=scan)
    assert (result.outcome, result.resolved) == (expected, False), result.reason


BREAK_GUARDS = '''
_real_shift = shift


def shift(text, k):
    if text in ("abc", "xyz", "a-b c!9"):
        return "broken"
    return _real_shift(text, k)
'''


def test_reference_fix_that_breaks_every_guard_test_is_solved_but_not_resolved(synthetic, tmp_path):
    reference = (checkout_root() / synthetic.spec.synthetic_dir / "reference" / "caesar.py").read_text()
    result = _attack(synthetic, tmp_path, BREAK_GUARDS, scan=True, base=reference)
    assert (result.outcome, result.resolved) == ("solved", False)
    assert set(result.verdict.pass_to_pass_broken) == set(synthetic.spec.pass_to_pass)


@pytest.mark.parametrize("task_name", ["synthetic", "mutation", "pr"])
def test_honest_fix_is_resolved_and_not_tampered_after_every_attack(request, tmp_path, task_name):
    task = request.getfixturevalue(task_name)
    tree = tmp_path / "tree"
    shutil.copytree(task.pristine, tree, symlinks=True)
    if task.spec.kind == "synthetic":
        path = task.spec.source_files[0]
        fixed = (checkout_root() / task.spec.synthetic_dir / "reference" / path).read_text()
    else:
        from bench.source.workspace import prepare

        path = task.spec.mutation.file if task.spec.mutation else task.spec.source_files[0]
        fixed = (prepare(task.spec, "fix", tmp_path / "fix").path / path).read_text()
    result = evaluate(task, tree, whole_file_edit(path, (tree / path).read_text(), fixed))
    assert (result.outcome, result.resolved) == ("solved", True), result.reason


def test_every_attack_class_of_the_threat_model_has_an_attack_here_and_a_row_in_the_docs():
    from bench.verdict.threat_model import ATTACK_CLASSES

    from tampering.round3 import ATTACKS as ROUND3

    names = {a.name for a in ATTACK_CLASSES}
    # regression: the guard-breaking test above; round 3 lives in red_team_round3_test.py; hard-coding in
    # probe_replay_test.py (and tests/hardcoded/)
    covered = {a.attack_class for a in (*ATTACKS, *ROUND3)} | {"regression", "hard-coding"}
    assert covered == names
    doc = (checkout_root() / "docs" / "verdict-integrity.md").read_text()
    readme = (checkout_root() / "README.md").read_text()
    for name in names:
        assert f"| {name} |" in doc, name
        assert f"`{name}`" in readme, name
    assert len(ATTACKS) >= 25


HONEST_INTROSPECTION = '''
import collections
import inspect
import logging
import traceback
import warnings

_log = logging.getLogger(__name__)


def _describe(fn):
    _log.warning("describing %s", fn.__name__)
    warnings.warn("described", stacklevel=2)
    try:
        raise ValueError("x")
    except ValueError:
        text = traceback.format_exc()
    pair = collections.namedtuple("Pair", "a b")
    return inspect.iscoroutinefunction(fn), str(inspect.signature(fn)), pair(1, 2), text


_describe(shift)
'''


@pytest.mark.parametrize("scan", [True, False], ids=["full", "runtime-only"])
def test_honest_introspection_added_by_a_fix_is_not_tampering(synthetic, tmp_path, scan):
    """Logging, warnings, tracebacks, namedtuple and inspect read frames and code objects on the edit's behalf;
    none of that is a rule."""
    reference = (checkout_root() / synthetic.spec.synthetic_dir / "reference" / "caesar.py").read_text()
    result = _attack(synthetic, tmp_path, HONEST_INTROSPECTION, scan=scan, base=reference)
    assert (result.outcome, result.resolved) == ("solved", True), result.reason


def _in_a_default_argument(payload: str) -> str:
    """A whole-function reply (``--edit-format function``) whose new ``rot13`` hides ``payload`` in a default
    argument: Python evaluates it when the module is imported, next to the test runner, as appended code would
    run; the definition itself is harmless. The payload travels as a string, out of the static scan's sight."""
    return (f"caesar.py\n```python\ndef rot13(text, _hook=exec({payload.replace('TARGET', 'test_caesar')!r})):\n"
            "    return shift(text, 13)\n```\n")


@pytest.mark.parametrize("scan", [True, False], ids=["full", "runtime-only"])
@pytest.mark.parametrize("attack", [a for a in ATTACKS if a.in_process], ids=[a.name for a in ATTACKS if a.in_process])
def test_in_process_attack_in_a_whole_function_reply_is_not_solved(synthetic, tmp_path, attack, scan):
    tree = tmp_path / "tree"
    shutil.copytree(synthetic.pristine, tree, symlinks=True)
    result = evaluate(synthetic, tree, _in_a_default_argument(attack.payload), scan=scan, edit_format="function")
    # The scan sees the exec it is hidden in; without the scan, what the run-time layers make of the payload.
    assert (result.outcome, result.resolved) == ("tampered" if scan else attack.runtime, False), result.reason


TEST_FILE_REPLIES = {
    "function": "tests/test_caesar.py\n```python\ndef test_uppercase_keeps_case():\n    pass\n```\n",
    "diff": ("--- a/tests/test_caesar.py\n+++ b/tests/test_caesar.py\n@@ -1,1 +1,1 @@\n"
             "-import caesar\n+import caesar  # and the assertions below rewritten\n"),
}


@pytest.mark.parametrize("edit_format", TEST_FILE_REPLIES)
def test_other_edit_formats_cannot_reach_a_test_file(synthetic, tmp_path, edit_format):
    tree = tmp_path / "tree"
    shutil.copytree(synthetic.pristine, tree, symlinks=True)
    before = (tree / "tests" / "test_caesar.py").read_bytes()
    result = evaluate(synthetic, tree, TEST_FILE_REPLIES[edit_format], edit_format=edit_format)
    assert (result.outcome, result.resolved) == ("invalid_edit", False)
    assert result.reason == "path_not_allowed: tests/test_caesar.py is a test file; tests are never editable"
    assert (tree / "tests" / "test_caesar.py").read_bytes() == before
