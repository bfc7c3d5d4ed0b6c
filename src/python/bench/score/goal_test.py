from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.errors import UsageError
from bench.model.protocol import ModelParams
from bench.score import goal
from bench.score.runner import RunPlan
from bench.testing.support import checkout_root, load_task


def _plan(model_id: str, **fields) -> RunPlan:
    specs = (load_task("synthetic.caesar_shift"), load_task("synthetic.anagram_groups"))
    return RunPlan(model_id=model_id, specs=specs, out_dir=Path("out"), root=checkout_root(), **fields)


def test_plan_lists_each_tasks_units_and_the_files_its_model_reads():
    document = goal.plan_document(_plan("scripted/study", turns=5, conditions=("full", "count-only"), samples=2))
    assert document["model"] == "scripted/study"
    assert [task["spec"] for task in document["tasks"]] == ["tasks/synthetic/anagram_groups.json",
                                                             "tasks/synthetic/caesar_shift.json"]
    caesar = document["tasks"][1]
    assert caesar["task_id"] == "synthetic.caesar_shift"
    assert caesar["units"] == ["loop:full:0", "loop:count-only:0", "loop:full:1", "loop:count-only:1"]
    assert caesar["inputs"] == ["tasks/synthetic/_scripted/study/caesar_shift.json"]
    assert (checkout_root() / caesar["inputs"][0]).is_file()


def test_unit_arguments_carry_only_what_decides_a_units_record():
    plan = _plan("repairer/ast", turns=3, conditions=("full", "count-only"), samples=4, use_cache=False,
                 params=ModelParams(temperature=0.5, seed=7, context_size=4096))
    assert goal.unit_arguments(plan) == [
        "--model", "repairer/ast", "--turns", "3", "--temperature", "0.5", "--seed", "7", "--max-tokens", "2048",
        "--timeout", "120.0", "--context-size", "4096", "--no-cache"]
    document = goal.plan_document(plan)
    assert document["tasks"][0]["inputs"] == []  # the repairer reads nothing but the task
    assert json.loads(json.dumps(document)) == document


@pytest.mark.parametrize("model_id", ["openai/gpt-4o-mini", "ollama/qwen3:0.6b"])
def test_a_model_that_does_not_declare_itself_deterministic_is_refused(model_id):
    with pytest.raises(UsageError, match=f"bench score --model {model_id}"):
        goal.plan_document(_plan(model_id, turns=1))


def test_unit_names_round_trip_and_bad_ones_are_usage_errors():
    spec = load_task("synthetic.caesar_shift")
    unit = goal.parse_unit_name(spec, "repairer/ast", "loop:count-only:3")
    assert (unit.kind, unit.condition, unit.sample) == ("loop", "count-only", 3)
    assert goal.unit_name(unit) == "loop:count-only:3"
    for bad in ("loop:full", "loop:full:x", "a:b:c:d"):
        with pytest.raises(UsageError, match="KIND:CONDITION:SAMPLE"):
            goal.parse_unit_name(spec, "repairer/ast", bad)


def test_merge_refuses_a_unit_it_was_not_given_and_a_folder_in_use(tmp_path):
    plan = _plan("repairer/ast", turns=1)
    plan = RunPlan(**{**plan.__dict__, "out_dir": tmp_path / "run", "commit": "c0ffee"})
    with pytest.raises(UsageError, match=r"no finished unit loop:full:0 of synthetic.caesar_shift .*\(2 missing\)"):
        goal.merge(plan, [])
    assert not plan.out_dir.exists()
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "results.jsonl").write_text("")
    with pytest.raises(UsageError, match="is not empty"):
        goal.merge(RunPlan(**{**plan.__dict__, "out_dir": tmp_path / "used"}), [])


def test_a_unit_file_of_another_version_is_refused(tmp_path):
    path = tmp_path / "unit.json"
    path.write_text(json.dumps({"version": 0, "task_id": "t", "unit": "loop:full:0", "record": {}}))
    with pytest.raises(UsageError, match="not a unit file of this harness"):
        goal.read_unit_files([path])
