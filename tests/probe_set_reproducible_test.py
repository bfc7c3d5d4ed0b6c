"""A probe set is reproducible byte for byte: built again on this machine, a synthetic task's set has the sha256
its committed summary names (results/probes/, made on another machine of the pool), and the summary is the one
`bench probes` writes for it."""

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
