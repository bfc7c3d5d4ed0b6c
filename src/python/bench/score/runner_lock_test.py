"""A results folder has one writer: a second run on it is refused instead of interleaving with the first."""

from __future__ import annotations

import pytest

from bench.errors import UsageError
from bench.score import runner
from bench.score.runner import RunPlan


def test_a_second_run_on_a_folder_being_written_is_refused_and_leaves_it_alone(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCH_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "run"
    out.mkdir()
    (out / "records.jsonl").write_text('{"task_id": "t"}\n')
    plan = RunPlan(model_id="scripted/study", specs=(), out_dir=out, root=tmp_path)
    with runner._writer_lock(out):  # the first run, still writing
        with pytest.raises(UsageError, match=f"another bench score is writing to {out}"):
            runner.run(plan)
    assert (out / "records.jsonl").read_text() == '{"task_id": "t"}\n'
    assert not (out / "run.json").exists()  # the refused run wrote nothing


def test_the_folder_can_be_written_again_once_the_first_run_ends(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCH_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "run"
    with runner._writer_lock(out):
        pass
    with runner._writer_lock(out):
        pass
    assert list((tmp_path / "cache" / "locks").iterdir())  # the lock lives in the cache
    assert not out.exists() or not any(out.iterdir())  # and never in the results folder
