"""The work dir of a scored run: every Python module but the candidate's own source files unchangeable.

Whatever decides a verdict must not be writable by the code under test, and that is more than the test files a
spec names: the helpers they import (``tests/util.py``), package ``__init__.py`` files, ``conftest.py``, the
runner's configuration, ``.pth`` files, and the bytecode cache pytest reads for a test module it collects
later. So every such file outside ``source_files``, and an empty ``__pycache__`` in every directory holding a
Python module, is *frozen* for the run (``ExecRequest.frozen``): the backend makes it immutable (or, where it
cannot, binds it read-only over itself). The kernel enforces it: no descriptor trick, link, rename or
replacement changes an immutable file, and nothing can be added to an immutable folder.

Data files stay writable: honest test suites write into their own tree (jinja2's touches a template to test
its cache, tomlkit's writes an example file back). A data file of the test directories whose *content* differs
after the run is reported instead (``changed_data``): a run that would be solved with it is ``tampered``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from bench.store.canonical import file_sha256


RUNNER_CONFIG_NAMES = ("pytest.ini", ".pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml")
CONFIG_NAMES = frozenset({*RUNNER_CONFIG_NAMES, "conftest.py"})
_MODULE_SUFFIXES = (".py", ".pyi", ".pth", ".pyc")
_SKIP_DIRS = frozenset({"__pycache__", ".git"})
# Data files of the test directories are hashed before and after a run, within these bounds.
DATA_FILE_BYTES = 4 << 20
DATA_TOTAL_BYTES = 64 << 20


def protected_kind(name: str) -> bool:
    return name.endswith(_MODULE_SUFFIXES) or name in CONFIG_NAMES


def protected_paths(run_dir: Path, source_files: Iterable[str], *, taken: Iterable[str] = ()) -> tuple[str, ...]:
    """Work-dir relative paths a run must not change: every module and runner file in ``run_dir`` but
    ``source_files``, and the ``__pycache__`` folder (made here, empty) of every folder holding a module.
    ``taken``: sandbox paths other mounts cover already (they win)."""
    sources = {os.path.normpath(p) for p in source_files}
    skip = {t[len("/work/"):] for t in taken if t.startswith("/work/")}
    found: list[str] = []
    for rel_dir, _, files in _walk(run_dir):
        modules = [name for name in files if protected_kind(name)]
        for name in modules:
            rel = os.path.join(rel_dir, name)
            if rel not in sources and not (run_dir / rel).is_symlink() and (run_dir / rel).is_file():
                found.append(rel)
        if any(name.endswith(".py") for name in modules) and _empty_cache(run_dir / rel_dir):
            found.append(os.path.join(rel_dir, "__pycache__"))
    return tuple(rel for rel in found if rel not in skip)


def data_digests(run_dir: Path, test_files: Iterable[str]) -> dict[str, str]:
    """sha256 of every data file (not a module, not runner config) under the test files' directories."""
    digests: dict[str, str] = {}
    budget = DATA_TOTAL_BYTES
    for top in sorted({os.path.dirname(os.path.normpath(t)) for t in test_files} - {""}):
        for rel_dir, _, files in _walk(run_dir / top):
            for name in files:
                path = run_dir / top / rel_dir / name
                if protected_kind(name) or path.is_symlink() or not path.is_file():
                    continue
                size = path.stat().st_size
                if size > DATA_FILE_BYTES or size > budget:
                    continue
                budget -= size
                digests[os.path.normpath(os.path.join(top, rel_dir, name))] = file_sha256(path)
    return digests


def changed_data(run_dir: Path, before: dict[str, str]) -> tuple[str, ...]:
    """The data files whose content the run changed or removed."""
    changed = []
    for rel, digest in sorted(before.items()):
        path = run_dir / rel
        if path.is_symlink() or not path.is_file() or file_sha256(path) != digest:
            changed.append(rel)
    return tuple(changed)


def _walk(top: Path):
    for folder, dirs, files in os.walk(top):
        rel = os.path.relpath(folder, top)
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not (Path(folder) / d).is_symlink())
        yield ("" if rel == "." else rel), dirs, sorted(files)


def _empty_cache(folder: Path) -> bool:
    """Make ``folder``/__pycache__ if it is missing; whether it is a real, empty folder to protect."""
    cache = folder / "__pycache__"
    if cache.is_symlink() or cache.exists() and not cache.is_dir():
        return False
    cache.mkdir(exist_ok=True)
    return not any(cache.iterdir())
