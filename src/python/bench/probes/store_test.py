from __future__ import annotations

from bench.probes.probe_set import Probe, ProbeSet, ProbeTarget
from bench.probes.store import NearMissProbes, read_current, stats, summarise, write

PROBE_SET = ProbeSet("t.one", "2", (ProbeTarget("m.py", "f", "m", 5, 1, "a cycle"), ProbeTarget("m.py", "g", "", 0, 0)),
                     (Probe(0, '["l",[]]', '["d",[]]', "observed", '["return",["N"],["l",[]],["d",[]]]'),
                      Probe(0, '["l",[["i","1"]]]', '["d",[]]', "generated", '["return",["N"],["l",[]],["d",[]]]')),
                     (("the reference answers it differently each time", 2),))


def test_a_summary_is_bound_to_the_certificate_it_was_made_under(tmp_path):
    near = NearMissProbes(3, (("m.py", "comparison", 2, 10, 11),), (("m.py", "negation", 4, 30, 33, "not x"),), "1 gone")
    summary = summarise(PROBE_SET, "abc", near)
    assert (summary.probes, summary.observed, summary.generated) == (2, 1, 1)
    assert summary.targets[0] == ("m.py", "f", "m", 5, 1, "a cycle", 2)
    assert summary.probe_set_sha256 == PROBE_SET.sha256
    write(tmp_path, summary)
    assert read_current(tmp_path, "t.one", "abc") == summary
    assert read_current(tmp_path, "t.one", "other") is None
    assert read_current(tmp_path, "t.two", "abc") is None


def test_stats_count_survivors_the_probes_kill():
    killed = summarise(PROBE_SET, "a", NearMissProbes(2, (("m.py", "x", 1, 1, 2), ("m.py", "y", 1, 3, 4)), ()))
    kept = summarise(PROBE_SET, "a", NearMissProbes(2, (("m.py", "x", 1, 1, 2),), (("m.py", "y", 1, 3, 4, "b"),)))
    assert stats({"a": killed, "b": kept, "c": None}) == {
        "tasks": 3, "summarised": 2, "with_probes": 2, "probes": 4, "survivors": 4, "killed_by_probes": 3,
        "tasks_with_survivors": 2, "tasks_still_surviving": 1}


def test_the_probe_set_round_trips_through_its_canonical_bytes():
    from bench.probes.probe_set import read

    assert read(PROBE_SET.canonical()) == PROBE_SET
