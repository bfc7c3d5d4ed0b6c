"""`bench score --feed-divergences`: a resolved turn the verified tier finds diverging is fed back and the loop
goes on; by default the loop stops at it and nothing of the probes reaches the model. A real loop over a real
task in the bubblewrap sandbox (synthetic.ttl_cache, probed in place); the model is a two-turn worker: turn 1 a
near miss the tests let through, turn 2 the reference."""

from __future__ import annotations

import re

import pytest

from bench.model.protocol import Completion, ModelParams
from bench.score.repair_loop import LoopConfig, run_loop
from bench.testing.support import checkout_root, prepared_task, whole_file_edit

TASK = "synthetic.ttl_cache"
MISSING = "        if entry is None:\n            return default\n"


class NearMissThenFix:
    model_id = "test/near-miss-then-fix"
    deterministic = True

    def __init__(self, initial: str, reference: str):
        assert MISSING in reference
        near = reference.replace(MISSING, MISSING.replace("return default", "return key"))
        self.edits = {1: whole_file_edit("ttlcache.py", initial, near), 2: whole_file_edit("ttlcache.py", near, reference)}
        self.seen = []

    def complete(self, messages, params, context):
        self.seen.append(context.feedback)
        return Completion(self.edits.get(context.turn, "no edit"))


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    return prepared_task(TASK, tmp_path_factory.mktemp("prepared"))


def _loop(task, condition="full", budget=3, **config):
    folder = checkout_root() / task.spec.synthetic_dir
    worker = NearMissThenFix((folder / "initial" / "ttlcache.py").read_text(),
                             (folder / "reference" / "ttlcache.py").read_text())
    fields, _, _ = run_loop(task, worker, ModelParams(), LoopConfig(budget=budget, condition=condition, **config),
                            sample=0, store_dir=None)
    return fields, worker.seen


def test_by_default_the_loop_stops_at_a_resolved_turn_and_the_probes_stay_hidden(task):
    fields, seen = _loop(task)
    (first,) = fields["turns"]
    assert (first.resolved, first.verified) == (True, False)
    assert (fields["resolved"], fields["verified"], fields["first_solved_turn"]) == (True, False, 1)
    assert "feed_divergences" not in fields and seen == [""]


def test_fed_divergences_name_the_first_one_and_the_loop_goes_on_to_a_verified_fix(task):
    fields, seen = _loop(task, feed_divergences=True)
    first, second = fields["turns"]
    assert (first.resolved, first.verified, second.resolved, second.verified) == (True, False, True, True)
    assert (fields["resolved"], fields["verified"], fields["first_solved_turn"]) == (True, True, 1)
    assert fields["feed_divergences"] is True
    told = seen[1]
    assert told.startswith("Every test passes now, but the fix is not yet correct")
    assert "ttlcache.py: " in told and "expected " in told and ", got " in told


def test_count_only_feedback_counts_the_divergences_without_showing_one(task):
    fields, seen = _loop(task, "count-only", budget=2, feed_divergences=True)
    told = seen[1]
    assert re.fullmatch(r"Every test passes now, but the fix is not yet correct: a hidden check that calls your "
                        r"functions on other inputs and compares them with the reference's found [1-9]\d* "
                        r"differences?\.", told), told
    assert fields["turns"][0].verified is False
