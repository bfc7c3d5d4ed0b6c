"""The verified tier against edits that try to forge it (``tampering.probe_replay``): each is a hard-coded fix of
a synthetic task with one attack on the replay on top. None may end verified; the honest fix is verified and
the task's probe set replays the reference as it recorded it."""

from __future__ import annotations

import shutil

import pytest

from bench.score.evaluate import evaluate
from bench.testing.support import prepared_task, whole_file_edit
from tampering.probe_replay import ATTACKS, HARD_CODED

TASK = "synthetic.caesar_shift"


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    return prepared_task(TASK, tmp_path_factory.mktemp("caesar"))


def _score(task, tmp_path, text: str, *, scan: bool = True):
    tree = tmp_path / "tree"
    shutil.copytree(task.pristine, tree, symlinks=True)
    path = task.spec.source_files[0]
    source = (tree / path).read_text()
    return evaluate(task, tree, whole_file_edit(path, source, text(source)), scan=scan)


CASES = [(attack, scan) for attack in ATTACKS for scan in (True, False)]


@pytest.mark.parametrize("attack, scan", CASES, ids=[f"{a.name}-{'full' if s else 'no-scan'}" for a, s in CASES])
def test_an_edit_that_attacks_the_replay_is_never_verified(task, tmp_path, attack, scan):
    """With the static scan on (the scored path) and off (what the run-time layers and the replay hold alone)."""
    table = HARD_CODED if attack.on_hard_coded else ""
    result = _score(task, tmp_path, lambda source: source + table + attack.code, scan=scan)
    assert result.verified is not True
    if result.resolved:  # resolved: a probe must have caught it
        assert (result.outcome, result.verification.status) == ("solved", "diverged")
        assert result.verification.divergence
    else:  # caught in the test run (tampered), or the attack broke its own run: which of the channels it
        # garbles first depends on the descriptors open in that run (channel-lines); never resolved, never verified
        assert result.outcome in ("tampered", "model_miss"), (result.outcome, result.reason)
        assert result.verification is None


def test_the_hard_coded_fix_resolves_and_names_its_first_divergence(task, tmp_path):
    result = _score(task, tmp_path, lambda source: source + HARD_CODED)
    assert (result.outcome, result.resolved, result.verified) == ("solved", True, False)
    assert result.verification.divergence.startswith("caesar.py: ")
    assert "expected" in result.verification.divergence and "got" in result.verification.divergence


def test_the_honest_fix_is_verified(task, tmp_path):
    from bench.source.workspace import prepare

    fixed = (prepare(task.spec, "fix", tmp_path / "fix").path / "caesar.py").read_text()
    result = _score(task, tmp_path, lambda source: fixed)
    assert (result.outcome, result.resolved, result.verified) == ("solved", True, True)
    assert result.verification.checked > 0


def test_the_probe_set_is_the_same_bytes_when_built_again(task):
    from bench.score.probe_sets import probe_set_for

    first = probe_set_for(task)
    again = probe_set_for(task, use_cache=False)
    assert again.canonical() == first.canonical()
    assert again.count("observed") > 0 and again.count("generated") > 0
