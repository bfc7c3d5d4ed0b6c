import json

import pytest
from pathlib import Path

from bench.gate import admit as admit_module
from bench.gate.admit import Admission
from bench.mine.miner import MineOptions
from bench.mine.miner_test import REPO, build_history
from bench.mine.pipeline import admit_candidates, known_tasks, mine_repository, write_admission_log


def _fake_admit(calls, admitted_ids):
    def fake(doc, root, **kwargs):
        calls.append(doc["task_id"])
        ok = doc["task_id"] in admitted_ids
        folder = root / "tasks" / ("widgets" if ok else "_dropped")
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{doc['task_id']}.json").write_text("{}")
        return Admission(doc["task_id"], ok, "admitted" if ok else "nothing_flips", None, None)
    return fake


def test_mine_repository_writes_candidates_and_a_report(tmp_path):
    git_dir = build_history(tmp_path / "h")
    result, paths = mine_repository(git_dir, REPO, MineOptions(since="2023-11-17"), tmp_path / "out")
    assert [p.name for p in paths] == ["widgets-4.json", "widgets-13.json", "widgets-5.json"]
    report = json.loads((tmp_path / "out" / "mine-report-widgets.json").read_text())
    assert report["counts"]["candidates"] == 3
    assert [c["metadata"]["status"] for c in report["candidates"]] == ["unavailable"] * 3
    assert len(report["filtered"]) == 9 and all(f["reason"] for f in report["filtered"])


def test_candidates_name_the_image_they_are_mined_for(tmp_path):
    git_dir = build_history(tmp_path / "h")
    _, paths = mine_repository(git_dir, REPO, MineOptions(since="2023-11-17"), tmp_path / "out",
                               image="bookworm-py311")
    assert {json.loads(p.read_text())["image"] for p in paths} == {"bookworm-py311"}


def test_mine_refuses_an_image_that_has_no_recipe(tmp_path, capsys, monkeypatch):
    from bench.cli.main import main

    monkeypatch.setenv("BENCH_ROOT", str(tmp_path))
    git_dir = build_history(tmp_path / "h")
    code = main(["mine", REPO, "--mirror", str(git_dir), "--image", "no-such-image", "--out", str(tmp_path / "o")])
    assert code != 0 and "unknown image 'no-such-image'" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_admission_skips_known_tasks_and_stops_at_the_cap(tmp_path, monkeypatch):
    git_dir = build_history(tmp_path / "h")
    _, paths = mine_repository(git_dir, REPO, MineOptions(), tmp_path / "out")
    root = tmp_path / "pool"
    (root / "tasks" / "_dropped").mkdir(parents=True)
    (root / "tasks" / "_dropped" / "widgets-13.json").write_text("{}")  # dropped by an earlier run
    calls = []
    monkeypatch.setattr(admit_module, "admit", _fake_admit(calls, {"widgets-4", "widgets-5"}))
    records = admit_candidates(paths, root, REPO, cap=2, mirror=None, sandbox_name="bwrap",
                               progress=lambda text: None)
    assert calls == ["widgets-4", "widgets-2", "widgets-5"]
    assert [(r.task_id, r.outcome) for r in records] == [
        ("widgets-4", "admitted"), ("widgets-2", "dropped"), ("widgets-13", "known"), ("widgets-5", "admitted")]
    assert known_tasks(root) == ({"widgets-4", "widgets-5"}, {"widgets-13", "widgets-2"})
    (root / "tasks" / "_retired" / "widgets").mkdir(parents=True)
    (root / "tasks" / "_retired" / "widgets" / "widgets-9.json").write_text("{}")  # retired after a reading
    assert known_tasks(root) == ({"widgets-4", "widgets-5"}, {"widgets-13", "widgets-2", "widgets-9"})
    log = json.loads(write_admission_log(tmp_path / "out", REPO, records).read_text())
    assert [entry["task_id"] for entry in log] == ["widgets-4", "widgets-2", "widgets-5"]


