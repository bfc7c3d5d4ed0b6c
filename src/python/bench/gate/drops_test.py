"""What a dropped candidate leaves in the checkout: its drop record, and no lock of its own."""

import json

from bench.gate import admit as admit_module
from bench.gate.admit_long_test_id_test import _candidate, _outcome

LOCK = "lockfiles/tasks/widgets-7.lock"


def _admit(tmp_path, monkeypatch, reason: str):
    """Admit the candidate with a lock resolved for it and a gate that decides ``reason``."""
    import shutil

    from bench.testing.support import checkout_root

    shutil.copytree(checkout_root() / "images", tmp_path / "images")  # the certificate key names the image pin
    (tmp_path / "tasks").mkdir(exist_ok=True)

    def resolve(spec, root, **kwargs):
        (root / spec.lockfile).parent.mkdir(parents=True, exist_ok=True)
        (root / spec.lockfile).write_text("# locked for widgets-7\n")

    monkeypatch.setattr(admit_module, "lock_candidate", resolve)
    monkeypatch.setattr(admit_module, "certify", lambda *a, **kw: _outcome(reason))
    monkeypatch.setattr(admit_module, "sync_build", lambda root, pool=None: None)
    monkeypatch.setattr(admit_module, "honest_fix_findings", lambda spec, root: ())
    monkeypatch.setattr(admit_module, "judge_document", lambda doc, fix_side_failing=(): None)
    return admit_module.admit(_candidate(), tmp_path)


def test_a_dropped_candidate_leaves_no_lockfile_behind(tmp_path, monkeypatch):
    result = _admit(tmp_path, monkeypatch, "nothing_flips")
    assert (result.admitted, result.reason) == (False, "nothing_flips")
    assert (tmp_path / "tasks" / "_dropped" / "widgets-7.json").exists()
    assert not (tmp_path / LOCK).exists()


def test_a_candidate_whose_lock_cannot_be_made_leaves_no_earlier_lock_behind(tmp_path, monkeypatch):
    from bench.errors import EnvironmentBuildError

    def unresolvable(*args, **kwargs):
        raise EnvironmentBuildError("pip-compile failed: ResolutionImpossible")

    (tmp_path / "tasks").mkdir()
    (tmp_path / "lockfiles" / "tasks").mkdir(parents=True)
    (tmp_path / LOCK).write_text("# left by an earlier drop\n")
    monkeypatch.setattr(admit_module, "lock_candidate", unresolvable)
    assert not admit_module.admit(_candidate(), tmp_path).admitted
    assert not (tmp_path / LOCK).exists()


def test_an_admitted_candidate_keeps_its_lockfile(tmp_path, monkeypatch):
    result = _admit(tmp_path, monkeypatch, "admitted")
    assert result.admitted and (tmp_path / LOCK).read_text() == "# locked for widgets-7\n"


def test_a_drop_keeps_the_lock_a_spec_of_the_pool_names(tmp_path, monkeypatch):
    for folder in ("widgets", "_retired/widgets"):  # admitted before, or retired with runs that must verify
        root = tmp_path / folder.replace("/", "-")
        (root / "tasks" / folder).mkdir(parents=True)
        (root / "tasks" / folder / "widgets-7.json").write_text(json.dumps(_candidate()))
        assert not _admit(root, monkeypatch, "nothing_flips").admitted
        assert (root / LOCK).exists(), folder


def _runs(base: int, fix: int, tests: int):
    from bench.gate.sets import RunSummary

    results = tuple((f"tests/test_core.py::test_{i:02}", "passed") for i in range(tests))
    return tuple(RunSummary(side, index, 0, False, results, (), True)
                 for side, count in (("base", base), ("fix", fix)) for index in range(count))


def test_a_nothing_flips_drop_record_names_the_sides_the_runs_and_the_tests_that_did_not_flip(tmp_path):
    from dataclasses import replace

    from bench.gate.drops import LISTED, read_drop
    from bench.gate.sets import derive_sets
    from bench.spec.load import spec_from_document

    runs = _runs(3, 1, LISTED + 5)  # the fix side stopped at its first decisive run
    cert = replace(_outcome("nothing_flips").certificate, runs=runs, sets=derive_sets(runs))
    result = admit_module.conclude(_candidate(), spec_from_document(_candidate()), cert, tmp_path, k=3,
                                   sandbox_name="bwrap", max_targets=None)
    assert (result.admitted, result.reason) == (False, "nothing_flips")
    path = tmp_path / "tasks" / "_dropped" / "widgets-7.json"
    ran = json.loads(path.read_text())["ran"]
    assert ran["runs"] == {"base": 3, "fix": 1} and ran["not_flipped_count"] == LISTED + 5
    assert len(ran["not_flipped"]) == LISTED
    assert ran["not_flipped"][0] == {"test_id": "tests/test_core.py::test_00", "base": "passed", "fix": "passed"}
    record = read_drop(path)
    assert (record.reason, record.ran.runs, record.ran.not_flipped_count) == (
        "nothing_flips", (("base", 3), ("fix", 1)), LISTED + 5)


def test_a_drop_record_written_before_records_named_what_ran_still_reads(tmp_path):
    from bench.gate.drops import read_drop

    path = tmp_path / "widgets-7.json"
    path.write_text(json.dumps({"reason": "nothing_flips", "candidate": _candidate()}))
    record = read_drop(path)
    assert (record.task_id, record.reason, record.ran) == ("widgets-7", "nothing_flips", None)


def test_an_admission_stopped_before_its_decision_leaves_no_lock_behind(tmp_path, monkeypatch):
    import pytest

    from bench.gate import admit as admit_module

    root = tmp_path
    (root / "tasks").mkdir()
    lock = root / "lockfiles" / "tasks" / "widgets-9.lock"
    lock.parent.mkdir(parents=True)

    def locked_then_stopped(*args, **kwargs):
        lock.write_text("# resolved\n")
        raise KeyboardInterrupt  # what SIGTERM or ^C raises in the middle of certification

    monkeypatch.setattr(admit_module, "lock_candidate", lambda spec, root, **kw: lock.write_text("# resolved\n"))
    monkeypatch.setattr(admit_module, "certify", locked_then_stopped)
    candidate = {"schema_version": 1, "task_id": "widgets-9", "kind": "pr", "repo": "acme/widgets",
                 "base_sha": "a" * 40, "fix_sha": "b" * 40, "source_files": ["pkg/core.py"],
                 "test_files": ["tests/test_core.py"], "fail_to_pass": [], "pass_to_pass": [],
                 "image": "trixie-py313", "lockfile": "lockfiles/tasks/widgets-9.lock",
                 "provenance": {"source": "pull-request", "pr_number": 9, "url": "https://github.com/acme/widgets/pull/9",
                                "merged_at": "2024-01-01T00:00:00Z", "title": "Fix core (#9)"}}
    with pytest.raises(KeyboardInterrupt):
        admit_module.admit(candidate, root)
    assert not lock.exists()
