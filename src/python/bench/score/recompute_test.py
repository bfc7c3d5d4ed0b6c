"""Stored prompts and replies: real-code tasks' files may be left out on purpose; nothing may be altered."""

from __future__ import annotations

import hashlib

from dataclasses import replace

from bench.loop import convergence
from bench.loop.records import Outcome, UnitRecord
from bench.score.recompute import check_stored_hashes, prune_third_party


def _store(store, text: str) -> str:
    sha = hashlib.sha256(text.encode()).hexdigest()
    (store / sha[:2]).mkdir(parents=True, exist_ok=True)
    (store / sha[:2] / sha).write_text(text)
    return sha


def _record(task_kind: str, prompt: str, response: str) -> UnitRecord:
    return UnitRecord(kind="attempt", task_id=f"{task_kind}-1", model="llamacpp/smollm2", condition="single",
                      task_kind=task_kind, outcome=Outcome.MODEL_MISS, prompt_sha256=prompt, response_sha256=response)


def test_pruning_drops_only_files_real_code_tasks_cite_and_verify_calls_them_not_kept(tmp_path):
    shared = _store(tmp_path, "the same reply")
    synthetic = _record("synthetic", _store(tmp_path, "our own task"), shared)
    real = _record("pr", _store(tmp_path, "a library's source"), shared)
    assert prune_third_party([synthetic, real], tmp_path) == 1
    assert not (tmp_path / real.prompt_sha256[:2] / real.prompt_sha256).exists()
    assert (tmp_path / shared[:2] / shared).is_file()  # a synthetic record cites it too
    assert [c.status for c in check_stored_hashes([synthetic, real], tmp_path)] == ["ok", "not-kept"]


def test_pruning_drops_files_no_record_cites_any_more(tmp_path):
    synthetic = _record("synthetic", _store(tmp_path, "our own task"), _store(tmp_path, "a reply"))
    superseded = _store(tmp_path, "the prompt of a unit scored again, quoting a library")
    assert prune_third_party([synthetic], tmp_path) == 1
    assert not (tmp_path / superseded[:2] / superseded).exists()
    assert [c.status for c in check_stored_hashes([synthetic], tmp_path)] == ["ok"]


def test_an_altered_or_lost_file_is_a_mismatch(tmp_path):
    synthetic = _record("synthetic", _store(tmp_path, "prompt"), _store(tmp_path, "reply"))
    real = _record("mutation", _store(tmp_path, "prompt 2"), "f" * 64)
    (tmp_path / real.prompt_sha256[:2] / real.prompt_sha256).write_text("edited")
    (tmp_path / synthetic.response_sha256[:2] / synthetic.response_sha256).unlink()
    assert [c.status for c in check_stored_hashes([synthetic, real], tmp_path)] == ["mismatch", "mismatch"]


def test_recomputing_a_deterministic_run_finds_it_identical_and_names_an_altered_field(tmp_path):
    from bench.score.runner import RunPlan, run
    from bench.spec.load import discover, load_all, select
    from bench.score.recompute import recompute
    from bench.testing.support import checkout_root

    root = checkout_root()
    specs = select(load_all(discover(root)), "synthetic.caesar_shift,synthetic.palindromes")
    plan = RunPlan(model_id="repairer/ast", specs=specs, out_dir=tmp_path / "run", root=root, turns=2, workers=1)
    records = [UnitRecord.from_json(r) for r in run(plan).records]
    # Scored as part of a larger selection, or of a run resumed after the pool grew: still the same units.
    records[0] = replace(records[0], integrity=(*dict(records[0].integrity, pool_sha256="0" * 64).items(),))
    converged = convergence.Outcome.CONVERGED
    other = converged if records[1].convergence_class is not converged else convergence.Outcome.EXHAUSTED
    records[1] = replace(records[1], convergence_class=other)
    checks = recompute(records, root, sandbox_name="bwrap", workers=1)
    assert [(c.status, c.detail) for c in checks] == [("identical", ""), ("different", "first difference at /class")]


def test_a_runaway_candidate_stopped_by_time_or_by_memory_compares_alike_and_nothing_else_does():
    from bench.score.recompute import comparable, first_difference

    def record(reason, outcome="model_miss"):
        return {"integrity": {"benchmark_commit": "a"}, "turns": [{"outcome": outcome, "reason": reason}]}

    assert first_difference(comparable(record("tests timed out")), comparable(record("tests ran out of memory"))) \
        is None
    assert first_difference(comparable(record("tests timed out")),
                            comparable(record("tests timed out", outcome="solved"))) is not None
    assert first_difference(comparable(record("tests timed out")),
                            comparable(record("no test report (pytest exit 2): collection or run broken"))) \
        is not None
