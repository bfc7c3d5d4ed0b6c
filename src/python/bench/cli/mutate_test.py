"""Tests of `bench mutate`: candidate spec files from a (local) release, and the per-operator summary."""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import tarfile

import pytest

from bench.cli import mutate as mutate_verb
from bench.errors import UsageError
from bench.mutate.operators import NEAR_MISS_OPERATORS as OPERATORS  # version 3, the default engine's
from bench.source import sdist
from bench.spec.model import SdistPin
from bench.spec.validate import validate_document

LIBRARY = {
    "demo-1.0/demo/__init__.py": "def lower(a, b):\n    if a < b:\n        return a\n    return b\n",
    "demo-1.0/demo/util.py": "def total(xs):\n    n = 0\n    for x in xs:\n        n += x\n    return n\n",
    "demo-1.0/tests/test_demo.py": "from demo import lower\n\ndef test_lower():\n    assert lower(1, 2) == 1\n",
    "demo-1.0/setup.py": "raise SystemExit('never run')\n",
}


@pytest.fixture()
def local_release(tmp_path, monkeypatch):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, text in LIBRARY.items():
            info = tarfile.TarInfo(name)
            info.size = len(text.encode())
            archive.addfile(info, io.BytesIO(text.encode()))
    path = tmp_path / "demo-1.0.tar.gz"
    path.write_bytes(buffer.getvalue())
    pin = SdistPin("demo", "1.0", path.name, hashlib.sha256(buffer.getvalue()).hexdigest())
    monkeypatch.setattr(sdist, "find_release", lambda name, version, index_url: pin)
    monkeypatch.setattr(sdist, "fetch_sdist", lambda given: path)
    return pin


def _run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    mutate_verb.add_parser(parser.add_subparsers())
    args = parser.parse_args(["mutate", *argv])
    return args.run(args)


def test_mutate_writes_valid_candidate_specs_and_prints_a_summary(local_release, tmp_path, capsys):
    out = tmp_path / "out"
    assert _run(["demo==1.0", "--seed", "4", "--out", str(out)]) == 0
    specs = sorted(out.glob("*.json"))
    assert len(specs) == 2 and len(list(out.glob("*.diff"))) == 2
    documents = [json.loads(path.read_text()) for path in specs]
    for path, doc in zip(specs, documents):
        validate_document(doc, path=str(path))
        assert path.name == f"{doc['task_id']}.json" and doc["task_id"].startswith("mutation.demo.1.0.")
        assert doc["test_files"] == ["tests/test_demo.py"] and doc["mutation"]["seed"] == 4
        assert "diff" not in doc["mutation"]  # it quotes the library's code: kept beside the spec, not in it
        diff = (out / f"{doc['task_id']}.diff").read_text()
        added = [line for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")]
        assert len(added) == 1 and doc["mutation"]["replacement"] in added[0]
        assert "original" not in doc["mutation"] and len(doc["mutation"]["original_sha256"]) == 64
    assert {doc["mutation"]["function"] for doc in documents} == {"lower", "total"}
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1].split() == ["total", "2"] and len(lines) == len(OPERATORS) + 1
    counted = {line.split()[0]: int(line.split()[1]) for line in lines[:-1]}
    assert sum(counted.values()) == 2 and tuple(counted) == OPERATORS


def test_mutate_is_deterministic_and_limit_caps(local_release, tmp_path):
    _run(["demo==1.0", "--out", str(tmp_path / "a")])
    _run(["demo==1.0", "--out", str(tmp_path / "b")])
    first = {p.name: p.read_bytes() for p in (tmp_path / "a").iterdir()}
    assert first == {p.name: p.read_bytes() for p in (tmp_path / "b").iterdir()}
    _run(["demo==1.0", "--limit", "1", "--out", str(tmp_path / "c")])
    assert len(list((tmp_path / "c").glob("*.json"))) == 1


@pytest.mark.parametrize("release", ["demo", "demo==", "==1.0", "demo==1.0==2"])
def test_mutate_rejects_a_malformed_release(release):
    with pytest.raises(UsageError, match="LIB==VERSION"):
        _run([release])


def _git(repo, *args):
    import subprocess

    env = {"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@b",
           "HOME": str(repo)}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                          env=env).stdout.strip()


def test_history_makes_one_candidate_per_fix_and_skips_a_fix_dropped_in_another_release(local_release, tmp_path,
                                                                                         monkeypatch, capsys):
    import bench.variables

    repo = tmp_path / "repo"
    (repo / "demo").mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    buggy = LIBRARY["demo-1.0/demo/__init__.py"].replace("if a < b:", "if a > b:")
    (repo / "demo" / "__init__.py").write_text(buggy)
    _git(repo, "add", "-A"), _git(repo, "commit", "-q", "-m", "Add lower")
    (repo / "demo" / "__init__.py").write_text(LIBRARY["demo-1.0/demo/__init__.py"])
    _git(repo, "commit", "-q", "-am", "Fix lower returning the larger value")
    fix = _git(repo, "rev-parse", "HEAD")
    _git(repo, "tag", "v1.0")
    pool = tmp_path / "pool"
    (pool / "tasks" / "_dropped").mkdir(parents=True)
    monkeypatch.setattr(bench.variables, "find_root", lambda: pool)

    out = tmp_path / "out"
    assert _run(["demo==1.0", "--history", str(repo), "--out", str(out)]) == 0
    [path] = out.glob("*.json")
    doc = json.loads(path.read_text())
    validate_document(doc, path=str(path))
    assert doc["provenance"] == {"source": "mutation", "reverted_commit": fix}
    assert (doc["mutation"]["operator"], doc["mutation"]["replacement"], doc["mutation"]["function"]) == (
        "reverted_fix", "    if a > b:", "lower")
    assert capsys.readouterr().out.splitlines()[-1].split() == ["total", "1"]

    dropped = {"candidate": {**doc, "task_id": "mutation.demo.0.9.00000000"}, "reason": "nothing_flips"}
    (pool / "tasks" / "_dropped" / "mutation.demo.0.9.00000000.json").write_text(json.dumps(dropped))
    assert _run(["demo==1.0", "--history", str(repo), "--out", str(tmp_path / "again")]) == 0
    assert list((tmp_path / "again").glob("*.json")) == []


def test_history_that_is_no_repository_is_a_usage_error(local_release, tmp_path):
    with pytest.raises(UsageError, match="not a git repository"):
        _run(["demo==1.0", "--history", "nobody/nothing", "--out", str(tmp_path / "out")])


def test_operators_narrows_the_engine_and_omissions_names_version_4s_omissions(local_release, tmp_path, capsys):
    from bench.mutate.operators import OMISSIONS

    assert _run(["demo==1.0", "--engine-version", "4", "--operators", "omissions", "--out", str(tmp_path / "o")]) == 0
    rows = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    assert tuple(rows[:-1]) == OMISSIONS and rows[-1] == "total"
    assert _run(["demo==1.0", "--operators", "comparison", "--out", str(tmp_path / "c")]) == 0
    documents = [json.loads(path.read_text()) for path in (tmp_path / "c").glob("*.json")]
    assert [doc["mutation"]["operator"] for doc in documents] == ["comparison"]
    with pytest.raises(UsageError, match="dropped_clause, .* not among engine version 3"):
        _run(["demo==1.0", "--operators", "omissions", "--out", str(tmp_path / "x")])
