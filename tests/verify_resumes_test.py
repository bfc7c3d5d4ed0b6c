"""`bench verify` keeps the fresh records it makes: a verify stopped part way resumes from them instead of running
every unit again (the mutation study's takes hours), a group that differs leaves them to read, and a group found
identical removes them."""

from __future__ import annotations

import json
import shutil

from bench.loop.records import UnitRecord
from bench.score.recompute import _folder_name, recompute
from bench.testing.support import checkout_root


def _committed_line(root) -> str:
    lines = (root / "results/study/scripted-study/results.jsonl").read_text(encoding="utf-8").splitlines()
    return next(line for line in lines if '"task_id":"synthetic.caesar_shift"' in line.replace(" ", "")
                and '"condition":"full"' in line.replace(" ", ""))


def test_a_verify_stopped_part_way_resumes_from_the_fresh_records_it_kept(tmp_path):
    root = checkout_root()
    line = _committed_line(root)
    record = UnitRecord.from_json(json.loads(line), "committed")
    keep = tmp_path / "keep"
    folder = keep / _folder_name(f"{record.model}-{record.budget}")
    folder.mkdir(parents=True)
    left = json.loads(line)
    left["class"] = "EXHAUSTED" if left["class"] != "EXHAUSTED" else "STALLED"
    (folder / "records.jsonl").write_text(json.dumps(left) + "\n", encoding="utf-8")

    resumed = recompute([record], root, sandbox_name="bwrap", keep=keep)
    assert [(c.status, c.detail) for c in resumed] == [("different", "first difference at /class")]
    assert (folder / "records.jsonl").read_text(encoding="utf-8").count("\n") == 1  # resumed, not run again

    shutil.rmtree(keep)
    again = recompute([record], root, sandbox_name="bwrap", keep=keep)
    assert [c.status for c in again] == ["identical"]
    assert not keep.exists()


def test_verify_tasks_keeps_the_records_of_the_selected_tasks_and_refuses_a_selection_with_none():
    import pytest

    from bench.cli.verify import _selected
    from bench.errors import UsageError
    from bench.store.records import read_records

    root = checkout_root()
    records = [UnitRecord.from_json(raw, "committed")
               for raw in read_records(root / "results/study/scripted-study/results.jsonl")]
    chosen = _selected(records, "synthetic.caesar_shift", root)
    assert sorted((r.task_id, r.condition) for r in chosen) == [("synthetic.caesar_shift", "count-only"),
                                                                ("synthetic.caesar_shift", "full")]
    with pytest.raises(UsageError, match="no record"):
        _selected(records, "kind:pr", root)
