"""What a project's pytest configuration keeps out of collection, read statically (no code of it runs).

The harness hands pytest an explicit list of test files, and pytest imports an explicitly named file even
when its configuration would never have collected it: a release whose ``norecursedirs`` hides a folder of
type-checker fixtures, or whose tests/ holds example modules that are not tests, would then fail collection on
its own. So the test list keeps only modules pytest collects by name (``python_files``, default ``test_*.py``
and ``*_test.py``, plus conftest files) and drops what the configuration excludes: ``norecursedirs`` and
``--ignore`` / ``--ignore-glob`` in ``addopts``, from the first configuration
file pytest itself would use (pytest.ini, pyproject.toml's ``[tool.pytest.ini_options]``, tox.ini's
``[pytest]``, setup.cfg's ``[tool:pytest]``). A conftest's ``collect_ignore`` is code and is not read.
"""

from __future__ import annotations

import configparser
import fnmatch
import shlex
import tomllib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

PYTEST_DEFAULT_NORECURSE = ("*.egg", ".*", "_darcs", "build", "CVS", "dist", "node_modules", "venv", "{arch}")


PYTEST_DEFAULT_PYTHON_FILES = ("test_*.py", "*_test.py")


@dataclass(frozen=True)
class Exclusions:
    norecursedirs: tuple[str, ...] = PYTEST_DEFAULT_NORECURSE
    ignore: tuple[str, ...] = ()  # paths relative to the tree root
    ignore_glob: tuple[str, ...] = ()
    python_files: tuple[str, ...] = PYTEST_DEFAULT_PYTHON_FILES

    def is_test_module(self, path: str) -> bool:
        """Whether pytest would collect ``path`` as a test module (or load it as a conftest) on its own: a file
        named on pytest's command line is imported even when it is a helper, so only these are named."""
        name = PurePosixPath(path).name
        return name == "conftest.py" or any(fnmatch.fnmatch(name, pattern) for pattern in self.python_files)

    def excludes(self, path: str) -> bool:
        """Whether pytest, run from the tree root with this configuration, would not collect ``path``."""
        parts = PurePosixPath(path).parts
        for depth in range(1, len(parts)):
            folder = "/".join(parts[:depth])
            if any(_matches(pattern, folder) for pattern in self.norecursedirs):
                return True
            if folder in self.ignore:
                return True
        return path in self.ignore or any(fnmatch.fnmatch(path, pattern) for pattern in self.ignore_glob)


def _matches(pattern: str, folder: str) -> bool:
    # pytest's fnmatch_ex: a pattern without a separator matches the basename, one with a separator the path.
    if "/" not in pattern:
        return fnmatch.fnmatch(PurePosixPath(folder).name, pattern)
    return fnmatch.fnmatch(folder, pattern) or fnmatch.fnmatch(folder, f"*/{pattern}")


def read_exclusions(tree: Path) -> Exclusions:
    options = _ini_options(tree)
    if options is None:
        return Exclusions()
    norecurse = _as_list(options.get("norecursedirs"))
    python_files = _as_list(options.get("python_files"))
    ignore, ignore_glob = _ignored_in_addopts(_as_list(options.get("addopts"), split=shlex.split))
    return Exclusions(tuple(norecurse) if norecurse else PYTEST_DEFAULT_NORECURSE, ignore, ignore_glob,
                      tuple(python_files) if python_files else PYTEST_DEFAULT_PYTHON_FILES)


def _ini_options(tree: Path) -> dict | None:
    """The options of the first configuration file pytest would pick, or None when there is none."""
    if (tree / "pytest.ini").is_file():
        return _section(tree / "pytest.ini", "pytest") or {}
    pyproject = tree / "pyproject.toml"
    if pyproject.is_file():
        try:
            table = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError):
            table = {}
        options = table.get("tool", {}).get("pytest", {}).get("ini_options")
        if isinstance(options, dict):
            return options
    for name, section in (("tox.ini", "pytest"), ("setup.cfg", "tool:pytest")):
        if (tree / name).is_file() and (options := _section(tree / name, section)) is not None:
            return options
    return None


def _section(path: Path, section: str) -> dict | None:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(path.read_text(encoding="utf-8", errors="replace"))
    except configparser.Error:
        return None
    return dict(parser[section]) if parser.has_section(section) else None


def _as_list(value, split=str.split) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list):
        return [str(item) for item in value]
    try:
        return split(str(value))
    except ValueError:  # unbalanced quotes in addopts: pytest would refuse it too
        return str(value).split()


def _ignored_in_addopts(args: list[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    ignore: list[str] = []
    ignore_glob: list[str] = []
    for index, arg in enumerate(args):
        for flag, into in (("--ignore", ignore), ("--ignore-glob", ignore_glob)):
            if arg.startswith(flag + "="):
                into.append(_relative(arg[len(flag) + 1:]))
            elif arg == flag and index + 1 < len(args):
                into.append(_relative(args[index + 1]))
    return tuple(ignore), tuple(ignore_glob)


def _relative(path: str) -> str:
    return str(PurePosixPath(path.removeprefix("./"))).rstrip("/")
