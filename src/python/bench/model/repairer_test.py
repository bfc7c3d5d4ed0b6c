from __future__ import annotations

import ast
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.attempt.edits import apply_edits, parse_edits
from bench.errors import UsageError
from bench.model.protocol import Message, ModelParams, RequestContext
from bench.model.registry import get_model
from bench.model.repairer import Repairer, localise, rank, render_search_replace
from bench.model.repair_candidates import enumerate_mutations

# A window sum that reads the window shifted by one: an off-by-one in an index.
BUGGY = '''\
def window_sum(values, start, width):
    """Sum of values[start:start + width]."""
    total = 0
    for index in range(start, start + width):
        total += values[index + 1]
    return total


def mean(values):
    if not values:
        return 0.0
    return sum(values) / len(values)


def scale(values, factor):
    return [value * factor for value in values if value is not None]
'''

TESTS = '''\
from stats import mean, scale, window_sum


def test_window_sum_whole_list():
    assert window_sum([1, 2, 3, 4], 0, 4) == 10


def test_window_sum_middle():
    assert window_sum([1, 2, 3, 4], 1, 2) == 5


def test_mean():
    assert mean([1, 2, 3]) == 2


def test_scale():
    assert scale([1, None, 2], 3) == [3, 6]
'''

SOURCE_PATH = "stats.py"
SOLVED_TURN_FULL = 4  # pinned: the repairer is deterministic


def _apply(files: dict[str, str], text: str) -> dict[str, str]:
    """Apply a reply with the harness's own parser and applier, in a scratch workspace."""
    with tempfile.TemporaryDirectory() as scratch:
        workspace = Path(scratch)
        for path, content in files.items():
            (workspace / path).write_text(content)
        apply_edits(workspace, parse_edits(text), allowed_paths=tuple(files))
        return {path: (workspace / path).read_text() for path in files}


def _context(files: dict[str, str], turn: int = 1, condition: str = "full", feedback: str = "",
             base: dict[str, str] | None = None, task_id: str = "unit.window") -> RequestContext:
    return RequestContext(
        task_id=task_id,
        turn=turn,
        condition=condition,
        source_files=tuple(sorted(files.items())),
        feedback=feedback,
        base_files=tuple(sorted((base or {}).items())),
    )


def _run_tests(workdir: Path, files: dict[str, str]) -> tuple[bool, str]:
    for path, text in files.items():
        (workdir / path).write_text(text)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "--tb=short", "-p", "no:cacheprovider", "tests"],
        cwd=workdir, capture_output=True, text=True, check=False,
        env=dict(os.environ, PYTHONPATH=".", PYTEST_DISABLE_PLUGIN_AUTOLOAD="1"),
    )
    return done.returncode == 0, done.stdout


