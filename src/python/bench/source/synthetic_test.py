import json
import os
import subprocess
from pathlib import Path

import pytest

from bench.errors import SourceError, SpecError
from bench.source.synthetic import load_synthetic_files, materialise, task_dir
from bench.spec.model import Provenance, TaskSpec

REPO_ROOT = next(p for p in Path(__file__).resolve().parents if (p / "tasks" / "synthetic").is_dir())
SUITE = REPO_ROOT / "tasks" / "synthetic"
PINNED_BASE_SHA = "bdc27ec98f9a825af3236ab0e68119b689b1a9ce"
PINNED_FIX_SHA = "81829e2724cd741c4e105c415125d1b6f40a3df1"


def _spec_from_json(path: Path) -> TaskSpec:
    """Just enough of a loader for these tests; the real one lives in bench.spec."""
    data = json.loads(path.read_text())
    return TaskSpec(
        task_id=data["task_id"], kind=data["kind"], repo=data["repo"],
        source_files=tuple(data["source_files"]), test_files=tuple(data["test_files"]),
        fail_to_pass=tuple(data["fail_to_pass"]), pass_to_pass=tuple(data["pass_to_pass"]),
        image=data["image"], lockfile=data["lockfile"], provenance=Provenance(**data["provenance"]),
        difficulty=data.get("difficulty", ""), tags=tuple(data.get("tags", ())),
        synthetic_dir=data["synthetic"]["dir"], path=str(path),
    )


def _fixture_task(root: Path, slug: str = "tiny", initial: str = "def f():\n    return 1\n",
                  reference: str = "def f():\n    return 2\n") -> TaskSpec:
    folder = root / "tasks" / "synthetic" / slug
    for relative, text in {
        "SPEC.md": "# f\n\n`f()` returns 2.\n",
        "initial/mod.py": initial,
        "reference/mod.py": reference,
        "tests/test_mod.py": "import mod\n\n\ndef test_f():\n    assert mod.f() == 2\n",
    }.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(text)
    return TaskSpec(
        task_id=f"synthetic.{slug}", kind="synthetic", repo=f"synthetic/{slug}", source_files=("mod.py",),
        test_files=("tests/test_mod.py",), fail_to_pass=("tests/test_mod.py::test_f",), pass_to_pass=(),
        image="trixie-py313-slim", lockfile="lockfiles/tasks/synthetic.lock",
        provenance=Provenance(source="authored"), synthetic_dir=f"tasks/synthetic/{slug}",
    )


