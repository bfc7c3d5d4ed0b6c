"""Round 3 of the red-team suite (``tampering.round3``): each edit through the full path and with the static
scan off, on every fixture its mechanism applies to, must end with its exact outcome and never solved; the
honest fix of each fixture still resolves afterwards.

The fixtures: a synthetic task, a mutation task and two pull-request tasks built in local git repositories
(one with the targets in a test file collected after the task's code is imported, as in most pool tasks).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bench.score.evaluate import evaluate
from bench.testing.support import local_pr_task, prepared_task, whole_file_edit
from tampering.round3 import ATTACKS, payload_for

SYNTHETIC = "synthetic.caesar_shift"
MUTATION = "mutation.idna.3.10.047e7b84"


@pytest.fixture(scope="module")
def tasks(tmp_path_factory):
    made = {}

    def get(name):
        if name not in made:
            scratch = tmp_path_factory.mktemp(name)
            made[name] = {"synthetic": lambda: prepared_task(SYNTHETIC, scratch),
                          "mutation": lambda: prepared_task(MUTATION, scratch),
                          "pr": lambda: local_pr_task(scratch),
                          "pr_split": lambda: local_pr_task(scratch, split_tests=True)}[name]()
        return made[name]

    return get


def _edited(task, tmp_path: Path, text: str, *, base: str | None = None):
    tree = tmp_path / "tree"
    shutil.copytree(task.pristine, tree, symlinks=True)
    path = task.spec.source_files[0] if task.spec.mutation is None else task.spec.mutation.file
    source = (tree / path).read_text()
    return tree, whole_file_edit(path, source, (base if base is not None else source) + text)


CASES = [(attack, task, scan) for attack in ATTACKS for task in attack.tasks for scan in (True, False)]


@pytest.mark.parametrize("attack, task_name, scan", CASES,
                         ids=[f"{a.name}-{t}-{'full' if s else 'runtime-only'}" for a, t, s in CASES])
def test_round3_attack_is_not_solved(tasks, tmp_path, attack, task_name, scan):
    task = tasks(task_name)
    targets = task.spec.fail_to_pass
    stem = Path(targets[0].split("::")[0]).stem
    names = {t.split("::")[-1].split("[")[0] for t in targets}
    tree, reply = _edited(task, tmp_path, payload_for(attack, stem, names, targets))
    result = evaluate(task, tree, reply, scan=scan)
    assert (result.outcome, result.resolved) == (attack.full if scan else attack.runtime, False), result.reason


@pytest.mark.parametrize("task_name", ["synthetic", "mutation", "pr", "pr_split"])
def test_honest_fix_still_resolves_beside_round3(tasks, tmp_path, task_name):
    from bench.source.workspace import prepare

    task = tasks(task_name)
    path = task.spec.source_files[0] if task.spec.mutation is None else task.spec.mutation.file
    fixed = (prepare(task.spec, "fix", tmp_path / "fix").path / path).read_text()
    tree = tmp_path / "tree"
    shutil.copytree(task.pristine, tree, symlinks=True)
    result = evaluate(task, tree, whole_file_edit(path, (tree / path).read_text(), fixed))
    assert (result.outcome, result.resolved) == ("solved", True), result.reason


def test_every_round3_class_has_a_row_in_the_threat_model():
    from bench.verdict.threat_model import ATTACK_CLASSES

    assert {a.attack_class for a in ATTACKS} <= {c.name for c in ATTACK_CLASSES}
    assert len(ATTACKS) >= 20


CHILD_REOPENS = '''
import os
import subprocess
import sys


def _link(n):
    try:
        return os.readlink(f"/proc/self/fd/{n}")
    except OSError:  # the descriptor listdir itself used
        return ""


def test_a_child_cannot_reopen_the_pipes_of_the_test_process():
    pipes = [n for n in os.listdir("/proc/self/fd") if _link(n).startswith("pipe:")]
    probe = ("import sys\\nfor n in sys.argv[2:]:\\n    try:\\n        open(f'/proc/{sys.argv[1]}/fd/{n}', 'wb')\\n"
             "        print('opened', n)\\n    except OSError as exc:\\n        print(type(exc).__name__)\\n")
    out = subprocess.run([sys.executable, "-c", probe, str(os.getpid()), *pipes], capture_output=True, text=True)
    assert len(pipes) >= 9 and "opened" not in out.stdout and "PermissionError" in out.stdout, out.stdout
'''


def test_a_child_the_tests_start_cannot_reach_the_report_pipe(tasks, tmp_path):
    """The launcher makes the test process non-dumpable: a child (which runs without the guard) cannot open
    /proc/<parent>/fd/N, so the report pipe stays out of its reach (the descriptors are not inherited either)."""
    from bench.sandbox.protocol import Limits
    from bench.verdict.run_tests import GuardRequest, run_tests

    task = tasks("synthetic")
    work = tmp_path / "work"
    (work / "tests").mkdir(parents=True)
    (work / "tests" / "test_child.py").write_text(CHILD_REOPENS)
    run = run_tests(task.run_environment, workdir=work, test_files=("tests/test_child.py",),
                    limits=Limits(wall_seconds=120), guard=GuardRequest((), ()))
    assert run.tampering == () and run.report is not None, run.log_tail
    outcomes = {o.test_id: o.outcome for o in run.report.outcomes}
    assert outcomes == {"tests/test_child.py::test_a_child_cannot_reopen_the_pipes_of_the_test_process": "passed"}, \
        run.log_tail


ON_TMPFS = ("test_tree_files_rewritten", "payload_in_a_new_module_imported",
            "report_linked_or_replaced_through_directory_descriptors", "forged_report_into_every_pipe")


@pytest.mark.parametrize("name", ON_TMPFS)
def test_file_attacks_fail_alike_on_a_work_tree_in_the_hosts_tmpfs(tasks, monkeypatch, name):
    """Scoring puts attempt trees on /dev/shm where they fit: immutable test files, the read-only work dir and
    the report channel must hold there as on disk (the tmpfs carries the immutable flag since Linux 6.0; where
    it does not, the backend binds the same paths read-only)."""
    from bench.sandbox.cleanup import fast_scratch, tree_scratch

    monkeypatch.delenv("TMPDIR", raising=False)
    if fast_scratch() is None:
        pytest.skip("this host has no usable tmpfs at /dev/shm")
    attack = next(a for a in ATTACKS if a.name == name)
    task = tasks("synthetic")
    with tree_scratch(task.pristine, "bench-redteam-") as folder:
        assert str(folder).startswith(fast_scratch())
        targets = task.spec.fail_to_pass
        stem = Path(targets[0].split("::")[0]).stem
        names = {t.split("::")[-1].split("[")[0] for t in targets}
        tree, reply = _edited(task, folder, payload_for(attack, stem, names, targets))
        result = evaluate(task, tree, reply, scan=False)
    assert (result.outcome, result.resolved) == (attack.runtime, False), result.reason


# A registry that refuses a second registration of one name, as marshmallow's class registry refuses a second
# schema class of one name, put into the reference: a test that registers runs once, and its hidden copy, run
# second in the same process, fails whatever the code does.
REGISTRY = """

