"""Run pytest on many prepared work dirs in one interpreter: ``python _pytest_batch.py JOBS.json``.

A script, not an importable part of the harness: it exists so that checking dozens of scripted trajectories
pays for one interpreter start and one pytest import instead of one per candidate. Each job names a work
dir that holds the modules at its root and the tests under ``tests/``; the script runs
``pytest tests`` there in-process, with that dir first on ``sys.path`` and every module imported from an
earlier job's dir forgotten, and writes the exit code and the terminal output of every job to
``JOBS.json.out``. Only our own authored code (synthetic tasks and their variants) is run this way.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys

# Plugins whose teardown forces full garbage collections (most of a small suite's in-process cost); what they
# report (unraisable exceptions in threads, faulthandler dumps) never decides a test outcome.
_QUIET_PLUGINS = ("-p", "no:unraisableexception", "-p", "no:threadexception", "-p", "no:faulthandler")


def _forget_modules_under(folder: str) -> None:
    prefix = os.path.join(folder, "")
    for name, module in list(sys.modules.items()):
        location = getattr(module, "__file__", None) or ""
        if location.startswith(prefix):
            del sys.modules[name]


def _run(job: dict) -> dict:
    import pytest

    workdir = job["workdir"]
    saved_path = list(sys.path)
    os.chdir(workdir)
    sys.path.insert(0, workdir)
    output = io.StringIO()
    try:
        with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
            code = pytest.main(["-q", "--tb=short", "-p", "no:cacheprovider", *_QUIET_PLUGINS, f"--junitxml={job['junit']}", "tests"])
    finally:
        sys.path[:] = saved_path
        _forget_modules_under(workdir)
    return {"workdir": workdir, "returncode": int(code), "stdout": output.getvalue()}


def main(jobs_path: str) -> int:
    with open(jobs_path, encoding="utf-8") as handle:
        jobs = json.load(handle)
    results = [_run(job) for job in jobs]
    with open(jobs_path + ".out", "w", encoding="utf-8") as handle:
        json.dump(results, handle)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
