"""scripts/compare_runs.py compares two runs given as folders or results files, and refuses what is neither."""

from __future__ import annotations

import importlib.util
import json

from bench.testing.support import checkout_root


def _script():
    spec = importlib.util.spec_from_file_location("compare_runs", checkout_root() / "scripts/compare_runs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _write(folder, **changed):
    folder.mkdir()
    record = {"task_id": "t", "model": "scripted/study", "condition": "full", "sample": 0,
              "integrity": {"benchmark_commit": "a"}, "turns": [{"resolved": True}], **changed}
    (folder / "results.jsonl").write_text(json.dumps(record) + "\n")
    return folder


def test_a_run_folder_is_read_as_its_results_file(tmp_path, capsys):
    old, new = _write(tmp_path / "old"), _write(tmp_path / "new", integrity={"benchmark_commit": "b"})
    assert _script().main([str(old), str(new / "results.jsonl")]) == 1
    assert "t/scripted/study/full/0: integrity.benchmark_commit" in capsys.readouterr().out
    assert _script().main([str(old), str(new), "--ignore", "integrity.benchmark_commit"]) == 0


def test_a_side_that_holds_no_results_exits_2_with_the_reason_not_a_traceback(tmp_path, capsys):
    old = _write(tmp_path / "old")
    (tmp_path / "empty").mkdir()
    assert _script().main([str(old), str(tmp_path / "empty")]) == 2
    assert "results.jsonl" in capsys.readouterr().err
    (tmp_path / "bad.jsonl").write_text('{"task_id": "t"}\n')
    assert _script().main([str(old), str(tmp_path / "bad.jsonl")]) == 2
    assert "bad.jsonl:1: not a unit record" in capsys.readouterr().err