def _loop(tmp_path: Path, condition: str, budget: int) -> tuple[int | None, list[str]]:
    """Run a tiny cumulative repair loop; returns (first solved turn or None, responses)."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_stats.py").write_text(TESTS)
    model = Repairer("ast", ModelParams())
    files = {SOURCE_PATH: BUGGY}
    passed, output = _run_tests(tmp_path, files)
    assert not passed
    responses = []
    for turn in range(1, budget + 1):
        feedback = "" if turn == 1 else (output if condition == "full" else output.splitlines()[-1])
        text = model.complete((), ModelParams(), _context(files, turn, condition, feedback)).text
        responses.append(text)
        files = _apply(files, text)
        passed, output = _run_tests(tmp_path, files)
        if passed:
            return turn, responses
    return None, responses


def test_same_context_gives_the_same_text_across_instances_and_calls():
    context = _context({SOURCE_PATH: BUGGY}, feedback="stats.py:5: IndexError")
    first = Repairer("ast", ModelParams()).complete((), ModelParams(), context).text
    model = Repairer("ast", ModelParams())
    assert model.complete((), ModelParams(), context).text == first
    assert model.complete((), ModelParams(), context).text == first  # a repeated turn-1 request resets
    assert get_model("repairer/ast").complete((), ModelParams(), context).text == first


def test_never_proposes_the_same_candidate_or_program_twice(tmp_path):
    model = Repairer("ast", ModelParams())
    files = {SOURCE_PATH: BUGGY}
    programs, keys = [], []
    count = len(enumerate_mutations(SOURCE_PATH, BUGGY))
    for turn in range(1, count + 1):
        text = model.complete((), ModelParams(), _context(files, turn, "count-only", "1 test fails")).text
        keys.append(text.split("[candidate ", 1)[1].split("]", 1)[0])
        files = _apply(files, text)
        programs.append(files[SOURCE_PATH])
    assert len(set(keys)) == len(keys) == count == 20
    assert len(set(programs)) == count and BUGGY not in programs


def test_each_turn_is_base_plus_exactly_one_mutation():
    model = Repairer("ast", ModelParams())
    candidates = {m.key: m for m in enumerate_mutations(SOURCE_PATH, BUGGY)}
    files = {SOURCE_PATH: BUGGY}
    for turn in range(1, 6):
        text = model.complete((), ModelParams(), _context(files, turn, "count-only", "2 tests fail")).text
        key = text.split("[candidate ", 1)[1].split("]", 1)[0]
        files = _apply(files, text)
        mutation = candidates[key]
        data = BUGGY.encode()
        expected = data[: mutation.start] + mutation.replacement.encode() + data[mutation.end :]
        assert files[SOURCE_PATH] == expected.decode()  # the previous try was reverted


def test_fixes_a_single_off_by_one_within_the_study_budget_under_full_feedback(tmp_path):
    solved_turn, responses = _loop(tmp_path, "full", budget=5)
    assert solved_turn == SOLVED_TURN_FULL, responses
    assert "values[index + 0]" in responses[-1] or "values[(index + 1) - 1]" in responses[-1]


def test_traceback_lines_rank_the_nearest_candidates_first():
    context = _context({SOURCE_PATH: BUGGY}, feedback="/tmp/w/stats.py:5: in window_sum\nIndexError: list index")
    candidates = enumerate_mutations(SOURCE_PATH, BUGGY)
    ranked = rank(candidates, context, (SOURCE_PATH,))
    on_line_5 = sum(1 for m in candidates if m.lineno == 5)
    assert on_line_5 == 6
    assert {m.lineno for m in ranked[:on_line_5]} == {5}
    assert {m.lineno for m in ranked[on_line_5 : on_line_5 + 4]} == {4}  # line 6 has no candidate


def test_named_functions_rank_before_unnamed_ones_without_locations():
    context = _context({SOURCE_PATH: BUGGY}, feedback="FAILED tests/test_stats.py::test_mean - assert 0 == 2")
    ranked = rank(enumerate_mutations(SOURCE_PATH, BUGGY), context, (SOURCE_PATH,))
    in_mean = sum(1 for m in enumerate_mutations(SOURCE_PATH, BUGGY) if m.function == "mean")
    assert {m.function for m in ranked[:in_mean]} == {"mean"}


def test_without_localisation_the_order_is_the_seeded_permutation_and_the_seed_varies_by_sample():
    files = {SOURCE_PATH: BUGGY}
    texts = {
        sample: Repairer().complete((), ModelParams(), RequestContext(
            task_id="unit.window", sample=sample, condition="count-only",
            source_files=tuple(files.items()), feedback="1 test fails")).text
        for sample in range(6)
    }
    assert len(set(texts.values())) > 1


def test_the_condition_label_changes_only_the_tie_break_not_the_use_of_locations():
    feedback = "stats.py:5: in window_sum\nIndexError: list index out of range"
    candidates = enumerate_mutations(SOURCE_PATH, BUGGY)
    for condition in ("full", "count-only"):
        context = _context({SOURCE_PATH: BUGGY}, condition=condition, feedback=feedback)
        assert {m.lineno for m in rank(candidates, context, (SOURCE_PATH,))[:6]} == {5}


def test_localise_ignores_files_that_are_not_editable():
    where = localise("tests/test_stats.py:12: AssertionError\nstats.py:4: in window_sum", (SOURCE_PATH,))
    assert where.lines == ((SOURCE_PATH, 4),)


def test_previous_candidates_in_assistant_messages_count_as_tried():
    files = {SOURCE_PATH: BUGGY}
    first = Repairer().complete((), ModelParams(), _context(files)).text
    history = (Message("user", "fix it"), Message("assistant", first))
    fresh = Repairer()
    second = fresh.complete(history, ModelParams(), _context(_apply(files, first), 2, base=files)).text
    assert second.split("[candidate ")[1][:16] != first.split("[candidate ")[1][:16]


def test_no_untried_candidate_left_gives_a_reply_without_edits():
    files = {"tiny.py": "def f():\n    return 1\n"}
    model = Repairer()
    replies = [model.complete((), ModelParams(), _context(files, turn, base=files)).text for turn in (1, 2, 3)]
    assert "<<<<<<< SEARCH" in replies[0] and "<<<<<<< SEARCH" in replies[1]
    assert "no untried candidate remains" in replies[2] and "SEARCH" not in replies[2]


def test_search_text_is_widened_until_it_is_unique():
    old = "x = 1\ny = 2\nx = 1\nz = 3\n"
    new = "x = 1\ny = 2\nx = 2\nz = 3\n"
    block = render_search_replace("m.py", old, new)
    assert block == "m.py\n<<<<<<< SEARCH\ny = 2\nx = 1\nz = 3\n=======\ny = 2\nx = 2\nz = 3\n>>>>>>> REPLACE\n"
    assert _apply({"m.py": old}, block) == {"m.py": new}


def test_unknown_strategy_is_a_usage_error():
    with pytest.raises(UsageError):
        get_model("repairer/genetic")


def test_emitted_candidates_always_parse():
    model = Repairer()
    files = {SOURCE_PATH: BUGGY}
    for turn in range(1, 11):
        files = _apply(files, model.complete((), ModelParams(), _context(files, turn, "count-only", "x")).text)
        ast.parse(files[SOURCE_PATH])


@settings(max_examples=150, deadline=None)
@given(
    old=st.lists(st.sampled_from(["a\n", "b\n", "c\n", "\n", "    x = 1\n"]), max_size=12),
    new=st.lists(st.sampled_from(["a\n", "b\n", "d\n", "\n", "    x = 2\n"]), max_size=12),
)
def test_rendered_blocks_turn_any_text_into_any_other_with_the_harness_applier(old, new):
    old_text, new_text = "".join(old), "".join(new)
    blocks = render_search_replace("m.py", old_text, new_text)
    if old_text == new_text:
        assert blocks == ""
    else:
        assert _apply({"m.py": old_text}, blocks) == {"m.py": new_text}


def test_separate_changes_become_separate_blocks():
    old = "".join(f"line {i}\n" for i in range(20))
    new = old.replace("line 2\n", "line two\n").replace("line 17\n", "line seventeen\n")
    blocks = render_search_replace("m.py", old, new)
    assert blocks.count("<<<<<<< SEARCH") == 2
    assert "line 10" not in blocks
    assert _apply({"m.py": old}, blocks) == {"m.py": new}