def test_cap_reached_before_admission_admits_nothing(tmp_path, monkeypatch):
    git_dir = build_history(tmp_path / "h")
    _, paths = mine_repository(git_dir, REPO, MineOptions(), tmp_path / "out")
    root = tmp_path / "pool"
    (root / "tasks" / "widgets").mkdir(parents=True)
    (root / "tasks" / "widgets" / "widgets-99.json").write_text("{}")
    calls = []
    monkeypatch.setattr(admit_module, "admit", _fake_admit(calls, set()))
    records = admit_candidates(paths, root, REPO, cap=1, mirror=None, sandbox_name="bwrap",
                               progress=lambda text: None)
    assert calls == [] and {r.outcome for r in records} == {"over_library_cap"}


def test_a_candidate_that_breaks_the_harness_is_reported_and_the_run_goes_on(tmp_path, monkeypatch):
    from bench.errors import SpecError

    git_dir = build_history(tmp_path / "h")
    _, paths = mine_repository(git_dir, REPO, MineOptions(limit=2), tmp_path / "out")
    calls = []
    admit_ok = _fake_admit(calls, {"widgets-2"})

    def flaky_admit(doc, root, **kwargs):
        if doc["task_id"] == "widgets-4":
            raise SpecError("test id too long", kind="bad_value")
        return admit_ok(doc, root, **kwargs)

    monkeypatch.setattr(admit_module, "admit", flaky_admit)
    records = admit_candidates(paths, tmp_path / "pool", REPO, cap=5, mirror=None, sandbox_name="bwrap",
                               progress=lambda text: None)
    assert [(r.task_id, r.outcome) for r in records] == [("widgets-4", "error"), ("widgets-2", "admitted")]
    assert records[0].reason == "SpecError: bad_value: test id too long"


def test_retry_admits_again_only_the_drops_with_that_reason(tmp_path, monkeypatch):
    git_dir = build_history(tmp_path / "h")
    _, paths = mine_repository(git_dir, REPO, MineOptions(), tmp_path / "out")
    root = tmp_path / "pool"
    dropped = root / "tasks" / "_dropped"
    dropped.mkdir(parents=True)
    (dropped / "widgets-13.json").write_text(json.dumps({"reason": "lock_failed: pip-compile failed: …"}))
    (dropped / "widgets-4.json").write_text(json.dumps({"reason": "nothing_flips"}))
    assert known_tasks(root, ("lock_failed",)) == (set(), {"widgets-4"})
    calls = []
    monkeypatch.setattr(admit_module, "admit", _fake_admit(calls, {"widgets-13"}))
    records = admit_candidates(paths, root, REPO, cap=1, mirror=None, sandbox_name="bwrap",
                               retry=("lock_failed",), progress=lambda text: None)
    assert calls == ["widgets-2", "widgets-13"]
    assert [(r.task_id, r.outcome) for r in records] == [
        ("widgets-4", "known"), ("widgets-2", "dropped"), ("widgets-13", "admitted"), ("widgets-5", "over_library_cap")]


def test_an_interrupted_admission_keeps_the_log_of_what_it_finished(tmp_path, monkeypatch):
    git_dir = build_history(tmp_path / "h")
    _, paths = mine_repository(git_dir, REPO, MineOptions(), tmp_path / "out")
    root = tmp_path / "pool"
    (root / "tasks" / "_dropped").mkdir(parents=True)
    calls = []
    finishes = _fake_admit(calls, {"widgets-4"})

    def stopped_on_the_third(doc, root, **kwargs):
        if len(calls) == 2:
            raise KeyboardInterrupt  # the run is killed while the third candidate is being admitted
        return finishes(doc, root, **kwargs)

    monkeypatch.setattr(admit_module, "admit", stopped_on_the_third)
    with pytest.raises(KeyboardInterrupt):
        admit_candidates(paths, root, REPO, cap=5, mirror=None, sandbox_name="bwrap", progress=lambda text: None,
                         log_dir=tmp_path / "out")
    log = json.loads((tmp_path / "out" / "admit-log-widgets.json").read_text())
    assert [(entry["task_id"], entry["outcome"]) for entry in log] == [("widgets-4", "admitted"),
                                                                       ("widgets-2", "dropped")]
