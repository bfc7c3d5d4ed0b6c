"""What a model reads in the repair loop after an edit that passes its targets but breaks a pass_to_pass test:
never "all passed", and under full feedback the broken test by name with its output (docs/ARCHITECTURE.md §2
"What a model is told"). A real loop over a real task in the bubblewrap sandbox; the model is a two-turn
worker that records the conversation it is sent."""

from __future__ import annotations

import pytest

from bench.model.protocol import Completion, ModelParams
from bench.score.repair_loop import LoopConfig, run_loop
from bench.testing.support import checkout_root, prepared_task, whole_file_edit

TASK = "synthetic.caesar_shift"
GUARD = "tests/test_caesar.py::test_non_letters_unchanged"


class GuardBreakingWorker:
    """Turn 1: the reference with a dash turned into a question mark (the targets pass, a guard test breaks).
    Turn 2: records what it was sent and answers nothing applicable."""

    model_id = "test/guard-breaker"
    deterministic = True

    def __init__(self, initial: str, reference: str):
        broken = reference.replace("    return ch\n", '    return "?" if ch == "-" else ch\n')
        assert broken != reference
        self.edit = whole_file_edit("caesar.py", initial, broken)
        self.seen = []

    def complete(self, messages, params, context):
        if context.turn == 1:
            return Completion(self.edit)
        self.seen.append((messages[-1].content, context.feedback))
        return Completion("no edit")


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    return prepared_task(TASK, tmp_path_factory.mktemp("prepared"))


def _loop(task, condition: str):
    folder = checkout_root() / task.spec.synthetic_dir
    worker = GuardBreakingWorker((folder / "initial" / "caesar.py").read_text(),
                                 (folder / "reference" / "caesar.py").read_text())
    fields, _, _ = run_loop(task, worker, ModelParams(), LoopConfig(budget=2, condition=condition), sample=0,
                            store_dir=None)
    first = fields["turns"][0]
    assert (first.outcome.value, first.resolved, first.failing) == ("solved", False, (GUARD,))
    assert fields["resolved"] is False
    (message, feedback), = worker.seen
    assert message.startswith(feedback + "\n")  # what the loop feeds back is the start of the next user turn
    return feedback


def test_full_feedback_names_the_broken_pass_to_pass_test_with_its_output(task):
    feedback = _loop(task, "full")
    head, section = feedback.split("\n\n", 1)
    assert head == "The target tests pass now, but your edit broke 1 test that passed before it:"
    assert section.startswith(f"### {GUARD} (failed)\n")
    assert "AssertionError: assert 'c?d e!9' == 'c-d e!9'" in section
    assert "all target tests passed" not in feedback


def test_count_only_feedback_counts_the_broken_test_without_naming_it(task):
    total = len(task.spec.fail_to_pass) + len(task.spec.pass_to_pass)
    assert _loop(task, "count-only") == (
        f"1 of {total} tests fail: the target tests pass now, but your edit broke 1 test that passed before it.")
