"""`bench view` as a user sees it: a real repair-loop run (the repairer on a synthetic and a mutation task),
its pages rendered by headless Chromium, and what is on them checked against the run's own units."""

from __future__ import annotations

import html
import json
import struct
import subprocess
from pathlib import Path

import pytest

from bench.testing.support import checkout_root, run_bench

TASKS = ("synthetic.anagram_groups", "mutation.idna.3.10.b72990c6")  # a live task: bench score selects no retired one
WIDTH, HEIGHT = 1280, 1600


@pytest.fixture(scope="module")
def chromium() -> str:
    from bench.errors import InfrastructureError
    from bench.sandbox.host_tools import ensure_tool

    return ensure_tool("chromium", "chromium", InfrastructureError)


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("run") / "repairer"
    done = run_bench("score", "--model", "repairer", "--turns", "2", "--tasks", ",".join(TASKS), "--out", str(out),
                     "--no-report", cwd=checkout_root(), timeout=1800)
    assert done.returncode == 0, done.stderr[-2000:]
    view = run_bench("view", str(out), cwd=checkout_root())
    assert view.returncode == 0, view.stderr[-2000:]
    assert view.stdout.strip() == str(out / "view" / "index.html")
    return out


def _browser(chromium: str, *args: str) -> subprocess.CompletedProcess:
    import os
    import tempfile

    with tempfile.TemporaryDirectory(prefix="bench-chromium-") as profile:  # a profile and HOME of its own
        return subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                               f"--user-data-dir={profile}", f"--window-size={WIDTH},{HEIGHT}", *args],
                              capture_output=True, text=True, timeout=120,
                              env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": profile})


def test_a_task_page_shows_each_turns_diff_and_the_failing_tests_message(run, chromium, tmp_path):
    task = TASKS[1]
    detail = json.loads((run / "units" / task / "repairer-ast.full.0.json").read_text())
    first = detail["turns"][0]
    added = next(line for line in first["diff"].splitlines() if line.startswith("+") and not line.startswith("+++"))
    heading = next(line for line in first["feedback"].splitlines() if line.startswith("### "))
    page = run / "view" / "tasks" / f"{task}.html"
    dom = _browser(chromium, "--dump-dom", page.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    text = html.unescape(dom.stdout)
    assert "Turn 1: model_miss" in text
    assert added in text  # the edit, as a diff of the turn's change
    assert heading in text and "AssertionError" in text  # the failing test and its message
    record = next(json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()
                  if json.loads(line)["task_id"] == task)
    assert record["turns"][0]["signature"] in text and record["class"] in text
    shot = tmp_path / "task.png"
    taken = _browser(chromium, f"--screenshot={shot}", page.as_uri())
    assert taken.returncode == 0, taken.stderr[-2000:]
    assert struct.unpack(">II", shot.read_bytes()[16:24]) == (WIDTH, HEIGHT)  # the PNG's IHDR: a real render


def test_the_index_links_every_unit_to_its_task_page(run, chromium):
    dom = _browser(chromium, "--dump-dom", (run / "view" / "index.html").as_uri())
    assert dom.returncode == 0
    for task in TASKS:
        assert f'href="tasks/{task}.html"' in dom.stdout
        assert (run / "view" / "tasks" / f"{task}.html").is_file()
    assert "2 units of 2 tasks" in html.unescape(dom.stdout)
