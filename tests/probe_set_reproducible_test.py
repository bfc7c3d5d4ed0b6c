"""A probe set is reproducible byte for byte: built again on this machine, a synthetic task's set has the sha256
its committed summary names (results/probes/, made on another machine of the pool), and the summary is the one
`bench probes` writes for it. A fresh machine takes the committed set of such a task instead of building it, and
only while the task is the one it was made from."""

from __future__ import annotations

import json

from bench.gate.adequacy_store import certificate_sha256
from bench.probes.store import read_current, summarise, summary_file
from bench.score.probe_sets import probe_set_for
from bench.testing.support import checkout_root, prepared_task

TASK = "synthetic.caesar_shift"


def test_a_rebuilt_probe_set_is_the_committed_one(tmp_path):
    root = checkout_root()
    committed = read_current(root, TASK, certificate_sha256(root, TASK))
    assert committed is not None, f"{summary_file(root, TASK)} is missing or was made under another certificate"
    task = prepared_task(TASK, tmp_path)
    rebuilt = probe_set_for(task, use_cache=False)
    assert rebuilt.sha256 == committed.probe_set_sha256
    mine = summarise(rebuilt, committed.certificate_sha256, committed.near_misses)
    assert json.dumps(mine.to_json(), sort_keys=True) == json.dumps(committed.to_json(), sort_keys=True)


def test_a_fresh_cache_takes_the_committed_set_without_building_it(tmp_path, monkeypatch):
    from bench.probes import committed
    from bench.score import probe_sets

    root = checkout_root()
    summary = read_current(root, TASK, certificate_sha256(root, TASK))
    task = prepared_task(TASK, tmp_path / "scratch")
    monkeypatch.setenv("BENCH_CACHE_DIR", str(tmp_path / "empty-cache"))
    monkeypatch.setattr(probe_sets, "_built", {})

    def no_build(*args, **kwargs):
        raise AssertionError("built although the committed set is current")

    monkeypatch.setattr("bench.probes.probe_set.build", no_build)
    assert committed.set_file(root, TASK).is_file()
    taken = probe_set_for(task)
    assert taken.sha256 == summary.probe_set_sha256
    assert task.integrity["certificate_sha256"] == summary.certificate_sha256


def test_a_changed_task_folder_leaves_the_committed_set_unused(tmp_path, monkeypatch):
    from bench.score import probe_sets

    task = prepared_task(TASK, tmp_path)
    assert probe_sets.committed_set(task) is not None
    monkeypatch.setattr("bench.gate.certify.task_files_digest", lambda spec, root: "0" * 64)
    assert probe_sets.committed_set(task) is None
    monkeypatch.undo()
    monkeypatch.setattr("bench.probes.committed.PROBE_VERSION", "0")
    assert probe_sets.committed_set(task) is None
