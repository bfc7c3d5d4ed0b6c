"""Mutation tasks from scratch, as on a fresh machine: download a release from PyPI (pinned by sha256), mutate
it, lock its test dependencies in the sandbox, certify each mutant with the library's own tests, admit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.testing.support import empty_checkout, run_bench

RELEASE = "cachetools==5.5.0"


@pytest.fixture(scope="module")
def scratch_checkout(tmp_path_factory) -> Path:
    """A checkout with the real images and schema but no tasks, so admission writes only here."""
    return empty_checkout(tmp_path_factory.mktemp("checkout"))


def test_download_mutate_lock_certify_admit(scratch_checkout: Path, tmp_path: Path):
    env = {"BENCH_ROOT": str(scratch_checkout)}
    # seed 3's three functions: one mutant a reader spots (refused before any run), one too broad, one admitted
    made = run_bench("mutate", RELEASE, "--limit", "3", "--seed", "3", "--out", str(tmp_path), cwd=scratch_checkout,
                     env=env)
    assert made.returncode == 0, made.stderr
    candidates = sorted(tmp_path.glob("*.json"))
    assert len(candidates) == 3
    admitted = run_bench("admit", *map(str, candidates), "--max-targets", "5", cwd=scratch_checkout, env=env,
                         timeout=1800)
    lines = sorted(admitted.stdout.splitlines())
    assert admitted.returncode == 1, admitted.stderr[-2000:]  # a giveaway and a too broad candidate are dropped
    assert lines == [
        "admitted mutation.cachetools.5.5.0.6e571b92: admitted f2p=1",
        "dropped  mutation.cachetools.5.5.0.97a293cc: too_many_targets f2p=27",
        "dropped  mutation.cachetools.5.5.0.ab72160c: giveaway:a_statement_that_no_longer_matches_its_twin f2p=0",
    ]
    specs = sorted((scratch_checkout / "tasks" / "mutation-cachetools").glob("*.json"))
    assert [p.stem for p in specs] == ["mutation.cachetools.5.5.0.6e571b92"]
    for path in specs:
        spec = json.loads(path.read_text())
        assert 1 <= len(spec["fail_to_pass"]) <= 5
        assert spec["sdist"]["sha256"] and len(spec["mutation"]["original_sha256"]) == 64
        assert "original" not in spec["mutation"]  # the replaced text is named by hash, never quoted
        assert "diff" not in spec["mutation"]  # the diff quotes the library's code: it stays out of the spec
        assert (scratch_checkout / "results" / "certificates" / f"{path.stem}.json.gz").is_file()
    drop = json.loads((scratch_checkout / "tasks" / "_dropped" / "mutation.cachetools.5.5.0.97a293cc.json").read_text())
    assert drop["reason"] == "too_many_targets"
    refused = json.loads((scratch_checkout / "tasks" / "_dropped" / "mutation.cachetools.5.5.0.ab72160c.json").read_text())
    assert refused["reason"] == "giveaway:a_statement_that_no_longer_matches_its_twin"
    assert run_bench("validate", cwd=scratch_checkout, env=env).returncode == 0


def test_the_batch_certificate_is_what_certify_computes_for_the_task(scratch_checkout: Path, tmp_path: Path):
    """The batch shares the release's runs between mutants; certifying one admitted task on its own, with the
    cache ignored, must give the same certificate byte for byte, and `bench certify` of the pool is all cached."""
    env = {"BENCH_ROOT": str(scratch_checkout)}
    task = "mutation.cachetools.5.5.0.6e571b92"
    if not (scratch_checkout / "results" / "certificates" / f"{task}.json.gz").is_file():
        test_download_mutate_lock_certify_admit(scratch_checkout, tmp_path)
    certificate = scratch_checkout / "results" / "certificates" / f"{task}.json.gz"
    batch = certificate.read_bytes()
    cached = run_bench("certify", "mutation.*", cwd=scratch_checkout, env=env, timeout=600)
    assert cached.returncode == 0, cached.stderr[-2000:]
    assert "1 tasks: 1 admitted, 0 dropped, 1 from cache" in cached.stderr  # the summary line goes to stderr
    alone = run_bench("certify", task, "--no-cache", cwd=scratch_checkout, env=env, timeout=900)
    assert alone.returncode == 0, alone.stderr[-2000:]
    assert certificate.read_bytes() == batch
