from __future__ import annotations

import gzip
import os

from bench.probes import committed
from bench.probes.probe_set import Probe, ProbeSet, ProbeTarget

PROBE_SET = ProbeSet("synthetic.one", "19", (ProbeTarget("m.py", "f", "m", 1, 0),),
                     (Probe(0, '["l",[]]', '["d",[]]', "observed", '["return",["N"],["l",[]],["d",[]]]'),), ())
INPUTS = committed.made_from("t" * 64, "c" * 64)


def test_a_committed_set_is_read_back_while_it_was_made_from_the_same_inputs(tmp_path):
    committed.write(tmp_path, PROBE_SET, INPUTS)
    assert committed.read(tmp_path, "synthetic.one", INPUTS, PROBE_SET.sha256) == PROBE_SET
    other = committed.made_from("u" * 64, "c" * 64)
    assert committed.read(tmp_path, "synthetic.one", other, PROBE_SET.sha256) is None
    assert committed.read(tmp_path, "synthetic.one", INPUTS, "0" * 64) is None  # the summary names another set
    assert committed.read(tmp_path, "synthetic.two", INPUTS, PROBE_SET.sha256) is None


def test_a_damaged_committed_set_is_not_taken(tmp_path):
    path = committed.write(tmp_path, PROBE_SET, INPUTS)
    path.write_bytes(path.read_bytes()[:-5])
    assert committed.read(tmp_path, "synthetic.one", INPUTS, PROBE_SET.sha256) is None
    path.write_bytes(gzip.compress(b'{"made_from": 1}'))
    assert committed.read(tmp_path, "synthetic.one", INPUTS, PROBE_SET.sha256) is None


def test_writing_the_same_set_again_leaves_the_file_as_it_is(tmp_path):
    path = committed.write(tmp_path, PROBE_SET, INPUTS)
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    committed.write(tmp_path, PROBE_SET, INPUTS)
    assert path.stat().st_mtime_ns == 1_000_000_000
    changed = ProbeSet("synthetic.one", "19", PROBE_SET.targets, (), (), "no input")
    committed.write(tmp_path, changed, INPUTS)
    assert path.stat().st_mtime_ns != 1_000_000_000
    assert committed.read(tmp_path, "synthetic.one", INPUTS, changed.sha256) == changed


def test_a_set_made_by_other_probe_code_is_not_taken_though_the_probe_version_is_the_same(tmp_path, monkeypatch):
    """Probe versions 24 and 25 changed generation and kept the number 23: their ``bench probes`` took the
    committed sets of version 23 again, and counted a kill their own generation no longer made."""
    committed.write(tmp_path, PROBE_SET, INPUTS)
    assert INPUTS["code"] == committed.probe_code_digest()
    monkeypatch.setattr(committed, "probe_code_digest", lambda: "0" * 64)
    now = committed.made_from("t" * 64, "c" * 64)
    assert now["probes"] == INPUTS["probes"] and committed.read(tmp_path, "synthetic.one", now, PROBE_SET.sha256) is None
