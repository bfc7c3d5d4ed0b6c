"""The check's decision over its replays (the replays themselves scripted): a probe the reference no longer
answers as recorded decides nothing, and a divergence must repeat in a second replay of the candidate."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.probes import verify as check
from bench.probes.probe_set import Probe, ProbeSet, ProbeTarget

RIGHT = '["return",["i","1"],["l",[]],["d",[]]]'
WRONG = '["return",["i","2"],["l",[]],["d",[]]]'
PROBES = ProbeSet("t", "13", (ProbeTarget("m.py", "f", "m", 2, 0),),
                  (Probe(0, '["l",[["i","0"]]]', '["d",[]]', "observed", RIGHT),
                   Probe(0, '["l",[["i","5"]]]', '["d",[]]', "generated", RIGHT)), ())


def scripted(monkeypatch, runs: dict, slower: dict | None = None):
    """Each replay answers as ``runs`` says for its scratch folder's name (and notes in ``slower`` how much more
    time a call had)."""
    def answers(probe_set, reference, sources, tree: Path, limits, source_files, slower_by=1.0):
        if slower is not None:
            slower[tree.name] = slower_by
        return runs[tree.name], ""

    monkeypatch.setattr(check, "_answers", lambda *args, slower=1.0: answers(*args, slower_by=slower))


def run():
    return check.verify(PROBES, None, (), Path("/scratch"), limits=None, source_files=(),
                        reference_again=lambda: ())


def test_a_divergence_that_does_not_repeat_is_not_held_against_the_candidate(monkeypatch):
    scripted(monkeypatch, {"verify": (RIGHT, WRONG), "again": (RIGHT, RIGHT), "repeat": (RIGHT, RIGHT)})
    assert run().status == "verified"


def test_a_divergence_that_repeats_names_its_probe(monkeypatch):
    scripted(monkeypatch, {"verify": (RIGHT, WRONG), "again": (RIGHT, RIGHT), "repeat": (RIGHT, WRONG)})
    result = run()
    assert (result.status, result.diverged) == ("diverged", 1)
    assert "m.py: f(5) (generated input): expected 1, got 2" in result.divergence


@pytest.mark.parametrize("again", [(RIGHT, WRONG), (RIGHT, "")], ids=["answers-otherwise", "stops"])
def test_a_probe_the_reference_no_longer_answers_as_recorded_decides_nothing(monkeypatch, again):
    scripted(monkeypatch, {"verify": (RIGHT, WRONG), "again": again, "repeat": (RIGHT, WRONG)})
    assert run().status == "verified"


def test_a_divergence_is_replayed_again_with_more_time_a_call(monkeypatch):
    """business_days' reference answers ``add_business_days(date(2024, 3, 8), 0.5, …)`` by running to the last
    date, 1.9 s of a call's 2: on a loaded machine the candidate's replay of that call timed out, and so did its
    repeat with the same time. The repeat has REPEAT_SLOWER times as long; the first replay and the reference's
    again keep the usual time."""
    TIMEOUT = '["timeout"]'
    slower: dict = {}
    scripted(monkeypatch, {"verify": (RIGHT, TIMEOUT), "again": (RIGHT, RIGHT), "repeat": (RIGHT, RIGHT)}, slower)
    assert run().status == "verified"
    assert slower == {"verify": 1.0, "again": 1.0, "repeat": check.REPEAT_SLOWER} and check.REPEAT_SLOWER > 1
