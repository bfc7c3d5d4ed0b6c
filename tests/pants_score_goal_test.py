"""`./pants score` and `./pants certify` as cached build goals, run by a real Pants in a small copy of the
checkout (three synthetic tasks, the harness, the plugin). The remote cache two clones share is tested beside
this file (pants_remote_cache_test.py), so the two run at once.

Counts come from the goals' own lines, which report where Pants got each process's result (its run
metadata: ran here, hit the local cache, hit the remote cache).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bench.testing.small_checkout import OWN_LOCK, TASKS
from bench.testing.small_checkout import pants as _pants
from bench.testing.small_checkout import small_checkout as _small_checkout
from bench.testing.small_checkout import sources as _sources
from bench.testing.support import run_bench


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    return _small_checkout(tmp_path_factory.mktemp("checkout"))


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    """The small checkout's local cache, shared by the tests that use that checkout: the second finds the pex
    the first built (built again, it took a third of a minute) and asserts nothing about what ran."""
    return tmp_path_factory.mktemp("store") / "store"


def test_pants_score_equals_bench_score_is_cached_and_reruns_exactly_the_changed_locks_task(checkout, store,
                                                                                           tmp_path):
    selector = ",".join(f"synthetic.{name}" for name in TASKS)
    reference = run_bench("score", "--model", "scripted", "--tasks", selector, "--out", str(tmp_path / "ref"),
                          "--no-preflight", cwd=checkout, timeout=1800)
    assert reference.returncode == 0, reference.stderr[-2000:]

    first = _pants(checkout, "score", "--model=scripted", "tasks/synthetic::", store=store)
    scored = _sources(first, "scored")
    assert sorted(how for how, _ in scored) == ["scored"] * 6, first.stderr[-2000:]
    out = checkout / "results/runs/scripted-study/pants"
    assert (out / "results.jsonl").read_bytes() == (tmp_path / "ref/results.jsonl").read_bytes()
    assert (out / "report/report.md").is_file() and (out / "summary.json").is_file()

    again = _pants(checkout, "score", "--model=scripted", "tasks/synthetic::", store=store)
    assert sorted(how for how, _ in _sources(again, "scored")) == ["cached"] * 6
    assert "units: 0 ran, 6 cached, 0 remote" in again.stderr

    lock = checkout / f"lockfiles/tasks/synthetic-{OWN_LOCK}.lock"
    lock.write_text(lock.read_text() + "# this task's own copy of the synthetic lock\n")
    changed = _pants(checkout, "score", "--model=scripted", "tasks/synthetic::", store=store)
    ran = sorted(what for how, what in _sources(changed, "scored") if how == "scored")
    assert ran == [f"synthetic.{OWN_LOCK} loop:count-only:0", f"synthetic.{OWN_LOCK} loop:full:0"]
    assert "units: 2 ran, 4 cached, 0 remote" in changed.stderr


def test_pants_score_refuses_a_model_that_is_not_deterministic(checkout, store):
    done = subprocess.run(["./pants", "--no-pantsd", f"--local-store-dir={store}", "score",
                           "--model=openai/gpt-4o-mini", "tasks/synthetic::"], cwd=checkout, capture_output=True,
                          text=True, timeout=1800)
    assert done.returncode == 2, done.stderr[-2000:]
    assert "does not declare itself deterministic" in done.stderr
    assert "bench score --model openai/gpt-4o-mini" in done.stderr