def _git(repo: Path, *args: str) -> str:
    env = {"PATH": os.environ["PATH"], "HOME": str(repo), "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=True).stdout


def _tree_files(repo: Path, rev: str) -> list[str]:
    return sorted(_git(repo, "ls-tree", "-r", "--name-only", rev).split())


def test_base_commit_holds_spec_and_initial_modules_fix_commit_adds_reference_and_tests(tmp_path):
    spec = _spec_from_json(SUITE / "build_order.json")
    result = materialise(spec, tmp_path / "repo")
    assert result.repo_path == tmp_path / "repo"
    assert _tree_files(result.repo_path, result.base_sha) == ["SPEC.md", "build_order.py", "depgraph.py"]
    assert _tree_files(result.repo_path, result.fix_sha) == [
        "SPEC.md", "build_order.py", "depgraph.py", "tests/test_build_order.py", "tests/test_depgraph.py"]
    assert _git(result.repo_path, "rev-parse", f"{result.fix_sha}^").strip() == result.base_sha
    folder = SUITE / "build_order"
    base_text = _git(result.repo_path, "show", f"{result.base_sha}:depgraph.py")
    fix_text = _git(result.repo_path, "show", f"{result.fix_sha}:depgraph.py")
    assert base_text == (folder / "initial/depgraph.py").read_text()
    assert fix_text == (folder / "reference/depgraph.py").read_text()
    assert _git(result.repo_path, "status", "--porcelain") == ""


def test_package_sources_keep_their_folders(tmp_path):
    spec = _spec_from_json(SUITE / "text_justify.json")
    result = materialise(spec, tmp_path / "repo")
    assert _tree_files(result.repo_path, result.base_sha) == ["SPEC.md", "textfmt/__init__.py", "textfmt/justify.py"]


def test_same_inputs_give_same_shas_whatever_the_host_git_config(tmp_path, monkeypatch):
    spec = _spec_from_json(SUITE / "run_length_codec.json")
    first = materialise(spec, tmp_path / "one")
    hostile_home = tmp_path / "home"
    hostile_home.mkdir()
    (hostile_home / ".gitconfig").write_text(
        "[user]\n\tname = Somebody Else\n\temail = else@example.org\n"
        "[commit]\n\tgpgsign = true\n[gpg]\n\tprogram = /nonexistent/gpg\n[core]\n\tautocrlf = true\n"
    )
    monkeypatch.setenv("HOME", str(hostile_home))
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Intruder")
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2001-02-03T04:05:06+00:00")
    monkeypatch.chdir(tmp_path)
    second = materialise(spec, tmp_path / "elsewhere" / "two")
    assert (second.base_sha, second.fix_sha) == (first.base_sha, first.fix_sha)
    assert first.base_sha != first.fix_sha


def test_commit_shas_are_pinned_for_a_fixed_task(tmp_path):
    # Commit ids depend only on file contents, identity, dates and messages. Changing any of them changes
    # the shas of every materialised synthetic repo (and of every record naming them): do it deliberately.
    spec = _fixture_task(tmp_path / "bench")
    result = materialise(spec, tmp_path / "repo", root=tmp_path / "bench")
    assert (result.base_sha, result.fix_sha) == (PINNED_BASE_SHA, PINNED_FIX_SHA)
    log = _git(result.repo_path, "log", "--format=%an <%ae> %aI %cI", result.fix_sha)
    assert log.splitlines() == [
        "loopcontrolbench <synthetic@loopcontrolbench.invalid> 2024-01-01T00:01:00+00:00 2024-01-01T00:01:00+00:00",
        "loopcontrolbench <synthetic@loopcontrolbench.invalid> 2024-01-01T00:00:00+00:00 2024-01-01T00:00:00+00:00",
    ]



def test_files_are_committed_byte_exact(tmp_path):
    text = "def f():\r\n    return 'é'  \n\n"
    spec = _fixture_task(tmp_path / "bench", initial=text)
    result = materialise(spec, tmp_path / "repo", root=tmp_path / "bench")
    blob = subprocess.run(["git", "cat-file", "blob", f"{result.base_sha}:mod.py"], cwd=result.repo_path,
                          capture_output=True, check=True).stdout
    assert blob == text.encode("utf-8")


def test_refuses_non_empty_destination(tmp_path):
    spec = _fixture_task(tmp_path / "bench")
    dest = tmp_path / "repo"
    dest.mkdir()
    (dest / "keep.txt").write_text("mine")
    with pytest.raises(SourceError):
        materialise(spec, dest, root=tmp_path / "bench")
    assert sorted(p.name for p in dest.iterdir()) == ["keep.txt"]


def test_empty_destination_directory_is_accepted(tmp_path):
    spec = _fixture_task(tmp_path / "bench")
    (tmp_path / "repo").mkdir()
    result = materialise(spec, tmp_path / "repo", root=tmp_path / "bench")
    assert (result.repo_path / ".git").is_dir()


def test_failed_git_leaves_no_partial_repo(tmp_path, monkeypatch):
    spec = _fixture_task(tmp_path / "bench")
    monkeypatch.setenv("PATH", str(tmp_path / "no-tools-here"))
    with pytest.raises(SourceError):
        materialise(spec, tmp_path / "out" / "repo", root=tmp_path / "bench")
    assert list((tmp_path / "out").iterdir()) == []


def test_load_synthetic_files_reads_every_part():
    spec = _spec_from_json(SUITE / "calendar_free_slots.json")
    files = load_synthetic_files(spec)
    assert files.task_id == "synthetic.calendar_free_slots"
    assert [path for path, _ in files.spec_text] == ["SPEC.md"]
    assert [path for path, _ in files.initial] == ["freeslots.py", "intervalset.py"]
    assert [path for path, _ in files.reference] == ["freeslots.py", "intervalset.py"]
    assert [path for path, _ in files.tests] == ["tests/test_freeslots.py", "tests/test_intervalset.py"]
    assert dict(files.initial)["intervalset.py"] != dict(files.reference)["intervalset.py"]
    assert [path for path, _ in files.base_tree] == ["SPEC.md", "freeslots.py", "intervalset.py"]


def test_source_files_must_match_the_folders(tmp_path):
    spec = _fixture_task(tmp_path / "bench")
    wrong = TaskSpec(**{**spec.__dict__, "source_files": ("other.py",)})
    with pytest.raises(SpecError) as info:
        load_synthetic_files(wrong, root=tmp_path / "bench")
    assert info.value.kind == "synthetic-layout"


def test_missing_test_file_rejected(tmp_path):
    spec = _fixture_task(tmp_path / "bench")
    wrong = TaskSpec(**{**spec.__dict__, "test_files": ("tests/test_missing.py",)})
    with pytest.raises(SpecError) as info:
        load_synthetic_files(wrong, root=tmp_path / "bench")
    assert info.value.kind == "synthetic-layout"


def test_synthetic_dir_must_stay_inside_the_checkout(tmp_path):
    spec = _fixture_task(tmp_path / "bench")
    for bad in ("../outside", "/etc"):
        with pytest.raises(SpecError) as info:
            task_dir(TaskSpec(**{**spec.__dict__, "synthetic_dir": bad}), root=tmp_path / "bench")
        assert info.value.kind == "path-outside"


def test_non_synthetic_spec_rejected(tmp_path):
    spec = _fixture_task(tmp_path / "bench")
    with pytest.raises(SpecError) as info:
        task_dir(TaskSpec(**{**spec.__dict__, "kind": "pr"}), root=tmp_path / "bench")
    assert info.value.kind == "not-synthetic"


def test_missing_synthetic_dir_reported(tmp_path):
    spec = _fixture_task(tmp_path / "bench")
    with pytest.raises(SpecError) as info:
        task_dir(TaskSpec(**{**spec.__dict__, "synthetic_dir": "tasks/synthetic/nope"}), root=tmp_path / "bench")
    assert info.value.kind == "synthetic-dir-missing"


def test_task_dir_found_from_the_spec_path_without_root(tmp_path, monkeypatch):
    spec = _fixture_task(tmp_path / "bench")
    located = TaskSpec(**{**spec.__dict__, "path": str(tmp_path / "bench" / "tasks" / "synthetic" / "tiny.json")})
    monkeypatch.chdir(tmp_path)
    assert task_dir(located) == tmp_path / "bench" / "tasks" / "synthetic" / "tiny"
