"""What a scoring run leaves behind: committed results untouched unless asked for, summary.json, and exit 3 with
the reasons when units hit infrastructure errors. The dead endpoint is a closed port on loopback."""

from __future__ import annotations

import json
import shutil
import socket
from pathlib import Path

from bench.testing.support import checkout_root, run_bench

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
    assert "results.jsonl" in before  # the committed reference is there to be left alone
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


def test_a_dead_endpoint_stops_the_run_before_it_starts(tmp_path):
    out = tmp_path / "out"
    env = {"OPENAI_API_KEY": "x", "OPENAI_BASE_URL": f"http://127.0.0.1:{_closed_port()}/v1"}
    done = run_bench("score", "--model", "openai/gpt-4o-mini", "--tasks", TASK, "--out", str(out), cwd=checkout_root(),
                     env=env, timeout=600)
    assert done.returncode == 3, done.stderr[-2000:]
    assert "cannot reach endpoint" in done.stderr and "Connection refused" in done.stderr
    assert not out.exists()


def test_a_rejected_key_is_bad_input(tmp_path):
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Refuse(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802  the OpenAI model list, answered as a service with another key would
            body = b'{"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}'
            self.send_response(401)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Refuse)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        env = {"OPENAI_API_KEY": "wrong", "OPENAI_BASE_URL": f"http://127.0.0.1:{server.server_port}/v1"}
        done = run_bench("score", "--model", "openai/gpt-4o-mini", "--tasks", TASK, "--out", str(tmp_path / "out"),
                         cwd=checkout_root(), env=env, timeout=600)
    finally:
        server.shutdown()
    assert done.returncode == 2, done.stderr[-2000:]
    assert "rejected the API key (401)" in done.stderr


def test_errors_of_units_exit_3_with_each_reason_and_the_way_to_rerun(tmp_path):
    out = tmp_path / "out"
    env = {"OPENAI_API_KEY": "x", "OPENAI_BASE_URL": f"http://127.0.0.1:{_closed_port()}/v1"}
    args = ("score", "--model", "openai/gpt-4o-mini", "--tasks", TASK, "--out", str(out), "--no-report",
            "--no-preflight")
    done = run_bench(*args, cwd=checkout_root(), env=env, timeout=600)
    assert done.returncode == 3, done.stderr[-2000:]
    assert "1 unit hit infrastructure errors (not scored):" in done.stderr
    assert "Connection refused" in done.stderr
    assert f"--retry-errors --out {out}" in done.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert list(summary["errored"]) == [f"{TASK}/single/0"]
    assert summary["by_outcome"] == {"infrastructure_error": 1}
    assert "–" in done.stdout  # no rate for zero scored units, as the report shows it
    again = run_bench(*args, cwd=checkout_root(), env=env, timeout=600)
    assert again.returncode == 3 and "--retry-errors" in again.stderr  # a resume says why the unit is skipped


def test_pr_tasks_without_their_repository_stop_before_anything_is_built(tmp_path):
    from bench.spec.load import discover, load_all

    task = next(s.task_id for s in load_all(discover(checkout_root())) if s.kind == "pr")
    cache, mirrors = tmp_path / "cache", tmp_path / "mirrors"
    mirrors.mkdir()
    env = {"BENCH_CACHE_DIR": str(cache), "BENCH_MIRROR_DIR": str(mirrors)}
    done = run_bench("score", "--model", "repairer", "--tasks", task, "--out", str(tmp_path / "out"),
                     cwd=checkout_root(), env=env, timeout=600)
    assert done.returncode == 3, done.stderr[-2000:]
    assert f"{task}: its repository is not available here" in done.stderr
    assert not (cache / "images").exists() and not (cache / "venvs").exists()


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

    from bench.testing.support import child_env

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
    assert f"resume with: bench score --model scripted --tasks 'synthetic.[a-f]*' --turns 3 --no-cache --no-report " \
           f"--out {out}" in stderr
    kept = [json.loads(line) for line in log.read_text().splitlines()]
    resumed = subprocess.run(argv, cwd=checkout_root(), env=child_env(), capture_output=True, text=True,
                             timeout=1800)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["resumed"] == len(kept) and summary["units"] == summary["ran_now"] + len(kept)
    keys = [(r["task_id"], r["condition"]) for r in map(json.loads, log.read_text().splitlines())]
    assert len(keys) == len(set(keys)) == summary["units"]
