"""A small copy of the checkout (the harness, the Pants plugin, three synthetic tasks) and a Pants of its own run
in it: what the tests of the ``certify`` and ``score`` goals share."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from bench.testing.support import checkout_root

TASKS = ("caesar_shift", "anagram_groups", "roman_numerals")
OWN_LOCK = "roman_numerals"  # in the copy, the one task with a lock of its own
COPIED = ("pants", "pants.toml", "BUILD", "build-support", "pants-plugins", "src/python", "3rdparty", "lockfiles/BUILD",
          "lockfiles/llama-cpp-python.cmake-args", "lockfiles/python-default.lock", "lockfiles/tools", "images",
          "tasks/_integrity")


def _copy(source: Path, root: Path, relative: str) -> None:
    src, dst = source / relative, root / relative
    dst.parent.mkdir(parents=True, exist_ok=True)
    if src.is_dir():
        shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))
    else:
        shutil.copy2(src, dst)


def _git(root: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True, env=env).stdout


def small_checkout(root: Path) -> Path:
    """The harness, the plugin and three synthetic tasks; roman_numerals gets a lock file of its own."""
    source = checkout_root()
    for relative in COPIED:
        _copy(source, root, relative)
    targets = []
    for name in TASKS:
        for relative in (f"tasks/synthetic/{name}.json", f"tasks/synthetic/{name}",
                         f"tasks/synthetic/_scripted/study/{name}.json"):
            _copy(source, root, relative)
        lock = "lockfiles/tasks/synthetic.lock"
        if name == OWN_LOCK:
            lock = f"lockfiles/tasks/synthetic-{name}.lock"
            spec = root / f"tasks/synthetic/{name}.json"
            spec.write_text(spec.read_text().replace('"lockfiles/tasks/synthetic.lock"', f'"{lock}"'))
        _copy(source, root, "lockfiles/tasks/synthetic.lock")
        shutil.copy2(source / "lockfiles/tasks/synthetic.lock", root / lock)
        targets.append(f'bench_task(name="synthetic.{name}", spec="{name}.json", lockfile="{lock}", '
                       f'image="trixie-py313-slim", data=["{name}/**/*"])\n')
    (root / "tasks/synthetic/BUILD").write_text("\n".join(targets))
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "a small checkout")
    return root


def pants(root: Path, *args: str, store: Path, timeout: float = 1800) -> subprocess.CompletedProcess:
    """A Pants of its own (no daemon, its own local cache), so every line reports this run's processes."""
    done = subprocess.run(["./pants", "--no-pantsd", f"--local-store-dir={store}", *args], cwd=root,
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def sources(done: subprocess.CompletedProcess, verbs: str) -> list[tuple[str, str]]:
    """(how, what) of each process line the goals print: how is the goal's verb, cached or remote."""
    return re.findall(rf"^({verbs}|cached|remote)\s+(\S+(?: \S+)?)", done.stdout + done.stderr, re.M)
