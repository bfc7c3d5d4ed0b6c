"""`bench admit --cluster`: admission with the gate's runs on a real Dask scheduler and two workers on loopback
writes the same specs, locks, certificates and drop records, byte for byte, as admission in one process —
for a batch of mutants of a PyPI release and for a candidate of the PR path (a synthetic task's)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bench.testing.loopback_cluster import start_cluster
from bench.testing.support import checkout_root, empty_checkout, run_bench

RELEASE = "cachetools==5.5.0"
SYNTHETIC = "caesar_shift"
WRITTEN = ("tasks", "lockfiles/tasks", "results/certificates")


def _checkout(folder: Path) -> Path:
    root = empty_checkout(folder)
    for name in (SYNTHETIC, f"{SYNTHETIC}_again"):  # a synthetic task is named after its folder
        shutil.copytree(checkout_root() / "tasks" / "synthetic" / SYNTHETIC, root / "tasks" / "synthetic" / name)
    return root


@pytest.fixture(scope="module")
def candidates(tmp_path_factory) -> list[Path]:
    """Three mutants of a release (one a reader spots, refused before any run; one too broad; one admitted) and a
    synthetic task as a new candidate."""
    out = tmp_path_factory.mktemp("candidates")
    root = _checkout(tmp_path_factory.mktemp("maker"))
    made = run_bench("mutate", RELEASE, "--limit", "3", "--seed", "3", "--out", str(out), cwd=root,
                     env={"BENCH_ROOT": str(root)})
    assert made.returncode == 0, made.stderr[-2000:]
    doc = json.loads((checkout_root() / "tasks" / "synthetic" / f"{SYNTHETIC}.json").read_text())
    doc["task_id"] = f"synthetic.{SYNTHETIC}_again"
    doc["synthetic"] = {"dir": f"tasks/synthetic/{SYNTHETIC}_again"}
    (out / f"{doc['task_id']}.json").write_text(json.dumps(doc, indent=2))
    return sorted(out.glob("*.json"))


def _written(root: Path) -> dict[str, bytes]:
    files = {}
    for folder in WRITTEN:
        for path in sorted((root / folder).rglob("*")):
            if path.is_file() and "synthetic/" + SYNTHETIC + "/" not in path.as_posix():
                files[path.relative_to(root).as_posix()] = path.read_bytes()
    return files


def test_admission_on_the_cluster_writes_what_local_admission_writes(candidates, tmp_path):
    local_root, cluster_root = _checkout(tmp_path / "local"), _checkout(tmp_path / "cluster")
    args = ("admit", *map(str, candidates), "--max-targets", "5")
    local = run_bench(*args, cwd=local_root, env={"BENCH_ROOT": str(local_root)}, timeout=1800)
    assert local.returncode == 1, local.stderr[-2000:]  # the giveaway and the broad mutant are dropped
    with start_cluster(2, root=cluster_root, log_dir=tmp_path / "logs") as cluster:
        remote = run_bench(*args, "--cluster", cluster.address, cwd=cluster_root,
                           env={"BENCH_ROOT": str(cluster_root)}, timeout=1800)
    assert remote.returncode == 1, remote.stderr[-2000:]
    assert remote.stdout == local.stdout  # the same decisions, printed in the same order
    assert sorted(remote.stdout.splitlines()) == [
        "admitted mutation.cachetools.5.5.0.6e571b92: admitted f2p=1",
        "admitted synthetic.caesar_shift_again: admitted f2p=4",
        "dropped  mutation.cachetools.5.5.0.97a293cc: too_many_targets f2p=27",
        "dropped  mutation.cachetools.5.5.0.ab72160c: giveaway:a_statement_that_no_longer_matches_its_twin f2p=0",
    ]
    local_files, remote_files = _written(local_root), _written(cluster_root)
    assert sorted(remote_files) == sorted(local_files)
    certificates = [name for name in local_files if name.startswith("results/certificates/")]
    assert len([name for name in certificates if name.endswith(".json.gz")]) == 2
    assert [name for name in certificates if name.startswith("results/certificates/inputs/")] == [
        f"results/certificates/inputs/synthetic.{SYNTHETIC}_again.json"]  # its task folder, as certified
    for name, data in local_files.items():
        assert remote_files[name] == data, name


def test_mirror_is_refused_with_a_cluster(candidates, tmp_path):
    root = _checkout(tmp_path / "root")
    done = run_bench("admit", str(candidates[0]), "--mirror", str(tmp_path), "--cluster", "tcp://127.0.0.1:9",
                     cwd=root, env={"BENCH_ROOT": str(root)})
    assert done.returncode == 2
    assert "BENCH_MIRROR_DIR" in done.stderr
