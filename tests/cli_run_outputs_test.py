"""What a scoring run leaves behind: committed results untouched unless asked for, summary.json, and exit 3 with
the reasons when units hit infrastructure errors. The dead endpoint is a closed port on loopback."""

from __future__ import annotations

import json
import shutil
import socket
from pathlib import Path

from bench.testsupport import checkout_root, run_bench

TASK = "synthetic.caesar_shift"


def _closed_port() -> int:
    with socket.socket() as sock:  # bound, never listening, then closed: connecting is refused
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_score_without_out_leaves_committed_results_alone():
    root = checkout_root()
    committed = root / "results" / "study" / "scripted-study"
    before = _snapshot(committed)
    runs = root / "results" / "runs" / "scripted-study"
    existing = set(runs.iterdir()) if runs.is_dir() else set()
    done = run_bench("score", "--model", "scripted", "--tasks", TASK, "--turns", "1", "--no-report", cwd=root,
                     timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    made = sorted(set(runs.iterdir()) - existing)
    try:
        assert len(made) == 1, made
        assert (made[0] / "results.jsonl").is_file() and (made[0] / "summary.json").is_file()
        assert str(made[0]) in done.stdout
        assert _snapshot(committed) == before
        assert "/results/runs/" in (root / ".gitignore").read_text().splitlines()
    finally:
        for folder in made:
            shutil.rmtree(folder)


def test_a_dead_endpoint_exits_3_and_names_the_reason(tmp_path):
    out = tmp_path / "out"
    env = {"OPENAI_API_KEY": "x", "OPENAI_BASE_URL": f"http://127.0.0.1:{_closed_port()}/v1"}
    done = run_bench("score", "--model", "openai/gpt-4o-mini", "--tasks", TASK, "--out", str(out), "--no-report",
                     cwd=checkout_root(), env=env, timeout=600)
    assert done.returncode == 3, done.stderr[-2000:]
    assert "1 unit hit infrastructure errors (not scored):" in done.stderr
    assert "Connection refused" in done.stderr
    assert f"--retry-errors --out {out}" in done.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert list(summary["errored"]) == [f"{TASK}/single/0"]
    assert summary["by_outcome"] == {"infrastructure_error": 1}
    assert "–" in done.stdout  # no rate for zero scored units, as the report shows it
    again = run_bench("score", "--model", "openai/gpt-4o-mini", "--tasks", TASK, "--out", str(out), "--no-report",
                      cwd=checkout_root(), env=env, timeout=600)
    assert again.returncode == 3 and "--retry-errors" in again.stderr  # a resume says why the unit is skipped


def test_out_and_name_together_are_refused(tmp_path):
    done = run_bench("score", "--model", "scripted", "--out", str(tmp_path), "--name", "x", cwd=checkout_root())
    assert done.returncode == 2
    assert "--out names the folder itself" in done.stderr


def test_a_refused_run_leaves_no_folder(tmp_path):
    root = checkout_root()
    folder = root / "results" / "runs" / "openai-gpt-4o-mini" / "refused-run"
    done = run_bench("score", "--model", "openai/gpt-4o-mini", "--tasks", TASK, "--name", "refused-run",
                     cwd=root, env={"OPENAI_API_KEY": ""})
    assert done.returncode == 2, done.stderr[-2000:]
    assert "OPENAI_API_KEY" in done.stderr
    assert not folder.exists()


def test_ctrl_c_stops_at_once_says_how_to_resume_and_the_resume_completes(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    from bench.testsupport import child_env

    out = tmp_path / "out"
    argv = [sys.executable, "-m", "bench.cli.main", "score", "--model", "scripted", "--tasks", "synthetic.[a-f]*",
            "--turns", "3", "--no-cache", "--no-report", "--out", str(out)]
    process = subprocess.Popen(argv, cwd=checkout_root(), env=child_env(), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    log = out / "records.jsonl"
    deadline = time.monotonic() + 600
    while not (log.exists() and log.read_bytes().count(b"\n") >= 2) and time.monotonic() < deadline:
        time.sleep(0.2)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 128 + signal.SIGINT, stderr[-2000:]
    assert f"resume with the same command and --out {out}" in stderr
    kept = [json.loads(line) for line in log.read_text().splitlines()]
    resumed = subprocess.run(argv, cwd=checkout_root(), env=child_env(), capture_output=True, text=True,
                             timeout=1800)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["resumed"] == len(kept) and summary["units"] == summary["ran_now"] + len(kept)
    keys = [(r["task_id"], r["condition"]) for r in map(json.loads, log.read_text().splitlines())]
    assert len(keys) == len(set(keys)) == summary["units"]