_SEEN = set()


def _register(text, k):
    if (text, k) == ("Hello", 3):
        if (text, k) in _SEEN:
            raise KeyError("registered twice: Hello")
        _SEEN.add((text, k))
"""


def test_a_correct_candidate_whose_test_cannot_run_twice_in_one_process_is_not_tampered(tasks, tmp_path):
    """A hidden copy that fails beside its passing real test is run again alone: state the real test left
    (a registry) makes no false alarm, while a forger keyed on the real ids still fails its copies alone
    (test_round3_attack_is_not_solved, report_class_patched_for_the_exact_target_ids)."""
    from bench.source.workspace import prepare

    task = tasks("synthetic")
    reference = (prepare(task.spec, "fix", tmp_path / "fix").path / "caesar.py").read_text()
    registered = "def shift(text, k):\n    _register(text, k)\n"
    registers_once = reference.replace("def shift(text, k):\n", registered) + REGISTRY
    assert "_register(text, k)" in registers_once
    tree = tmp_path / "tree"
    shutil.copytree(task.pristine, tree, symlinks=True)
    result = evaluate(task, tree, whole_file_edit("caesar.py", (tree / "caesar.py").read_text(), registers_once),
                      verify=False)
    assert (result.outcome, result.resolved) == ("solved", True), result.reason
