"""In-place probes end to end: a task whose calls cannot be replayed on their own (its tests pass a clock of a
class the test module defines) is probed where the calls happen. The reference is verified; a near miss the
tests let through and an edit that takes the probes off its methods are not."""

from __future__ import annotations

import shutil

import pytest

from bench.score.evaluate import evaluate
from bench.testing.support import prepared_task, whole_file_edit

TASK = "synthetic.ttl_cache"
MISSING = "        if entry is None:\n            return default\n"


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    return prepared_task(TASK, tmp_path_factory.mktemp("ttl"))


@pytest.fixture(scope="module")
def fixed(task, tmp_path_factory):
    from bench.source.workspace import prepare

    return (prepare(task.spec, "fix", tmp_path_factory.mktemp("fix") / "fix").path / "ttlcache.py").read_text()


def _score(task, tmp_path, text: str):
    tree = tmp_path / "tree"
    shutil.copytree(task.pristine, tree, symlinks=True)
    path = task.spec.source_files[0]
    return evaluate(task, tree, whole_file_edit(path, (tree / path).read_text(), text))


def test_calls_that_cannot_be_rebuilt_are_probed_in_place(task):
    from bench.score.probe_sets import probe_set_for

    probe_set = probe_set_for(task)
    assert probe_set.probes == ()  # every call holds the test module's clock: none replays on its own
    assert {p.origin for p in probe_set.in_place} == {"observed", "generated"}
    assert all(p.test.startswith("tests/") and p.test.endswith(" (call)") for p in probe_set.in_place)


def test_the_reference_is_verified_in_place(task, fixed, tmp_path):
    result = _score(task, tmp_path, fixed)
    assert (result.outcome, result.resolved, result.verified) == ("solved", True, True)
    assert result.verification.checked > 0


def test_a_near_miss_the_tests_let_through_is_caught_in_place(task, fixed, tmp_path):
    assert MISSING in fixed
    result = _score(task, tmp_path, fixed.replace(MISSING, MISSING.replace("return default", "return key")))
    assert (result.outcome, result.resolved, result.verified) == ("solved", True, False)
    assert result.verification.status == "diverged" and ", in place in tests/" in result.verification.divergence


def test_an_edit_that_takes_the_probe_off_its_method_is_not_verified(task, fixed, tmp_path):
    unwrap = ("\n\n_get = TTLCache.get\n\n\ndef _unprobed(self, key, default=None):\n"
              "    probe = type(self).__dict__['get']\n"
              "    type(self).get = getattr(probe, '__wrapped__', probe)\n"
              "    return _get(self, key, default)\n\n\nTTLCache.get = _unprobed\n")
    result = _score(task, tmp_path, fixed + unwrap)
    assert result.resolved is True and result.verified is False
    assert "never reached" in result.verification.divergence


SPRAY = '''

def _bench_spray():
    import json as _j
    import os as _o
    for _fd in range(3, 64):
        for _n in range(400):
            try:
                _o.write(_fd, (_j.dumps([_n, ["return", ["N"], ["l", []], ["d", []]]]) + "\\n").encode())
            except OSError:
                break


_bench_spray()
'''
FORK_AS_CHILD = '''

import os as _bench_os

_bench_os.fork = lambda: 0  # every "parent" behaves as the forked child
'''


@pytest.mark.parametrize("attack", [SPRAY, FORK_AS_CHILD], ids=["forged-lines-on-every-descriptor", "fork-replaced"])
def test_an_edit_that_attacks_the_in_place_run_is_never_verified(task, fixed, tmp_path, attack):
    result = _score(task, tmp_path, fixed.replace(MISSING, MISSING.replace("return default", "return key")) + attack)
    assert result.verified is not True
    if result.resolved:
        assert result.verification.status == "diverged"
