"""`bench score --cluster`: the same units on a real Dask scheduler and two workers on loopback give the same
results.jsonl as local threads; a worker killed mid-unit or a client killed mid-run loses and duplicates
nothing, and an interrupted client leaves the scheduler with no task of its run."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.testing.loopback_cluster import LoopbackCluster, start_cluster
from bench.testing.support import checkout_root, child_env, run_bench

TASKS = "synthetic.c*"  # 6 tasks; the scripted study runs both conditions: 12 repair loops
UNITS = 12
SCORE = ("score", "--model", "scripted", "--tasks", TASKS, "--no-report")
WAIT_SECONDS = 240.0


def _head(root: Path) -> str:
    out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True)
    return out.stdout.strip()


@pytest.fixture(scope="module")
def root() -> Path:
    return checkout_root()


@pytest.fixture(scope="module")
def cluster(root, tmp_path_factory):
    with start_cluster(2, root=root, log_dir=tmp_path_factory.mktemp("cluster")) as running:
        yield running


@pytest.fixture(scope="module")
def reference(root, tmp_path_factory) -> tuple[bytes, str]:
    """results.jsonl of a local run (threads in one process), and the commit it was made at."""
    out = tmp_path_factory.mktemp("local") / "out"
    head = _head(root)
    done = run_bench(*SCORE, "--out", str(out), cwd=root)
    assert done.returncode == 0, done.stderr[-3000:]
    return (out / "results.jsonl").read_bytes(), head


def _assert_same_results(got: bytes, reference: tuple[bytes, str], root: Path) -> None:
    """Byte-identical; only if someone committed meanwhile may the benchmark commit alone differ."""
    expected, head = reference
    if got == expected:
        return
    assert _head(root) != head, "results differ although the checkout's commit did not change"
    strip = [_without_commit(line) for line in got.splitlines()]
    assert strip == [_without_commit(line) for line in expected.splitlines()]


def _without_commit(line: bytes) -> dict:
    record = json.loads(line)
    record["integrity"].pop("benchmark_commit")
    return record


def _records(out: Path) -> list[dict]:
    path = out / "records.jsonl"
    return [json.loads(line) for line in path.read_bytes().splitlines() if line.strip()] if path.exists() else []


def _keys(records: list[dict]) -> list[tuple]:
    return [(r["task_id"], r["model"], r["condition"], r["sample"]) for r in records]


def _start_score(root: Path, out: Path, cluster: LoopbackCluster, *extra: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "bench.cli.main", *SCORE, "--out", str(out), "--no-cache",
                             "--cluster", cluster.address, *extra], cwd=root, env=child_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for_records(out: Path, count: int, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while len(_records(out)) < count:
        assert process.poll() is None, f"bench score ended early: {process.communicate()[1][-3000:]}"
        assert time.monotonic() < deadline, f"fewer than {count} records after {WAIT_SECONDS:.0f} s"
        time.sleep(0.2)


def _scheduler_tasks(cluster: LoopbackCluster) -> int:
    from distributed import Client

    with Client(cluster.address, timeout=10, set_as_default=False) as client:
        return client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks))


def _finish(process: subprocess.Popen, timeout: float = WAIT_SECONDS) -> tuple[int, str, str]:
    try:
        out, err = process.communicate(timeout=timeout)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    return process.returncode, out, err


def test_cluster_results_are_byte_identical_to_local_threads(root, cluster, reference, tmp_path):
    out = tmp_path / "out"
    done = run_bench(*SCORE, "--out", str(out), "--cluster", cluster.address, cwd=root)
    assert done.returncode == 0, done.stderr[-3000:]
    _assert_same_results((out / "results.jsonl").read_bytes(), reference, root)
    line = next(x for x in done.stderr.splitlines() if x.startswith("executor dask"))
    per_worker = line.split("units per worker: ")[1].split(";")[0].split(", ")
    assert sum(int(part.rsplit(" ", 1)[1]) for part in per_worker) == UNITS
    # Both workers now hold the synthetic tasks' environment, so later units prefer either of them.
    from distributed import Client

    from bench.score.remote_unit import held_environments

    with Client(cluster.address, timeout=10, set_as_default=False) as client:
        held = client.run(held_environments)
    assert any(held.values())


def test_predictions_on_the_cluster_match_local_threads(root, cluster, tmp_path):
    import difflib

    from bench.testing.support import load_task

    folder = root / load_task("synthetic.caesar_shift").synthetic_dir
    initial, fixed = ((folder / side / "caesar.py").read_text() for side in ("initial", "reference"))
    patch = "".join(difflib.unified_diff(initial.splitlines(True), fixed.splitlines(True), "a/caesar.py",
                                         "b/caesar.py"))
    preds = tmp_path / "preds.jsonl"
    preds.write_text("".join(json.dumps({"instance_id": task, "model_patch": text, "model_name_or_path": "demo"})
                             + "\n" for task, text in (("synthetic.caesar_shift", patch),
                                                       ("synthetic.cron_next", patch),
                                                       ("synthetic.roman_numerals", ""))))
    results = {}
    for where, extra in (("local", ()), ("cluster", ("--cluster", cluster.address))):
        done = run_bench("score", "--predictions", str(preds), "--out", str(tmp_path / where), *extra, cwd=root)
        assert done.returncode == 0, done.stderr[-3000:]
        results[where] = (tmp_path / where / "results.jsonl").read_bytes()
    assert results["cluster"] == results["local"]
    outcomes = [json.loads(line)["outcome"] for line in results["cluster"].splitlines()]
    assert outcomes == ["solved", "invalid_edit", "invalid_edit"]  # cron_next: the patch names another file


def test_certify_on_the_cluster_writes_the_certificates_a_local_gate_writes(root, cluster):
    from bench.gate.certify import certificate_file

    tasks = ("synthetic.caesar_shift", "synthetic.calendar_free_slots")
    local = run_bench("certify", "synthetic.ca*", cwd=root)
    assert local.returncode == 0, local.stderr[-3000:]
    before = {task: certificate_file(root, task).read_bytes() for task in tasks}
    remote = run_bench("certify", "synthetic.ca*", "--no-cache", "--cluster", cluster.address, cwd=root)
    assert remote.returncode == 0, remote.stderr[-3000:]
    # Gate runs on the workers (--no-cache), certificates written here: the same bytes.
    assert sorted(line.split(":")[0] for line in remote.stdout.splitlines()) == [f"certified {t}" for t in tasks]
    assert {task: certificate_file(root, task).read_bytes() for task in tasks} == before
    assert "2 tasks: 2 admitted, 0 dropped, 0 from cache" in remote.stderr


def test_interrupted_and_killed_client_resumes_on_the_cluster(root, cluster, reference, tmp_path):
    out = tmp_path / "out"
    process = _start_score(root, out, cluster)
    try:
        _wait_for_records(out, 2, process)
        process.send_signal(signal.SIGINT)
        code, _, err = _finish(process, 120)
    finally:
        _finish(process, 1) if process.poll() is None else None
    assert code == 128 + signal.SIGINT, err[-3000:]
    deadline = time.monotonic() + 60
    while _scheduler_tasks(cluster):  # the run's units are gone from the scheduler: the cluster is clean
        assert time.monotonic() < deadline, "the interrupted run's tasks stayed on the scheduler"
        time.sleep(0.5)
    after_interrupt = len(_records(out))

    process = _start_score(root, out, cluster)
    try:
        _wait_for_records(out, after_interrupt + 2, process)
        process.send_signal(signal.SIGKILL)
    finally:
        _finish(process, 30)
    killed_at = len(_records(out))
    assert after_interrupt < killed_at < UNITS

    done = run_bench(*SCORE, "--out", str(out), "--no-cache", "--cluster", cluster.address, cwd=root)
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"({UNITS - killed_at} run now, {killed_at} resumed)" in done.stdout
    keys = _keys(_records(out))
    assert len(keys) == UNITS and len(set(keys)) == UNITS  # nothing lost, nothing recorded twice
    _assert_same_results((out / "results.jsonl").read_bytes(), reference, root)


def test_worker_killed_mid_unit_loses_and_duplicates_nothing(root, cluster, reference, tmp_path):
    out = tmp_path / "out"
    code, err = _kill_worker_0_mid_run(root, out, cluster, after_records=2)
    assert code == 0, err[-3000:]
    records = _records(out)
    keys = _keys(records)
    assert len(keys) == UNITS and len(set(keys)) == UNITS
    assert not [r for r in records if r["outcome"] == "infrastructure_error"]
    _assert_same_results((out / "results.jsonl").read_bytes(), reference, root)
    line = next(x for x in err.splitlines() if x.startswith("executor dask"))
    assert int(line.split("retried ")[1].split(";")[0]) >= 1, line  # the unit it was running ran again


def _kill_worker_0_mid_run(root, out, cluster: LoopbackCluster, *, after_records: int) -> tuple[int, str]:
    """Start a cluster score run, SIGKILL worker 0 while it runs a unit, let the run finish: (rc, stderr)."""
    names = cluster.wait_ready()
    process = _start_score(root, out, cluster)
    try:
        _wait_for_records(out, after_records, process)
        _wait_until_running(cluster, names["worker-0"])
        cluster.kill_worker(0)
        code, _, err = _finish(process)
    finally:
        _finish(process, 1) if process.poll() is None else None
    return code, err


def _wait_until_running(cluster: LoopbackCluster, address: str) -> None:
    from distributed import Client

    deadline = time.monotonic() + 60
    with Client(cluster.address, timeout=10, set_as_default=False) as client:
        while not client.run(lambda dask_worker: len(dask_worker.state.executing), workers=[address])[address]:
            assert time.monotonic() < deadline, "worker-0 never ran a unit"
            time.sleep(0.05)


def test_unit_whose_workers_die_is_recorded_as_infrastructure_error(root, reference, tmp_path):
    """With allowed-failures 0 a unit whose worker dies is not run again: recorded infrastructure_error with
    the reason, and --retry-errors completes the run."""
    out = tmp_path / "out"
    with start_cluster(2, root=root, log_dir=tmp_path / "cluster",
                       scheduler_env={"DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "0"}) as small:
        code, err = _kill_worker_0_mid_run(root, out, small, after_records=1)
        assert code == 3, err[-3000:]  # units ended in infrastructure errors: named, with the way to rerun them
        assert "KilledWorker" in err and "--retry-errors" in err
        errors = [r for r in _records(out) if r["outcome"] == "infrastructure_error"]
        assert len(errors) >= 1 and all(r["reason"].startswith("KilledWorker") for r in errors)
        assert len(_records(out)) == UNITS
        done = run_bench(*SCORE, "--out", str(out), "--no-cache", "--retry-errors", "--cluster", small.address,
                         cwd=root)
    assert done.returncode == 0, done.stderr[-3000:]
    _assert_same_results((out / "results.jsonl").read_bytes(), reference, root)
