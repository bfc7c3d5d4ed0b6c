"""`bench mine` as a newcomer meets it: its exit code, where it writes, what it says it skipped."""

from __future__ import annotations

import json

from bench.cli.main import main
from bench.gate import admit as admit_module
from bench.gate.admit import Admission
from bench.mine.miner_test import REPO, build_history


def _pool(tmp_path, monkeypatch):
    root = tmp_path / "pool"
    (root / "tasks").mkdir(parents=True)
    monkeypatch.setenv("BENCH_ROOT", str(root))
    return root


def _admitting(admitted_ids):
    """Admission that admits ``admitted_ids`` and drops the rest, recording each as admission does."""
    def fake(doc, root, **kwargs):
        ok = doc["task_id"] in admitted_ids
        folder = root / "tasks" / ("widgets" if ok else "_dropped")
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{doc['task_id']}.json").write_text(json.dumps({"reason": "nothing_flips"}))
        return Admission(doc["task_id"], ok, "admitted" if ok else "nothing_flips", None, None)
    return fake


def test_mine_admit_exits_like_bench_admit_when_a_candidate_is_dropped(tmp_path, monkeypatch, capsys):
    git_dir = build_history(tmp_path / "h")
    out = tmp_path / "out"
    _pool(tmp_path, monkeypatch)
    monkeypatch.setattr(admit_module, "admit", _admitting({"widgets-4"}))
    mined = main(["mine", REPO, "--mirror", str(git_dir), "--since", "2023-11-17", "--limit", "2", "--admit",
                  "--out", str(out)])
    assert "dropped" in capsys.readouterr().out
    candidates = sorted(str(p) for p in out.glob("widgets-*.json"))
    _pool(tmp_path / "again", monkeypatch)
    assert (mined, main(["admit", *candidates])) == (1, 1)


def test_mine_admit_exits_0_when_every_candidate_tried_is_admitted(tmp_path, monkeypatch):
    git_dir = build_history(tmp_path / "h")
    root = _pool(tmp_path, monkeypatch)
    (root / "tasks" / "_dropped").mkdir()
    (root / "tasks" / "_dropped" / "widgets-13.json").write_text("{}")  # known: not tried, does not count
    monkeypatch.setattr(admit_module, "admit", _admitting({"widgets-4", "widgets-5"}))
    assert main(["mine", REPO, "--mirror", str(git_dir), "--since", "2023-11-17", "--admit",
                 "--out", str(tmp_path / "out")]) == 0


def test_mining_writes_its_candidates_into_a_folder_git_ignores_by_default(tmp_path, monkeypatch):
    import shutil

    from bench.source.git_command import git
    from bench.testing.support import checkout_root

    gitignore = checkout_root() / ".gitignore"
    git_dir = build_history(tmp_path / "h")
    root = tmp_path / "checkout"  # found from the working directory, as a newcomer's checkout is
    (root / "tasks").mkdir(parents=True)
    (root / "pants.toml").write_text("")
    shutil.copy(gitignore, root / ".gitignore")
    git(["init", "-q", str(root)])
    monkeypatch.delenv("BENCH_ROOT", raising=False)
    monkeypatch.chdir(root / "tasks")  # anywhere in the checkout: the folder is the checkout's
    assert main(["mine", REPO, "--mirror", str(git_dir), "--since", "2023-11-17"]) == 0
    written = sorted(p.relative_to(root / ".bench/candidates").as_posix() for p in root.rglob("*.json"))
    assert written == ["widgets/mine-report-widgets.json", "widgets/widgets-13.json", "widgets/widgets-4.json",
                       "widgets/widgets-5.json"]
    untracked = git(["status", "--porcelain", "--untracked-files=all"], cwd=root).decode().splitlines()
    assert sorted(untracked) == ["?? .gitignore", "?? pants.toml"]


def _known_pool(tmp_path, monkeypatch):
    """A pool that admitted widgets-4, dropped widgets-13 and retired widgets-5."""
    root = _pool(tmp_path, monkeypatch)
    for folder, task_id in (("widgets", "widgets-4"), ("_dropped", "widgets-13"), ("_retired/widgets", "widgets-5")):
        (root / "tasks" / folder).mkdir(parents=True)
        (root / "tasks" / folder / f"{task_id}.json").write_text("{}")
    return root


def test_mining_in_a_checkout_says_how_many_known_task_ids_it_skipped_and_why(tmp_path, monkeypatch, capsys):
    git_dir = build_history(tmp_path / "h")
    _known_pool(tmp_path, monkeypatch)
    out = tmp_path / "out"
    assert main(["mine", REPO, "--mirror", str(git_dir), "--since", "2023-11-17", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "skipped 3 proposals whose task id the pool knows (1 admitted, 1 dropped, 1 retired)" in printed
    assert not list(out.glob("widgets-*.json"))


def test_include_known_lists_the_raw_proposals_with_the_cap_not_reduced_by_the_pool(tmp_path, monkeypatch, capsys):
    git_dir = build_history(tmp_path / "h")
    _known_pool(tmp_path, monkeypatch)
    out = tmp_path / "out"
    assert main(["mine", REPO, "--mirror", str(git_dir), "--since", "2023-11-17", "--cap", "3", "--include-known",
                 "--out", str(out)]) == 0
    assert "skipped" not in capsys.readouterr().out
    assert sorted(p.stem for p in out.glob("widgets-*.json")) == ["widgets-13", "widgets-4", "widgets-5"]
