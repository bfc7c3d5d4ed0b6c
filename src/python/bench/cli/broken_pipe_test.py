"""`bench list | head -1`: a reader that stops early ends `bench` quietly, as SIGPIPE ends `cat` (exit 141, no
error text, no traceback)."""

from __future__ import annotations

import os
import subprocess
import sys

from bench.testing.support import checkout_root, child_env


def _bench_into_closed_pipe(*args: str) -> subprocess.CompletedProcess:
    """`bench ARGS` writing to a pipe whose reading end is already closed (what `head` leaves behind, without the
    race of when `head` exits)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run([sys.executable, "-m", "bench.cli.main", *args], cwd=checkout_root(),
                              stdout=write_end, stderr=subprocess.PIPE, text=True, env=child_env(None),
                              timeout=300)
    finally:
        os.close(write_end)


def test_a_reader_that_stops_early_ends_bench_quietly_with_sigpipe_status():
    done = _bench_into_closed_pipe("list")
    assert done.returncode == 141
    assert done.stderr == ""


def test_head_of_bench_list_prints_the_first_task_and_nothing_on_stderr():
    done = subprocess.run(f"{sys.executable} -m bench.cli.main list | head -1", shell=True, cwd=checkout_root(),
                          capture_output=True, text=True, env=child_env(None), timeout=300)
    assert done.returncode == 0
    assert len(done.stdout.splitlines()) == 1
    assert "Broken pipe" not in done.stderr and "Traceback" not in done.stderr
