"""SIGTERM of a `bench` process whose sandbox hangs leaves nothing behind: no temp dir of its own, no cgroup,
no process of the run; it exits as interrupted (128 + SIGTERM), within seconds, not at the run's wall limit."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from bench.testing.support import checkout_root, child_env, load_task, whole_file_edit

TASK = "synthetic.caesar_shift"


def _hanging_edit() -> str:
    """Import of the edited module marks that the run started, then sleeps past any limit of the test."""
    spec = load_task(TASK)
    initial = (checkout_root() / spec.synthetic_dir / "initial" / "caesar.py").read_text()
    # A relative path (the run's cwd is the work dir): the edit scan flags any edit that names /work/.
    hang = initial + "\nimport time\nwith open('.hanging', 'w') as marker:\n    marker.write('x')\ntime.sleep(100000)\n"
    return whole_file_edit("caesar.py", initial, hang)


def _wait_for(predicate, seconds: float, what: str):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = predicate()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def _run_cgroups(pid: int) -> list[Path]:
    from bench.sandbox import _cgroups

    layout = _cgroups.detect()  # the child sits in this process's groups, so its run groups are beside ours
    parents = {path for _, path in layout.v1} | ({layout.v2} if layout.v2 else set())
    return [parent / name for parent in parents if parent.is_dir()
            for name in os.listdir(parent) if name.startswith(f"lcb-{pid}-")]


def test_sigterm_of_bench_while_a_sandbox_hangs_removes_its_temp_dirs_and_cgroups(tmp_path: Path):
    temp = tmp_path / "tmp"
    temp.mkdir()
    # First make sure the task is prepared (certified, environment built) so the hang below is the edit's.
    warm = subprocess.run([sys.executable, "-m", "bench.cli.main", "check", TASK], input="nothing", text=True,
                          capture_output=True, cwd=checkout_root(), env=child_env(), timeout=1800)
    assert warm.returncode == 1 and "NO_EDIT_APPLIED" in warm.stdout, warm.stderr
    child = subprocess.Popen([sys.executable, "-m", "bench.cli.main", "check", TASK], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=checkout_root(),
                             env=child_env({"TMPDIR": str(temp)}))
    try:
        child.stdin.write(_hanging_edit())
        child.stdin.close()
        _wait_for(lambda: list(temp.glob("bench-check-*/tree/.hanging")), 300, "the sandboxed tests to hang")
        groups = _wait_for(lambda: _run_cgroups(child.pid), 10, "the run's cgroups")
        procs = {int(p) for g in groups if (g / "cgroup.procs").exists()
                 for p in (g / "cgroup.procs").read_text().split()}
        assert procs  # the hanging run is alive inside its groups
        assert {p.name.split("-")[0] for p in temp.iterdir()} == {"bench"}  # check and report dirs exist
        started = time.monotonic()
        child.send_signal(signal.SIGTERM)
        child.wait(timeout=60)
        stopped = time.monotonic() - started
        stderr = child.stderr.read()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 128 + signal.SIGTERM, stderr
    assert "interrupted (SIGTERM)" in stderr
    assert stopped < 30
    assert list(temp.iterdir()) == []  # no bench-check-*, no bench-report-*
    assert _run_cgroups(child.pid) == []
    assert not [_describe(pid) for pid in procs if _alive(pid)]


def _alive(pid: int) -> bool:
    """Running, not a zombie waiting for a parent outside the run (which the pid namespace's end reaps)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[0] != "Z"


def _describe(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/status").read_text()[:300] + Path(f"/proc/{pid}/cgroup").read_text()
    except OSError:
        return str(pid)
