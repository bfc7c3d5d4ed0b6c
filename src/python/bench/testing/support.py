"""Helpers shared by tests: running the harness in a child process exactly as this process sees it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Mapping

# Child processes run `python -m bench.cli.main`; importing it here makes test runners ship the whole CLI.
from bench import pyast
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

    for spec in load_all(discover(checkout_root(), retired=True)):
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


LOCAL_PR_REPO = "loopcontrolbench/redteam-pr"


def local_pr_task(scratch: Path, *, sandbox_name: str = "bwrap", split_tests: bool = False,
                  pytest_ini: str = "", task_id: str = ""):
    """A real pull-request task built here, for machines that cannot reach any repository host: a git
    repository whose base commit holds synthetic.caesar_shift's initial code and whose fix commit holds its
    reference code and tests, used as the task's local mirror. It takes the PR path end to end (a bare cache
    fetched from the mirror, the tree exported at base, the tests overlaid from the fix, certification) and
    builds on what the checkout commits. Commit dates are fixed, so its shas are the same on every run.

    ``split_tests``: the guard tests move to a first test file, ``tests/test_basics.py``, so the target tests
    sit in a file collected after the task's code is first imported (as in most tasks of the pool).
    ``pytest_ini``: the project's own pytest.ini, committed at base (``addopts = -x``, say)."""
    import shutil

    from bench.score.task_env import prepare_task
    from bench.spec.load import spec_from_document

    source = load_task("synthetic.caesar_shift")
    folder = checkout_root() / source.synthetic_dir
    repo = scratch / "mirror" / LOCAL_PR_REPO.replace("/", "+")
    repo.mkdir(parents=True)
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid",
           "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"}

    def commit(message: str) -> str:
        for argv in (["add", "-A"], ["commit", "-q", "--no-gpg-sign", "-m", message], ["rev-parse", "HEAD"]):
            done = subprocess.run(["git", *argv], cwd=repo, env=env, check=True, capture_output=True, text=True)
        return done.stdout.strip()

    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, env=env, check=True)
    shutil.copy2(folder / "initial" / "caesar.py", repo / "caesar.py")
    if pytest_ini:
        (repo / "pytest.ini").write_text(pytest_ini)
    base = commit("Caesar cipher")
    shutil.copy2(folder / "reference" / "caesar.py", repo / "caesar.py")
    shutil.copytree(folder / "tests", repo / "tests")
    test_files, pass_to_pass = list(source.test_files), list(source.pass_to_pass)
    if split_tests:
        test_files, pass_to_pass = _split_guard_tests(repo / "tests", pass_to_pass)
    fix = commit("Keep the case of letters; leave non-ASCII letters alone")
    document = {
        "schema_version": 1, "task_id": task_id or ("redteam-pr-2" if split_tests else "redteam-pr-1"), "kind": "pr",
        "repo": LOCAL_PR_REPO, "source_files": list(source.source_files), "test_files": test_files,
        "fail_to_pass": list(source.fail_to_pass), "pass_to_pass": pass_to_pass,
        "image": source.image, "lockfile": source.lockfile, "base_sha": base, "fix_sha": fix,
        "provenance": {"source": "pull-request", "pr_number": 1, "url": "https://example.invalid/pull/1"},
    }
    spec = spec_from_document(document, path=str(scratch / "redteam-pr-1.json"))
    return prepare_task(spec, checkout_root(), scratch / "tasks", sandbox_name=sandbox_name, mirror=repo)


def _split_guard_tests(tests: Path, pass_to_pass: list[str]) -> tuple[list[str], list[str]]:
    """Move the pass_to_pass tests of ``tests/test_caesar.py`` into ``tests/test_basics.py`` (listed first)."""
    import ast

    tree = pyast.parse((tests / "test_caesar.py").read_text())
    guards = {t.split("::")[1] for t in pass_to_pass}
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef)]

    def module(keep) -> str:
        return "import caesar\n\n\n" + "\n\n\n".join(ast.unparse(n) for n in functions if keep(n.name)) + "\n"

    (tests / "test_basics.py").write_text(module(lambda name: name in guards))
    (tests / "test_caesar.py").write_text(module(lambda name: name not in guards))
    return ["tests/test_basics.py", "tests/test_caesar.py"], [
        t.replace("tests/test_caesar.py::", "tests/test_basics.py::") for t in pass_to_pass]


def script_module(relative: str, name: str):
    """A script of the checkout (``benchmarks/…``, ``scripts/…``) imported as a module, for its functions."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, checkout_root() / relative)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
