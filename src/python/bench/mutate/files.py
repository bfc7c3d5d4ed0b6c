"""Which files of an unpacked release are library code (mutated) and which are its tests.

Patterns are POSIX globs relative to the tree root where ``**`` spans directories. Two placeholders make the
defaults fit both layouts an sdist has: ``<pkg>`` stands for each top-level package directory (one holding
``__init__.py``) and each top-level module of the tree, so ``<pkg>/**/*.py`` and ``<pkg>.py`` find
``more_itertools/recipes.py`` as well as a single-module library's ``six.py``.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

DEFAULT_INCLUDE = ("src/**/*.py", "<pkg>/**/*.py", "<pkg>.py")
DEFAULT_EXCLUDE = (
    "**/tests/**",
    "**/test/**",
    "**/testing/**",
    "**/test_*.py",
    "**/*_test.py",
    "**/*_tests.py",
    "**/conftest.py",
    "**/__main__.py",
    "**/_version.py",
    "**/_vendor/**",
    "**/vendor/**",
    "**/vendored/**",
    "docs/**",
    "doc/**",
    "examples/**",
    "benchmarks/**",
    "setup.py",
    "noxfile.py",
    "tasks.py",
    "fabfile.py",
)
TEST_PATTERNS = (
    "**/tests/**/*.py",
    "**/test/**/*.py",
    "**/testing/**/*.py",
    "**/test_*.py",
    "**/*_test.py",
    "**/*_tests.py",
    "**/conftest.py",
)
_PACKAGE_PLACEHOLDER = "<pkg>"


@lru_cache(maxsize=256)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """Compile a ``**``-aware POSIX glob to an anchored regex."""
    pieces = []
    index = 0
    while index < len(pattern):
        if pattern.startswith("**/", index):
            pieces.append("(?:.*/)?")
            index += 3
        elif pattern.startswith("**", index):
            pieces.append(".*")
            index += 2
        elif pattern[index] == "*":
            pieces.append("[^/]*")
            index += 1
        elif pattern[index] == "?":
            pieces.append("[^/]")
            index += 1
        else:
            pieces.append(re.escape(pattern[index]))
            index += 1
    return re.compile("".join(pieces) + r"\Z")


def matches(path: str, patterns: tuple[str, ...]) -> bool:
    return any(glob_regex(pattern).match(path) for pattern in patterns)


def top_level_packages(tree: Path) -> tuple[str, ...]:
    """Import names at the tree root: package directories and modules (test and build files excluded)."""
    names = set()
    for entry in tree.iterdir():
        if entry.is_dir() and (entry / "__init__.py").is_file() and not matches(entry.name + "/x.py", DEFAULT_EXCLUDE):
            names.add(entry.name)
        elif entry.suffix == ".py" and entry.is_file() and not matches(entry.name, DEFAULT_EXCLUDE):
            names.add(entry.stem)
    return tuple(sorted(names))


def _expand(patterns: tuple[str, ...], packages: tuple[str, ...]) -> tuple[str, ...]:
    expanded: list[str] = []
    for pattern in patterns:
        if _PACKAGE_PLACEHOLDER in pattern:
            expanded.extend(pattern.replace(_PACKAGE_PLACEHOLDER, name) for name in packages)
        else:
            expanded.append(pattern)
    return tuple(expanded)


def _python_files(tree: Path) -> list[str]:
    # Symlinks are not followed: a link may point anywhere in the tree and would duplicate a file.
    return sorted(
        path.relative_to(tree).as_posix()
        for path in tree.rglob("*.py")
        if path.is_file() and not path.is_symlink() and "__pycache__" not in path.parts
    )


def list_library_files(
    tree: Path, include: tuple[str, ...] = DEFAULT_INCLUDE, exclude: tuple[str, ...] = DEFAULT_EXCLUDE
) -> tuple[str, ...]:
    """Tree-relative POSIX paths of the library's own modules, sorted."""
    included = _expand(include, top_level_packages(tree))
    return tuple(path for path in _python_files(tree) if matches(path, included) and not matches(path, exclude))


def list_test_files(tree: Path, patterns: tuple[str, ...] = TEST_PATTERNS) -> tuple[str, ...]:
    """Tree-relative POSIX paths of the library's test modules (conftest files included), sorted, without what
    the project's own pytest configuration keeps out of collection (see :mod:`bench.mutate.pytest_config`)."""
    from bench.mutate.pytest_config import read_exclusions

    config = read_exclusions(tree)
    return tuple(path for path in _python_files(tree)
                 if matches(path, patterns) and config.is_test_module(path) and not config.excludes(path))
