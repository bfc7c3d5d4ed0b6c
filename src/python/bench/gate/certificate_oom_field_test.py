"""A run's OOM flag is in a certificate only when true: certificates written before it keep their bytes."""

from __future__ import annotations

from bench.gate.certify import certificate_from_json, summary_from_dict, summary_to_dict
from bench.gate.sets import RunSummary

RUN = RunSummary("base", 0, 1, False, (("t.py::a", "failed"),), (), True)


def test_a_run_without_oom_kill_serialises_as_before_the_field_existed():
    assert "oom_killed" not in summary_to_dict(RUN)
    assert summary_from_dict(summary_to_dict(RUN)) == RUN


def test_an_oom_killed_run_keeps_its_flag_through_json():
    killed = RunSummary("fix", 1, None, False, (), (), False, oom_killed=True)
    assert summary_to_dict(killed)["oom_killed"] is True
    assert summary_from_dict(summary_to_dict(killed)) == killed


def test_a_certificate_round_trips_byte_for_byte_with_and_without_oom_runs():
    from bench.gate.certify import Certificate
    from bench.gate.sets import Decision, GateSets

    killed = RunSummary("fix", 0, None, False, (), (), False, oom_killed=True)
    certificate = Certificate("t", "s", 3, "img", "sha256:x", "l", "e", {}, "0.1.0", "gate-v1", (RUN, killed),
                              GateSets((), (), (), (), ()), Decision(False, "oom_killed:collection_failed"))
    data = certificate.to_json()
    assert data.count(b"oom_killed\":") == 1  # only the killed run carries the flag
    assert certificate_from_json(data) == certificate and certificate_from_json(data).to_json() == data


def test_a_memory_bomb_run_is_summarised_as_oom_killed_and_dropped_as_such():
    from bench.gate.certify import summarise
    from bench.gate.sets import decide, derive_sets
    from bench.verdict.run_tests import TestRun

    bomb = TestRun(exit_code=None, timed_out=False, oom_killed=True, report=None, junit_sha256="",
                   log_sha256="", log_tail="Killed", wall_seconds=3.0)
    runs = [summarise("base", 0, bomb)]
    assert runs[0].oom_killed and not runs[0].had_report
    assert decide(runs, derive_sets(runs)).reason == "oom_killed:collection_failed_at_base"
