from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

import pytest

from bench.errors import UsageError
from bench.loop.convergence import NO_CANDIDATE
from bench.study._scripted_host import HostRunner, load_tasks, played_states, replay
from bench.model.protocol import ModelParams, RequestContext
from bench.model.registry import get_model
from bench.model.scripted import (
    BUCKETS, CONDITIONS, EXPECTED_CLASS, REGIME_TABLE, STUDY_TURN_BUDGET, ScriptedModel, converge_turn,
    find_scripted_root, regime_bucket, regime_of,
)

SCRIPTED_ROOT = find_scripted_root(Path(__file__).parent)
CHECKOUT = SCRIPTED_ROOT.parents[2]
STUDY_DIR = SCRIPTED_ROOT / "study"
TASKS = {task.task_id: task for task in load_tasks(CHECKOUT)}
DATA = {
    json.loads(path.read_text(encoding="utf-8"))["task_id"]: json.loads(path.read_text(encoding="utf-8"))
    for path in sorted(STUDY_DIR.glob("*.json"))
}


def test_regime_table_covers_every_bucket_once_with_the_documented_weights():
    covered = [bucket for first, last, _ in REGIME_TABLE for bucket in range(first, last + 1)]
    assert covered == list(range(BUCKETS))
    weights = {regime: last - first + 1 for first, last, regime in REGIME_TABLE}
    assert weights == {"converge": 40, "oscillate": 20, "stall": 20, "exhaust": 20}


@pytest.mark.parametrize(
    "task_id, bucket, regime, turn",
    [
        ("synthetic.caesar_shift", 67, "stall", 3),
        ("synthetic.chunk_window", 83, "exhaust", 3),
        ("synthetic.roman_numerals", 41, "oscillate", 1),
        ("synthetic.word_frequency", 37, "converge", 2),
        ("synthetic.matrix_basics", 34, "converge", 1),
    ],
)
def test_regime_assignment_is_the_documented_hash(task_id, bucket, regime, turn):
    assert int(hashlib.sha256(task_id.encode()).hexdigest(), 16) % 100 == bucket
    assert regime_bucket(task_id) == bucket
    assert regime_of(task_id) == regime
    assert 1 + int(hashlib.sha256(f"converge-turn:{task_id}".encode()).hexdigest(), 16) % 3 == turn
    assert converge_turn(task_id) == turn


def test_every_synthetic_task_has_a_current_trajectory_with_the_hashed_regime():
    assert TASKS and set(DATA) == set(TASKS)
    for task_id, data in DATA.items():
        assert data["inputs_sha256"] == TASKS[task_id].inputs_sha256, f"{task_id}: regenerate the scripted data"
        assert data["regime"] == regime_of(task_id)
        assert data["turn_budget"] == STUDY_TURN_BUDGET
        for condition in CONDITIONS:
            assert data["conditions"][condition]["expected_class"] == EXPECTED_CLASS[data["regime"]]


def test_count_only_differs_only_by_converging_one_turn_later():
    for task_id, data in DATA.items():
        full, count_only = (data["conditions"][c] for c in CONDITIONS)
        if data["regime"] == "converge":
            assert full["first_solved_turn"] == converge_turn(task_id)
            assert count_only["first_solved_turn"] == converge_turn(task_id) + 1
            assert count_only["responses"][: full["first_solved_turn"] - 1] == full["responses"][:-1]
        else:
            assert count_only["responses"] == full["responses"]


def test_every_trajectory_replays_on_the_host_to_its_expected_class_and_failing_tests():
    runner = HostRunner()
    runner.prefetch([
        (TASKS[task_id], state)
        for task_id, data in DATA.items()
        for condition in CONDITIONS
        for state in played_states(TASKS[task_id], data["conditions"][condition]["responses"], STUDY_TURN_BUDGET)
        if state is not None
    ])
    for task_id, data in DATA.items():
        for condition in CONDITIONS:
            stored = data["conditions"][condition]
            played = replay(TASKS[task_id], stored["responses"], runner, STUDY_TURN_BUDGET)
            where = f"{task_id} [{condition}]"
            assert played.classification.outcome.value == stored["expected_class"], where
            assert played.classification.first_solved_turn == stored["first_solved_turn"], where
            assert [list(f) for f in played.failing] == stored["expected_failing"], where
            assert all(turn.candidate_digest != NO_CANDIDATE for turn in played.turns), where


def test_the_model_replays_the_stored_texts_and_repeats_the_last_one():
    model = get_model("scripted/study")
    task_id, data = next(iter(DATA.items()))
    responses = data["conditions"]["count-only"]["responses"]
    for turn in range(1, len(responses) + 3):
        context = RequestContext(task_id=task_id, turn=turn, condition="count-only")
        text = model.complete((), ModelParams(), context).text
        assert text == responses[min(turn, len(responses)) - 1]
    assert model.deterministic is True and model.model_id == "scripted/study"


def test_unknown_task_condition_or_study_is_a_usage_error(tmp_path):
    model = ScriptedModel("study", ModelParams(), root=SCRIPTED_ROOT)
    with pytest.raises(UsageError):
        model.complete((), ModelParams(), RequestContext(task_id="synthetic.no_such_task"))
    with pytest.raises(UsageError):
        model.complete((), ModelParams(), RequestContext(task_id=next(iter(DATA)), condition="silent"))
    with pytest.raises(UsageError):
        ScriptedModel("no-such-study", ModelParams(), root=SCRIPTED_ROOT)


def test_readme_states_the_realised_regime_mix():
    mix = Counter(data["regime"] for data in DATA.values())
    readme = (SCRIPTED_ROOT / "README.md").read_text(encoding="utf-8")
    line = ", ".join(f"{regime} {mix[regime]}" for _, _, regime in REGIME_TABLE)
    assert f"Realised mix over {len(DATA)} tasks: {line}." in readme


def test_a_label_of_the_spec_leaves_the_scripted_data_current(tmp_path):
    import shutil

    from bench.spec.labels import write_labels
    from bench.study._scripted_host import load_task

    source = CHECKOUT / "tasks" / "synthetic"
    shutil.copytree(source / "anagram_groups", tmp_path / "anagram_groups")
    spec = tmp_path / "anagram_groups.json"
    shutil.copy(source / "anagram_groups.json", spec)
    before = load_task(spec).inputs_sha256
    write_labels(spec, {"authored": "2030-01-01"})
    assert load_task(spec).inputs_sha256 == before == TASKS["synthetic.anagram_groups"].inputs_sha256
    (tmp_path / "anagram_groups" / "tests" / "test_anagrams.py").write_text("def test_other():\n    pass\n")
    assert load_task(spec).inputs_sha256 != before  # what the data depends on still makes it stale
