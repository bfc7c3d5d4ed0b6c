from __future__ import annotations

import json

from bench.study._scripted_host import HostRunner, apply_response, load_tasks
from bench.study._scripted_pool import _hunks, candidate_pool, cosmetic_variant
from bench.model.scripted import find_scripted_root
from bench.study.generate import _no_op, build

SCRIPTED_ROOT = find_scripted_root()
CHECKOUT = SCRIPTED_ROOT.parents[2]
TASKS = {task.task_id: task for task in load_tasks(CHECKOUT)}


def test_generation_is_deterministic_it_rebuilds_a_committed_file_byte_for_byte():
    task = TASKS["synthetic.matrix_basics"]  # converge at turn 1: two host runs plus a short search
    committed = json.loads((SCRIPTED_ROOT / "study" / "matrix_basics.json").read_text(encoding="utf-8"))
    assert build(task, HostRunner()) == committed


def test_equal_length_replacements_split_into_one_line_hunks():
    assert _hunks("a\nb\nc\n", "a\nB\nC\n") == [("replace", 1, 2, 1, 2), ("replace", 2, 3, 2, 3)]
    assert _hunks("a\nb\n", "a\nx\ny\nb\n") == [("insert", 1, 1, 1, 3)]


def test_pool_never_offers_the_initial_or_the_reference_program_and_never_twice():
    task = TASKS["synthetic.caesar_shift"]
    seen = [files for _, files in candidate_pool(task)]
    assert len(seen) == len(set(seen)) > 10
    assert task.initial not in seen and task.reference not in seen


def test_cosmetic_variant_changes_bytes_but_keeps_every_existing_line():
    label, files = cosmetic_variant(("x", TASKS["synthetic.caesar_shift"].reference), 2)
    (path, text), = files
    (_, original), = TASKS["synthetic.caesar_shift"].reference
    assert text != original and text.startswith(original) and text.endswith("# revision 2\n")


def test_a_no_op_reply_applies_and_leaves_the_files_unchanged():
    task = TASKS["synthetic.caesar_shift"]
    state = task.reference
    reply = _no_op(task, state)
    search, replace = reply.split("<<<<<<< SEARCH\n")[1].split(">>>>>>> REPLACE")[0].split("=======\n")
    assert search == replace and search.strip()
    assert apply_response(task, state, reply) == state


def test_the_batch_runner_observes_what_separate_pytest_processes_observe():
    items = [(task, files) for task in list(TASKS.values())[:3] for files in (task.initial, task.reference)]
    batch, single = HostRunner(), HostRunner()
    batch.prefetch(items)
    for task, files in items:
        assert batch.observe(task, files) == single.observe(task, files)
    assert single.runs == len(items)
