"""A run stopped by SIGTERM (or Ctrl-C) leaves summary.json for the units it finished, and its resume shows
progress from the units already done to 100 %. Real runs: the scripted model in the bwrap sandbox."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time

from bench.testing.support import checkout_root, child_env

TASKS = "synthetic.[a-c]*"


def test_sigterm_leaves_a_summary_of_the_finished_units_and_the_resume_counts_them_as_done(tmp_path):
    out = tmp_path / "out"
    argv = [sys.executable, "-m", "bench.cli.main", "score", "--model", "scripted", "--tasks", TASKS, "--turns",
            "3", "--no-cache", "--no-report", "--no-preflight", "--out", str(out)]
    env = child_env({"BENCH_NO_PROGRESS": ""})
    process = subprocess.Popen(argv, cwd=checkout_root(), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    log = out / "records.jsonl"
    deadline = time.monotonic() + 600
    while not (log.exists() and log.read_bytes().count(b"\n") >= 2) and time.monotonic() < deadline:
        time.sleep(0.2)
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 128 + signal.SIGTERM, stderr[-2000:]
    kept = [json.loads(line) for line in log.read_text().splitlines()]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["interrupted"] is True and summary["model"] == "scripted/study"
    assert summary["selection"] == {"selector": TASKS, "tasks": 17}
    assert summary["units"] == summary["ran_now"] == len(kept) and summary["resumed"] == 0
    assert sum(figures["units"] for figures in summary["by_condition"].values()) == len(kept)
    assert list(summary["by_condition"]) == ["full"]
    assert not (out / "results.jsonl").exists()  # the results of a finished run only

    resumed = subprocess.run(argv, cwd=checkout_root(), env=env, capture_output=True, text=True, timeout=1800)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    progress = [line for line in resumed.stderr.splitlines() if line.startswith("score scripted/study: ")]
    first = re.match(r"score scripted/study: (\d+)/17 \((\d+)%, (\d+) resumed\)", progress[0])
    assert first and int(first.group(1)) == int(first.group(3)) == len(kept), progress[0]
    assert int(first.group(2)) == round(100 * len(kept) / 17)
    assert progress[-1].startswith(f"score scripted/study: 17/17 (100%, {len(kept)} resumed)"), progress[-1]
    final = json.loads((out / "summary.json").read_text())
    assert final["interrupted"] is False and final["resumed"] == len(kept) and final["units"] == 17
    assert final["by_condition"]["full"]["units"] == 17
