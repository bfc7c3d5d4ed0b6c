"""Helpers shared by tests: running the harness in a child process exactly as this process sees it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Mapping

# Child processes run `python -m bench.cli.main`; importing it here makes test runners ship the whole CLI.
import bench.cli.main  # noqa: F401


def child_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for a child `python -m bench…`: this process's import path made explicit, because under
    a test runner (pex, pytest) the child would not otherwise find `bench` or its dependencies."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in sys.path if p)
    env.update(extra or {})
    return env


def run_bench(*args: str, cwd: Path, env: Mapping[str, str] | None = None, stdin: str | None = None,
              timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bench.cli.main", *args], cwd=cwd, capture_output=True,
                          text=True, env=child_env(env), input=stdin, timeout=timeout)


def checkout_root() -> Path:
    from bench.variables import find_root

    return find_root()


def empty_checkout(root: Path) -> Path:
    """A checkout with the real images, tool locks and pants.toml but no tasks, so admission writes only here."""
    import shutil

    source = checkout_root()
    root.mkdir(parents=True, exist_ok=True)
    (root / "pants.toml").write_text((source / "pants.toml").read_text())
    shutil.copytree(source / "images", root / "images")
    shutil.copytree(source / "lockfiles" / "tools", root / "lockfiles" / "tools")
    (root / "tasks" / "_dropped").mkdir(parents=True)
    (root / "lockfiles" / "tasks").mkdir(parents=True)
    return root


def load_task(task_id: str):
    from bench.spec.load import discover, load_all

    for spec in load_all(discover(checkout_root())):
        if spec.task_id == task_id:
            return spec
    raise LookupError(task_id)


def prepared_task(task_id: str, scratch: Path, *, sandbox_name: str = "bwrap"):
    """A real prepared task (certified, environment built, pristine workspace) for end-to-end tests."""
    from bench.score.task_env import prepare_task

    return prepare_task(load_task(task_id), checkout_root(), scratch, sandbox_name=sandbox_name)


def whole_file_edit(path: str, old: str, new: str) -> str:
    """A SEARCH/REPLACE reply that replaces a whole file's content."""
    return f"{path}\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n"
