"""`bench score` takes no option it then ignores, names its run folders safely, and the commands it prints to
go on (after Ctrl-C, after infrastructure errors) are commands it accepts. The dead endpoint is a closed port on
loopback."""

from __future__ import annotations

import json
import shlex
import shutil
import socket

import pytest

from bench.testing.support import checkout_root, run_bench

TASK = "synthetic.caesar_shift"


def _closed_port() -> int:
    with socket.socket() as sock:  # bound, never listening, then closed: connecting is refused
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize("extra, named", [
    (("--both-conditions",), "--both-conditions shapes repair loops"),
    (("--condition", "count-only"), "--condition shapes repair loops"),
    (("--resample",), "--resample shapes repair loops"),
    (("--feed-divergences",), "--feed-divergences shapes repair loops"),
    (("--condition", "full", "--controller", "repairer"), "--condition, --controller shape repair loops"),
])
def test_loop_options_without_turns_are_refused(tmp_path, extra, named):
    out = tmp_path / "out"
    done = run_bench("score", "--model", "repairer", "--tasks", TASK, "--out", str(out), *extra, cwd=checkout_root())
    assert done.returncode == 2, done.stderr[-2000:]
    assert named in done.stderr and "add --turns K" in done.stderr
    assert not out.exists()


def test_a_condition_given_to_the_scripted_study_is_the_one_run(tmp_path):
    out = tmp_path / "out"
    done = run_bench("score", "--model", "scripted", "--tasks", TASK, "--condition", "count-only", "--no-report",
                     "--out", str(out), cwd=checkout_root(), timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads((out / "run.json").read_text())["conditions"] == ["count-only"]
    assert {r["condition"] for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())} == \
        {"count-only"}


@pytest.mark.parametrize("destination", ["name", "timestamp", "out"])
def test_the_printed_retry_command_is_accepted_and_runs_the_errors_again(tmp_path, destination):
    """A model id with a colon (as ollama's are) also names a folder without one."""
    root = checkout_root()
    runs = root / "results" / "runs" / "openai-llama3-8b"
    existing = set(runs.iterdir()) if runs.is_dir() else set()
    where = {"name": ("--name", f"retry-hint-{tmp_path.name}"), "timestamp": (),
             "out": ("--out", str(tmp_path / "out"))}[destination]
    env = {"OPENAI_API_KEY": "x", "OPENAI_BASE_URL": f"http://127.0.0.1:{_closed_port()}/v1"}
    try:
        first = run_bench("score", "--model", "openai/llama3:8b", "--tasks", TASK, *where, "--no-report",
                          "--no-preflight", cwd=root, env=env, timeout=600)
        assert first.returncode == 3, first.stderr[-2000:]
        made = sorted(set(runs.iterdir()) - existing) if destination != "out" else [tmp_path / "out"]
        assert len(made) == 1 and ":" not in str(made[0]) and (made[0] / "records.jsonl").is_file()
        hint = next(line for line in first.stderr.splitlines() if line.startswith("fix the cause, then run them"))
        words = shlex.split(hint.split(": ", 1)[1])
        assert words[:2] == ["bench", "score"] and "--retry-errors" in words
        again = run_bench(*words[1:], cwd=root, env=env, timeout=600)
        assert again.returncode == 3, again.stderr[-2000:]  # accepted (not 2), and the error is run again
        assert "(1 run now, 0 resumed)" in again.stdout and str(made[0]) in again.stdout
    finally:
        for folder in (set(runs.iterdir()) - existing) if runs.is_dir() else ():
            shutil.rmtree(folder)
        if runs.is_dir() and not any(runs.iterdir()) and not existing:
            runs.rmdir()
